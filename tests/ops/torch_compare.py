"""The comparison the op-family tests share: outputs equal PyTorch's, then the gradients of
one random weighted sum of them equal PyTorch's too (callers skip without PyTorch)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def float64_pair(shape, seed=0):
    """The same float64 values as an arraygrad and a torch leaf that require grad."""
    data = np.random.default_rng(seed).standard_normal(shape)
    return (ag.tensor(data.tolist(), dtype=ag.float64).reshape(shape).requires_grad_(),
            torch.tensor(data, dtype=torch.float64, requires_grad=True))


def leaf_pairs(ours, theirs):
    """The ``(ours, theirs)`` leaves of two equally nested tuples or lists (their lengths
    asserted equal on the way)."""
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            yield from leaf_pairs(o, t)
    else:
        yield ours, theirs


def raises_as_torch(call):
    """``call(torch)`` raises, and ``call(arraygrad)`` raises the same class: returns both
    messages ``(theirs, ours)`` for the caller's comparison."""
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(ag)
    return str(theirs.value), str(ours.value)


def flat(out):
    """``out`` as a list of tensors (a tuple or list of outputs, or one)."""
    return list(out) if isinstance(out, (tuple, list)) else [out]


def same_as_torch(ours, theirs, inputs=(), tol=1e-12):
    """Outputs equal (shape and value); then the gradients of a weighted sum equal too.

    ``inputs``: ``(arraygrad leaf, torch leaf)`` pairs whose gradients are compared."""
    ours, theirs = flat(ours), flat(theirs)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape)
        np.testing.assert_allclose(np.asarray(o.detach().tolist(), dtype=float).reshape(t.shape),
                                   t.detach().numpy(), rtol=tol, atol=tol)
    if not inputs:
        return
    rng = np.random.default_rng(1)
    ws = [rng.standard_normal(tuple(t.shape)) for t in theirs]
    loss_o = sum((o * ag.tensor(w.tolist(), dtype=ag.float64).reshape(w.shape)).sum()
                 for o, w in zip(ours, ws))
    loss_t = sum((t * torch.tensor(w)).sum() for t, w in zip(theirs, ws))
    loss_o.backward()
    loss_t.backward()
    for a, t in inputs:
        assert (a.grad is None) == (t.grad is None)
        if t.grad is not None:
            np.testing.assert_allclose(np.asarray(a.grad.tolist()).reshape(t.shape),
                                       t.grad.numpy(), rtol=tol, atol=tol)
