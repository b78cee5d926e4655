"""Every ``python`` block of docs/func.md runs (the blocks share a namespace)."""

import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "func.md"


def test_func_guide_code_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) >= 9
    namespace: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"func.md[block {i}]", "exec"), namespace)  # noqa: S102
    assert tuple(namespace["outputs"].shape) == (3, 16, 1)
    assert tuple(namespace["per_sample"]["0.weight"].shape) == (16, 8, 4)
