"""Helpers shared by the ``arraygrad.func`` tests (imported as a plain module: tests/func is on
sys.path): float64 tensors in both frameworks and a pytree comparison."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad._pytree import tree_flatten

try:
    import torch
except ImportError:  # the comparisons with torch.func are skipped without PyTorch
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
F64 = ag.float64


def arr(t) -> np.ndarray:
    """A tensor's (arraygrad's or PyTorch's) values as a float64 NumPy array."""
    return np.asarray(t.detach().tolist(), dtype=np.float64)


def t64(values, requires_grad=False):
    """A float64 arraygrad tensor from NumPy or nested lists."""
    if isinstance(values, np.ndarray):
        values = values.tolist()
    return ag.tensor(values, dtype=F64, requires_grad=requires_grad)


def torch64(values, requires_grad=False):
    """The same values as a float64 PyTorch tensor."""
    return torch.tensor(np.asarray(values).tolist(), dtype=torch.float64,
                        requires_grad=requires_grad)


def assert_trees_close(ours, theirs, atol=1e-10):
    """Same pytree structure (tuples, lists, dicts) and the same values at every leaf."""
    ours_leaves, ours_spec = tree_flatten(ours)
    theirs_leaves, theirs_spec = tree_flatten(theirs)
    assert ours_spec == theirs_spec, (str(ours_spec), str(theirs_spec))
    for a, b in zip(ours_leaves, theirs_leaves):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(arr(a), arr(b), atol=atol, rtol=1e-10)
