"""nonzero/argwhere, unique/unique_consecutive, bincount, histc, searchsorted/bucketize:
hand-computed values, errors, and (where PyTorch is installed) random inputs against it."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402


def _same(a, t):
    if isinstance(t, tuple):
        assert isinstance(a, tuple) and len(a) == len(t)
        for x, y in zip(a, t):
            _same(x, y)
        return
    assert tuple(a.shape) == tuple(t.shape)
    assert str(a.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(a.numpy(), t.numpy())


def test_values_by_hand():
    x = ag.tensor([[1, 0, 2], [0, 3, 0]])
    assert x.nonzero().tolist() == [[0, 0], [0, 2], [1, 1]]
    assert [t.tolist() for t in ag.nonzero(x, as_tuple=True)] == [[0, 0, 1], [0, 2, 1]]
    assert tuple(ag.nonzero(ag.tensor(3.0)).shape) == (1, 0)
    u, inv, cnt = ag.unique(ag.tensor([3, 1, 3, 2]), return_inverse=True, return_counts=True)
    assert (u.tolist(), inv.tolist(), cnt.tolist()) == ([1, 2, 3], [2, 0, 2, 1], [1, 1, 2])
    assert ag.bincount(ag.tensor([0, 2, 2]), minlength=5).tolist() == [1, 0, 2, 0, 0]
    assert ag.histc(ag.tensor([1.0, 2, 1, 9]), bins=3).tolist() == [3.0, 0.0, 1.0]
    assert ag.bucketize(ag.tensor([0.5, 3, 9]), ag.tensor([1.0, 3, 5])).tolist() == [0, 1, 3]
    assert ag.bucketize(ag.tensor([3]), ag.tensor([1, 3, 5]), right=True).tolist() == [2]
    assert ag.searchsorted(ag.tensor([1, 3, 5]), 3).item() == 1


@pytest.mark.parametrize("call, err", [
    (lambda: ag.bincount(ag.tensor([-1])), RuntimeError),
    (lambda: ag.bincount(ag.tensor([[1]])), RuntimeError),
    (lambda: ag.bincount(ag.tensor([1.0])), NotImplementedError),
    (lambda: ag.histc(ag.tensor([1, 2])), NotImplementedError),
    (lambda: ag.histc(ag.tensor([1.0]), min=2, max=1), RuntimeError),
    (lambda: ag.searchsorted(ag.tensor([[1, 3], [2, 4]]), ag.tensor([3])), RuntimeError),
    (lambda: ag.searchsorted(ag.tensor([1, 3]), ag.tensor([3]), side="middle"), RuntimeError),
    (lambda: ag.bucketize(ag.tensor([1]), ag.tensor([[1, 3]])), RuntimeError),
])
def test_errors(call, err):
    with pytest.raises(err):
        call()


ints = st.lists(st.integers(0, 5), min_size=0, max_size=12)


@needs_torch
@settings(max_examples=40, deadline=None)
@given(ints, st.integers(0, 3), st.booleans(), st.booleans())
def test_unique_and_counting_match_torch(vals, cols, inv, cnt):
    a = np.array(vals, dtype=np.int64)
    if cols and len(vals) % cols == 0 and vals:
        a = a.reshape(-1, cols)
    x, t = ag.tensor(a), torch.tensor(a)
    _same(ag.unique(x, return_inverse=inv, return_counts=cnt),
          torch.unique(t, return_inverse=inv, return_counts=cnt))
    _same(ag.unique_consecutive(x, return_inverse=inv, return_counts=cnt),
          torch.unique_consecutive(t, return_inverse=inv, return_counts=cnt))
    for d in range(a.ndim):
        if a.shape[d]:
            _same(ag.unique(x, dim=d, return_inverse=inv, return_counts=cnt),
                  torch.unique(t, dim=d, return_inverse=inv, return_counts=cnt))
            _same(ag.unique_consecutive(x, dim=d, return_inverse=inv, return_counts=cnt),
                  torch.unique_consecutive(t, dim=d, return_inverse=inv, return_counts=cnt))
    _same(ag.nonzero(x), torch.nonzero(t))
    _same(ag.argwhere(x), torch.argwhere(t))
    _same(ag.nonzero(x, as_tuple=True), torch.nonzero(t, as_tuple=True))
    flat = a.reshape(-1)
    _same(ag.bincount(ag.tensor(flat), minlength=cols), torch.bincount(torch.tensor(flat), minlength=cols))
    w = np.linspace(0.5, 2.0, flat.size)
    _same(ag.bincount(ag.tensor(flat), weights=ag.tensor(w)),
          torch.bincount(torch.tensor(flat), weights=torch.tensor(w)))


@needs_torch
@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-4, 4, width=32), min_size=1, max_size=12), st.integers(1, 6),
       st.booleans())
def test_histc_searchsorted_bucketize_match_torch(vals, bins, right):
    a = np.array(vals, dtype=np.float32)
    x, t = ag.tensor(a), torch.tensor(a)
    _same(ag.histc(x, bins=bins), torch.histc(t, bins=bins))
    _same(ag.histc(x, bins=bins, min=-1, max=2), torch.histc(t, bins=bins, min=-1, max=2))
    b = np.sort(a)
    _same(ag.searchsorted(ag.tensor(b), x, right=right), torch.searchsorted(torch.tensor(b), t, right=right))
    _same(ag.bucketize(x, ag.tensor(b), right=right, out_int32=True),
          torch.bucketize(t, torch.tensor(b), right=right, out_int32=True))
    rows = np.sort(np.stack([a, a[::-1]]), axis=1)
    q = np.stack([a, a])
    _same(ag.searchsorted(ag.tensor(rows), ag.tensor(q), side="right" if right else "left"),
          torch.searchsorted(torch.tensor(rows), torch.tensor(q), side="right" if right else "left"))
