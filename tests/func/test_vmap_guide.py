"""Every ``python`` block of docs/vmap.md runs (the blocks share a namespace), and the rule
the guide adds batches its function in one call."""

import pathlib
import re

import numpy as np

import arraygrad as ag

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "vmap.md"


def test_vmap_guide_code_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    assert len(blocks) == 2
    namespace: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"vmap.md[block {i}]", "exec"), namespace)  # noqa: S102
    x, w = namespace["x"], namespace["w"]
    assert ag.allclose(namespace["vmap"](lambda row: (row * w).sum())(x), x @ w)
    assert ag.allclose(namespace["pairs"], x @ x.T, atol=1e-5)
    # the guide's rule: called through a batching namespace with a batched array, one call
    from arraygrad.func._vmap._batched import BatchedArray, Level
    calls = []

    def cummax(a, axis=-1):
        calls.append(a.shape)
        return np.maximum.accumulate(a, axis=axis)

    level = Level(2, None, "error")
    out = namespace["my_cumulative_max"](level, cummax, BatchedArray(np.array([[1, 3, 2], [4, 0, 5]]), level))
    assert calls == [(2, 3)] and out.value.tolist() == [[1, 3, 3], [4, 4, 5]]
