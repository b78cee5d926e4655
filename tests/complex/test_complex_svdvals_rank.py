"""``linalg.svdvals`` and ``linalg.matrix_rank`` of complex matrices, as PyTorch's: values,
the singular values' gradient ``U diag(gS) Vh`` against finite differences and PyTorch's, and
the rank. Both raised NotImplementedError before (the Array API namespace's complex
``svdvals``/``matrix_rank`` need them)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 3, 4)) + 1j * RNG.standard_normal((2, 3, 4))


def test_complex_svdvals_gradient_matches_finite_differences() -> None:
    assert gradcheck(ag.linalg.svdvals, (ag.tensor(A, requires_grad=True),))


def test_complex_svdvals_and_rank_match_pytorch() -> None:
    torch = pytest.importorskip("torch")
    a = ag.tensor(A, requires_grad=True)
    t = torch.tensor(A, requires_grad=True)
    s, ts = ag.linalg.svdvals(a), torch.linalg.svdvals(t)
    assert s.dtype == ag.float64
    np.testing.assert_allclose(s.detach().numpy(), ts.detach().numpy(), rtol=1e-12)
    (s * ag.arange(3., dtype=ag.float64)).sum().backward()
    (ts * torch.arange(3., dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
    low = A[0][:, :2] @ A[1][:2, :]  # rank 2
    assert ag.linalg.matrix_rank(ag.tensor(low)).item() == \
        torch.linalg.matrix_rank(torch.tensor(low)).item() == 2
