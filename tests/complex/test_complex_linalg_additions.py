"""``linalg.svdvals``, ``matrix_rank``, ``cholesky`` and ``pinv`` of complex matrices, as
PyTorch's: values, and gradients against finite differences and PyTorch's (the real formulas
with conjugate transposes). All four raised NotImplementedError before (the Array API
namespace's complex linear algebra needs them)."""

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


def _hermitian(x):
    return x @ x.mH + 3 * ag.eye(x.shape[-1], dtype=x.dtype)


@pytest.mark.parametrize("upper", [False, True])
def test_complex_cholesky_gradient_matches_finite_differences(upper: bool) -> None:
    a = ag.tensor(A[:, :, :3], requires_grad=True)
    assert gradcheck(lambda x: ag.linalg.cholesky(_hermitian(x), upper=upper), (a,))


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 4, 3)])
def test_complex_pinv_gradient_matches_finite_differences(shape) -> None:
    a = ag.tensor(A.reshape(shape), requires_grad=True)
    assert gradcheck(ag.linalg.pinv, (a,))


def test_complex_cholesky_and_pinv_match_pytorch() -> None:
    torch = pytest.importorskip("torch")
    sq = A[:, :, :3]
    t = torch.tensor(sq)
    np.testing.assert_allclose(
        ag.linalg.cholesky(_hermitian(ag.tensor(sq))).numpy(),
        torch.linalg.cholesky(t @ t.mH + 3 * torch.eye(3, dtype=t.dtype)).numpy(), rtol=1e-12)
    a = ag.tensor(A, requires_grad=True)
    ta = torch.tensor(A, requires_grad=True)
    p, tp = ag.linalg.pinv(a), torch.linalg.pinv(ta)
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-10)
    p.abs().sum().backward()
    tp.abs().sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-8, atol=1e-10)
