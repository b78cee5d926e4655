"""Every ``python`` block of docs/recurrent-layers.md runs (the blocks share a namespace)."""

import pathlib
import re

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "recurrent-layers.md"


def test_recurrent_guide_code_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 3
    namespace: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"recurrent-layers.md[block {i}]", "exec"), namespace)  # noqa: S102
    assert tuple(namespace["unpacked"].shape) == (7, 3, 5)
    # the guide's last block: a layer is one sequence node, a cell's step one fused cell node
    from arraygrad.ops.rule import fast_paths

    # (reference mode records the per-step cells instead, and stacks their outputs)
    layer = "LstmSequenceBackward0" if fast_paths.on else "StackBackward0"
    assert type(namespace["layer"]).__name__ == layer
    assert type(namespace["step"]).__name__ == "ThnnFusedLstmCellBackward0"
