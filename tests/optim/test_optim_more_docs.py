"""Every ``python`` block of docs/optim.md runs, in order, in one namespace (the guide
cannot drift from the code)."""

import pathlib
import re

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def test_optim_guide_code_blocks_run():
    blocks = BLOCK.findall((DOCS / "optim.md").read_text())
    assert len(blocks) >= 5
    namespace: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"optim.md[block {i}]", "exec"), namespace)  # noqa: S102
