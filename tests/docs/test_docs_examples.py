"""Every ``python`` code block of the guides in docs/ runs (blocks of one file share a namespace)."""

import pathlib
import re

import pytest

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
RUNNABLE = ["autograd.md"]


@pytest.mark.parametrize("name", RUNNABLE)
def test_guide_code_blocks_run(name):
    text = (DOCS / name).read_text()
    blocks = BLOCK.findall(text)
    assert blocks, f"{name} has no python blocks"
    namespace: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"{name}[block {i}]", "exec"), namespace)  # noqa: S102
