"""``x[mask]`` with one bool mask of ``x``'s shape (``x[x > 0]``) or of its leading dimension
(rows) takes ``ops.fast.mask_key``: one ``nonzero`` instead of a ``nonzero`` per dimension
lowered to a flat position per element. Values, gradients, nodes and errors are the general
path's (reference mode) and PyTorch's where it is installed; any other mask falls back."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops import _linear_index, indexing
from arraygrad.ops.rule import reference_mode

MASKS = {
    "whole": lambda x: x > 0,
    "rows": lambda x: x[:, 0] > 0,
    "none true": lambda x: x > 100,
    "all true": lambda x: x > -100,
    "part of the trailing dims": lambda x: (x > 0)[:, :2],
    "wrong length": lambda x: (x > 0)[0],
    "too many dims": lambda x: (x > 0)[..., None].expand(*x.shape, 2),
    "uint8": lambda x: (x > 0).to(ag.uint8) if isinstance(x, ag.Tensor) else None,
}


def _run(lib, x0, make, fast=True):
    x = lib.tensor(x0, requires_grad=True)
    with reference_mode(not fast):
        try:
            mask = make(x)
            if mask is None:
                return None
            y = x[mask]
            weights = lib.arange(y.numel(), dtype=lib.float32).reshape(y.shape)
            (y * weights).sum().backward()
        except Exception as exc:  # noqa: BLE001 - the class and words are compared
            return type(exc).__name__, str(exc)
    return (y.detach().numpy().tolist(), x.grad.numpy().tolist(), type(y.grad_fn).__name__,
            tuple(y.shape))


@pytest.mark.parametrize("name", sorted(MASKS))
@pytest.mark.parametrize("shape", [(5, 4), (6,), (2, 3, 4)])
def test_fast_path_is_the_general_path(name, shape):
    x0 = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    if len(shape) == 1 and name in ("rows", "part of the trailing dims"):
        pytest.skip("a 1-D tensor has no trailing dims")
    assert _run(ag, x0, MASKS[name], True) == _run(ag, x0, MASKS[name], False)


@pytest.mark.parametrize("name", sorted(set(MASKS) - {"uint8"}))
def test_against_pytorch(name):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    x0 = np.random.default_rng(1).standard_normal((5, 4)).astype(np.float32)
    assert _run(ag, x0, MASKS[name]) == _run(torch, x0, MASKS[name])


@reference_mode(False)
def test_the_fast_key_is_taken(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the general lowering ran")

    monkeypatch.setattr(indexing, "linear_key", refuse)
    monkeypatch.setattr(_linear_index, "linear_key", refuse)
    x = ag.tensor([[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
    assert x[x > 0].tolist() == [1.0, 3.0]
    assert x[ag.tensor([False, True])].tolist() == [[3.0, -4.0]]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), st.booleans(),
       st.data())
def test_random_masks(shape, rows, data):
    x0 = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    mshape = shape[:1] if rows else shape
    bits = data.draw(st.lists(st.booleans(), min_size=int(np.prod(mshape)),
                              max_size=int(np.prod(mshape))))
    mask = np.array(bits, dtype=bool).reshape(mshape)

    def make(x):
        return ag.tensor(mask)

    assert _run(ag, x0, make, True) == _run(ag, x0, make, False)
