"""What the sparse tests share: the same COO tensor built in arraygrad and in PyTorch, and the
comparison of a result with PyTorch's (layout, shape, entries as stored, dense values)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

# a 2x3 matrix with one repeated position, (1, 2), stored twice: uncoalesced
INDICES = [[1, 0, 1, 0], [2, 0, 2, 1]]
VALUES = [3.0, 4.0, 5.0, -1.5]
SHAPE = (2, 3)


def coo(lib, indices=INDICES, values=VALUES, shape=SHAPE, dtype=None, requires_grad=False):
    """``lib.sparse_coo_tensor`` (lib: arraygrad or torch) from plain lists."""
    dtype = dtype or lib.float64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's notice that it checks no invariants
        return lib.sparse_coo_tensor(lib.tensor(indices, dtype=lib.int64),
                                     lib.tensor(values, dtype=dtype), shape,
                                     requires_grad=requires_grad)


def pair(**kwargs):
    """The same COO tensor in arraygrad and in PyTorch."""
    return coo(ag, **kwargs), coo(torch, **kwargs)


def dense_of(t):
    """The dense values of ``t`` (sparse or dense, either library) as a NumPy array."""
    t = t.detach()
    if t.is_sparse:
        t = t.to_dense()
    return np.asarray(t.tolist(), dtype=float).reshape(tuple(t.shape))


def same_sparse(ours, theirs, exact_entries=True, tol=1e-12):
    """``ours`` equals PyTorch's ``theirs``: the same layout and shape and dense values; with
    ``exact_entries`` also the same stored entries (indices, values, nnz, coalesced flag)."""
    assert ours.is_sparse == theirs.is_sparse
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype.name == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(dense_of(ours), dense_of(theirs), rtol=tol, atol=tol)
    if ours.is_sparse and exact_entries:
        assert ours._nnz() == theirs._nnz()
        assert ours.is_coalesced() == theirs.is_coalesced()
        assert ours._indices().tolist() == theirs._indices().tolist()
        np.testing.assert_allclose(dense_of(ours._values()), dense_of(theirs._values()),
                                   rtol=tol, atol=tol)


def grad_summary(t):
    """A leaf's gradient as (layout is sparse, nnz or None, dense values)."""
    g = t.grad
    if g is None:
        return None
    return g.is_sparse, (g._nnz() if g.is_sparse else None), dense_of(g)


def same_grad(ours, theirs, tol=1e-12):
    """The leaves' gradients match PyTorch's: layout, number of entries, dense values."""
    a, b = grad_summary(ours), grad_summary(theirs)
    assert (a is None) == (b is None)
    if a is not None:
        assert a[:2] == b[:2], (a, b)
        np.testing.assert_allclose(a[2], b[2], rtol=tol, atol=tol)
