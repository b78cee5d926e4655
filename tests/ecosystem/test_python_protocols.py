"""What a user reaches for after NumPy: ``float(t)``, ``int(t)``, ``t.__index__``, ``list(t)``,
``len(t)``, ``x in t``, ``sorted(t)``, ``hash(t)``, ``format(t, ".3f")``, ``repr``, ``tolist()``
on every dtype, pandas over ``t.numpy()``: each answer (or error class and message) compared
with PyTorch's on the same expression."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

# name -> expression of ``lib`` (torch or arraygrad); each is run on both and compared
EXPRESSIONS = {
    "float 0-d": lambda lib: float(lib.tensor(2.5)),
    "float 1x1": lambda lib: float(lib.tensor([[2.5]])),
    "float several": lambda lib: float(lib.tensor([1.0, 2.0])),
    "int 0-d": lambda lib: int(lib.tensor(2.7)),
    "int bool": lambda lib: int(lib.tensor(True)),
    "int several": lambda lib: int(lib.tensor([1, 2])),
    "complex": lambda lib: complex(lib.tensor(1.5)),
    "math.isclose": lambda lib: math.isclose(lib.tensor(1.0), 1.0),
    "index int": lambda lib: [10, 20, 30][lib.tensor(1)],
    "index 1-elem": lambda lib: [10, 20, 30][lib.tensor([2])],
    "index bool": lambda lib: [10, 20, 30][lib.tensor(True)],
    "index uint8": lambda lib: [10, 20, 30][lib.tensor(1, dtype=lib.uint8)],
    "index float": lambda lib: [10, 20, 30][lib.tensor(1.0)],
    "index several": lambda lib: [10, 20, 30][lib.tensor([1, 2])],
    "range": lambda lib: list(range(lib.tensor(3))),
    "len": lambda lib: len(lib.ones(3, 2)),
    "len 0-d": lambda lib: len(lib.tensor(1.0)),
    "list": lambda lib: [v.tolist() for v in list(lib.tensor([[1, 2], [3, 4]]))],
    "iter 0-d": lambda lib: list(lib.tensor(1.0)),
    "reversed": lambda lib: [v.item() for v in reversed(lib.tensor([1, 2, 3]))],
    "in number": lambda lib: (2 in lib.tensor([1.0, 2.0]), 5 in lib.tensor([1.0, 2.0])),
    "in bool": lambda lib: True in lib.tensor([1, 0]),
    "in numpy scalar": lambda lib: np.float64(2.0) in lib.tensor([1.0, 2.0]),
    "in tensor": lambda lib: (lib.tensor([2.0]) in lib.tensor([1.0, 2.0]),
                              lib.tensor([[1.0, 3.0]]) in lib.tensor([[1.0, 2.0], [3.0, 1.0]])),
    "in wrong shape": lambda lib: lib.tensor([2.0, 3.0]) in lib.tensor([1.0, 2.0, 3.0]),
    "in str": lambda lib: "a" in lib.tensor([1.0]),
    "in None": lambda lib: None in lib.tensor([1.0]),
    "in list": lambda lib: [1.0] in lib.tensor([1.0]),
    "sorted": lambda lib: [v.item() for v in sorted(lib.tensor([3.0, 1.0, 2.0]))],
    "sorted 2-d": lambda lib: sorted(lib.tensor([[2, 1], [0, 3]])),
    "max builtin": lambda lib: max(lib.tensor([3.0, 1.0, 2.0])).item(),
    "sum builtin": lambda lib: sum(lib.tensor([3.0, 1.0, 2.0])).item(),
    "bool 1": lambda lib: bool(lib.tensor([0.5])),
    "bool several": lambda lib: bool(lib.tensor([1, 2])),
    "format 0-d .3f": lambda lib: format(lib.tensor(3.14159), ".3f"),
    "format 0-d int": lambda lib: format(lib.tensor(3), "05d"),
    "format 0-d int as float": lambda lib: format(lib.tensor(3), ".2f"),
    "format 0-d bool": lambda lib: (format(lib.tensor(True), ""), format(lib.tensor(True), "d")),
    "format 0-d width": lambda lib: format(lib.tensor(1.5), ">10"),
    "format 0-d empty": lambda lib: (format(lib.tensor(1.5), ""), f"{lib.tensor(2.5)}"),
    "format 0-d requires grad": lambda lib: format(lib.tensor(3.14159, requires_grad=True), ".2f"),
    "format 1-d spec": lambda lib: format(lib.tensor([3.14159]), ".3f"),
    "round": lambda lib: round(lib.tensor(1.26), 1),
    "divmod": lambda lib: divmod(lib.tensor(7), 2),
    "repr": lambda lib: repr(lib.tensor([[1.5, 2.0], [-3.25, 1e-4]])),
    "repr int": lambda lib: repr(lib.tensor([1, 2], dtype=lib.int32)),
    "repr grad": lambda lib: repr(lib.tensor([1.0], requires_grad=True) * 2),
}


def _answer(lib, expression):
    try:
        value = expression(lib)
    except Exception as exc:  # noqa: BLE001 - the class and the message are the answer
        return ("raises", type(exc).__name__, str(exc))
    text = re.sub(r"\b(torch|arraygrad)\.", "LIB.", repr(value))
    return ("gives", type(value).__name__ if not hasattr(value, "shape") else "Tensor", text)


@needs_torch
@pytest.mark.parametrize("name", list(EXPRESSIONS))
def test_python_protocols_as_pytorch(name):
    theirs = _answer(torch, EXPRESSIONS[name])
    ours = _answer(ag, EXPRESSIONS[name])
    if theirs[0] == "raises":
        assert ours[:2] == theirs[:2]
        # PyTorch's own messages; the in-shape one is arraygrad's broadcasting message
        if name != "in wrong shape":
            assert ours[2] == theirs[2]
    else:
        assert ours == theirs


def test_hash_is_identity():
    a, b = ag.tensor([1.0]), ag.tensor([1.0])
    assert hash(a) == hash(a) and len({a, b, a}) == 2
    assert {a: "a", b: "b"}[b] == "b"


ALL_DTYPES = ["float16", "bfloat16", "float32", "float64", "uint8", "int8", "int16", "int32",
              "int64", "uint16", "uint32", "uint64", "bool"]


@needs_torch
@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_tolist_and_item_on_every_dtype(dtype):
    values = [[1, 0], [1, 1]]
    ours = ag.tensor(values, dtype=getattr(ag, dtype))
    theirs = torch.tensor(values, dtype=getattr(torch, dtype))
    assert ours.tolist() == theirs.tolist()
    assert [type(v) for v in ours.tolist()[0]] == [type(v) for v in theirs.tolist()[0]]
    assert type(ours[0, 0].item()) is type(theirs[0, 0].item())
    assert ours[1, 1].tolist() == theirs[1, 1].tolist()  # 0-d: a number, not a list


def test_pandas_frames_of_tensors():
    pd = pytest.importorskip("pandas")
    t = ag.arange(6.0).reshape(3, 2)
    for frame in (pd.DataFrame(t.numpy(), columns=["a", "b"]), pd.DataFrame(t, columns=["a", "b"])):
        assert frame["b"].tolist() == [1.0, 3.0, 5.0] and str(frame["a"].dtype) == "float32"
    assert pd.Series(ag.tensor([1, 2])).tolist() == [1, 2]
    back = ag.tensor(pd.DataFrame({"x": [1.0, 2.0]}).to_numpy())
    assert back.shape == (2, 1) and back.dtype is ag.float64
