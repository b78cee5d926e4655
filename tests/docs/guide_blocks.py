"""Running a guide's ``python`` code blocks in order, in one shared namespace."""

import pathlib
import re
import warnings

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def run_guide_blocks(guide: str, at_least: int) -> dict:
    """Run every ``python`` block of ``docs/<guide>`` (at least ``at_least`` of them) and
    return the namespace they shared."""
    text = (DOCS / guide).read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= at_least
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # nn.Transformer's enable_nested_tensor notice
        for i, code in enumerate(blocks):
            exec(compile(code, f"{guide}[block {i}]", "exec"), namespace)  # noqa: S102
    return namespace
