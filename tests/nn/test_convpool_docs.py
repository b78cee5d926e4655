"""The code blocks of docs/convolution-pooling-padding.md run (they share a namespace)."""

import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "convolution-pooling-padding.md"


def test_guide_code_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert blocks
    namespace: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"{DOC.name}[block {i}]", "exec"), namespace)  # noqa: S102
