"""``linalg.qr`` and ``linalg.svd`` of complex matrices (the Array API suite's ``test_qr`` and
``test_svd`` draw them): values and gradients against PyTorch and float64 finite differences
of both parts, PyTorch's refusal of a loss that depends on the singular vectors' phases, and
``det``'s gradient at a singular complex matrix (through the complex SVD). Before, both
factorisations refused complex tensors with NotImplementedError."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from tests.complex.torch_pairs import as_numpy, complex_values, needs_torch, torch

SHAPES = [(4, 3), (3, 3), (3, 5), (2, 4, 3)]


def _qr_loss(lib, Q, R):
    # every entry of both factors, real and imaginary parts weighted apart
    return sum((lib.view_as_real(t.resolve_conj()) * w).sum()
               for t, w in ((Q, 0.7), (R, -1.3)))


def _svd_invariant(lib, U, S, Vh, weights):
    """A loss that the singular vectors' phases do not change (column j of U and row j of Vh
    turn together), yet one whose gradient reaches their phase term: ``U_0j Vh_j0``."""
    k = S.shape[-1]
    pairs = U[..., 0, :k] * Vh[..., :k, 0]
    return ((pairs * weights).real.sum() + (S * S).sum()
            + (U[..., :, :k].abs() * 0.5).sum())


# PyTorch defines no gradient for mode='complete' with more rows than columns
QR_CASES = [(s, "reduced") for s in SHAPES] + [((3, 3), "complete"), ((3, 5), "complete")]


@pytest.mark.parametrize("shape, mode", QR_CASES)
def test_complex_qr_gradient_matches_finite_differences(shape, mode):
    A = ag.tensor(complex_values(shape, 1), requires_grad=True)
    assert gradcheck(lambda a: tuple(ag.linalg.qr(a, mode=mode)), (A,))


def test_complex_qr_second_derivative_matches_finite_differences():
    A = ag.tensor(complex_values((3, 3), 2), requires_grad=True)
    assert gradgradcheck(lambda a: tuple(ag.linalg.qr(a)), (A,))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("full_matrices", [False, True])
def test_complex_svd_gradient_matches_finite_differences(shape, full_matrices):
    A = ag.tensor(complex_values(shape, 3), requires_grad=True)
    w = ag.tensor(complex_values((min(shape[-2:]),), 4))

    def fn(a):
        return _svd_invariant(ag, *ag.linalg.svd(a, full_matrices=full_matrices), w)

    assert gradcheck(fn, (A,))


@needs_torch
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_qr_values_and_gradients_equal_pytorchs(shape, dtype):
    data = complex_values(shape, 5, np.dtype(dtype))
    ours = ag.tensor(data, requires_grad=True)
    theirs = torch.tensor(data, requires_grad=True)
    (Q, R), (Qt, Rt) = ag.linalg.qr(ours), torch.linalg.qr(theirs)
    assert Q.dtype is getattr(ag, dtype) and R.dtype is getattr(ag, dtype)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype == "complex64" else dict(rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(as_numpy(Q), as_numpy(Qt), **tol)
    np.testing.assert_allclose(as_numpy(R), as_numpy(Rt), **tol)
    (g,) = ag.autograd.grad(_qr_loss(ag, Q, R), ours)
    (gt,) = torch.autograd.grad(_qr_loss(torch, Qt, Rt), theirs)
    np.testing.assert_allclose(as_numpy(g), as_numpy(gt), **tol)


@needs_torch
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("full_matrices", [False, True])
def test_complex_svd_values_and_gradients_equal_pytorchs(shape, full_matrices):
    data = complex_values(shape, 6)
    w = complex_values((min(shape[-2:]),), 7)
    ours = ag.tensor(data, requires_grad=True)
    theirs = torch.tensor(data, requires_grad=True)
    U, S, Vh = ag.linalg.svd(ours, full_matrices=full_matrices)
    Ut, St, Vht = torch.linalg.svd(theirs, full_matrices=full_matrices)
    assert U.dtype is ag.complex128 and S.dtype is ag.float64 and Vh.dtype is ag.complex128
    assert U.shape == tuple(Ut.shape) and Vh.shape == tuple(Vht.shape)
    np.testing.assert_allclose(as_numpy(S), as_numpy(St), rtol=1e-10)
    k = S.shape[-1]  # the factors agree up to each singular pair's phase: compare products
    rebuilt = as_numpy(U[..., :k] * S.unsqueeze(-2).to(U.dtype) @ Vh[..., :k, :])
    np.testing.assert_allclose(rebuilt, data, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.abs(as_numpy(U)[..., :k]), np.abs(as_numpy(Ut)[..., :k]),
                               rtol=1e-9, atol=1e-12)
    (g,) = ag.autograd.grad(_svd_invariant(ag, U, S, Vh, ag.tensor(w)), ours)
    (gt,) = torch.autograd.grad(_svd_invariant(torch, Ut, St, Vht, torch.tensor(w)), theirs)
    np.testing.assert_allclose(as_numpy(g), as_numpy(gt), rtol=1e-8, atol=1e-10)


def test_a_phase_dependent_loss_of_singular_vectors_is_refused_as_pytorch():
    A = ag.tensor(complex_values((3, 3), 8), requires_grad=True)
    U, S, Vh = ag.linalg.svd(A)
    with pytest.raises(RuntimeError, match="svd_backward: The singular vectors in the complex "
                       "case are specified up to multiplication by e\\^{i phi}"):
        U.real.sum().backward()
    assert A.grad is None


def test_det_gradient_at_a_singular_complex_matrix_matches_finite_differences():
    # (PyTorch's own answers zeros there: its LU-based formula scales by det(A) = 0)
    data = complex_values((3, 3), 10)
    data[1] = 0  # exactly singular: the inverse fails and the SVD's formula answers
    with pytest.raises(ag.linalg.LinAlgError):
        ag.linalg.inv(ag.tensor(data))
    assert gradcheck(ag.linalg.det, (ag.tensor(data, requires_grad=True),))
