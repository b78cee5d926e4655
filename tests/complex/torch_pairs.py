"""What the complex tests share: the same complex values as an arraygrad and a torch tensor,
and the comparison of arrays (callers skip without PyTorch)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def complex_values(shape, seed=0, dtype=np.complex128):
    """Reproducible complex values with parts in [-1, 1)."""
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, shape) + 1j * rng.uniform(-1, 1, shape)).astype(dtype)


def complex_pair(shape, seed=0, requires_grad=True, dtype="complex128"):
    """The same values as an arraygrad and a torch complex leaf."""
    data = complex_values(shape, seed, np.dtype(dtype))
    return (ag.tensor(data, dtype=getattr(ag, dtype), requires_grad=requires_grad),
            torch.tensor(data, dtype=getattr(torch, dtype), requires_grad=requires_grad))


def as_numpy(t):
    """A tensor of either library as a NumPy array (PyTorch's lazy conjugate resolved)."""
    return np.asarray(t.detach().resolve_conj().cpu().numpy())


def assert_same(ours, theirs, rtol=1e-10, atol=1e-12):
    """Same dtype name, shape and values (NaN where NaN)."""
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(as_numpy(ours), as_numpy(theirs), rtol=rtol, atol=atol)
