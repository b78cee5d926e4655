"""The comparison the op-family tests share: outputs equal PyTorch's, then the gradients of
one random weighted sum of them equal PyTorch's too (callers skip without PyTorch)."""

from __future__ import annotations

import numpy as np

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None


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
