"""``torch.linalg``'s factor formats, ``info`` reports, legacy and removed names, keyword
spellings and the real-valued ``torch.fft`` functions, against PyTorch where installed and
against their definitions otherwise."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.linalg import LinAlgError

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

LA = ag.linalg


def _randn(*shape: int, seed: int = 0) -> ag.Tensor:
    return ag.randn(*shape, dtype=ag.float64, generator=ag.Generator().manual_seed(seed))


def _t(x: ag.Tensor) -> "torch.Tensor":
    return torch.tensor(x.detach().numpy())


def _close(a: ag.Tensor, b: "torch.Tensor", tol: float = 1e-10) -> None:
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


# -- LU ----------------------------------------------------------------------------------------

def test_lu_reconstructs_with_unit_lower_and_upper_factors() -> None:
    for shape in [(5, 5), (2, 4, 6), (6, 3), (0, 0), (1, 1)]:
        A = _randn(*shape)
        P, L, U = LA.lu(A)
        assert float((P @ L @ U - A).abs().max()) < 1e-12 if A.numel() else True
        k = min(shape[-2:])
        assert tuple(L.shape[-2:]) == (shape[-2], k) and tuple(U.shape[-2:]) == (k, shape[-1])
        assert bool((L.triu(1) == 0).all()) and bool((U.tril(-1) == 0).all())


@needs_torch
@pytest.mark.parametrize("shape", [(4, 4), (3, 5, 5), (6, 3), (3, 6), (2, 0, 0)])
def test_lu_factor_ex_is_lapacks(shape: tuple[int, ...]) -> None:
    A = _randn(*shape, seed=3)
    LU, piv, info = LA.lu_factor_ex(A)
    tLU, tpiv, tinfo = torch.linalg.lu_factor_ex(_t(A))
    _close(LU, tLU)
    assert piv.dtype == ag.int32 and piv.tolist() == tpiv.tolist()
    assert info.tolist() == tinfo.tolist()
    for ours, theirs in zip(ag.lu_unpack(LU, piv), torch.lu_unpack(tLU, tpiv)):
        _close(ours, theirs)


@needs_torch
def test_singular_lu_reports_the_first_zero_pivot_as_lapack() -> None:
    A = ag.tensor([[[1., 2., 3.], [2., 4., 6.], [1., 0., 1.]],
                   [[2., 0., 0.], [0., 3., 0.], [0., 0., 4.]]], dtype=ag.float64)
    LU, piv, info = LA.lu_factor_ex(A)
    tLU, tpiv, tinfo = torch.linalg.lu_factor_ex(_t(A))
    assert info.tolist() == tinfo.tolist() and info.tolist()[0] > 0
    assert piv.tolist() == tpiv.tolist()
    with pytest.raises(LinAlgError):
        LA.lu_factor(A)
    with pytest.raises(LinAlgError):
        LA.lu_factor_ex(A, check_errors=True)


def test_legacy_lu_names_warn_as_pytorch() -> None:
    A = _randn(3, 3) + 3 * ag.eye(3, dtype=ag.float64)
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        LU, piv = ag.lu(A)
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated"):
        ag.lu_solve(_randn(3, 1), LU, piv)


def test_lu_without_pivoting_is_refused_as_on_pytorchs_cpu() -> None:
    with pytest.raises(RuntimeError, match="without pivoting"):
        LA.lu(_randn(3, 3), pivot=False)


@needs_torch
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_legacy_lu_and_lu_solve() -> None:
    A, b = _randn(3, 3) + 3 * ag.eye(3, dtype=ag.float64), _randn(3, 2, seed=1)
    LU, piv, infos = ag.lu(A, get_infos=True)
    tLU, tpiv, tinfos = torch.lu(_t(A), get_infos=True)
    _close(LU, tLU)
    assert piv.tolist() == tpiv.tolist() and infos.tolist() == tinfos.tolist()
    _close(ag.lu_solve(b, LU, piv), torch.lu_solve(_t(b), tLU, tpiv))
    _close(b.lu_solve(LU, piv), torch.lu_solve(_t(b), tLU, tpiv))


# -- Householder ---------------------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 2)])
def test_geqrf_is_lapacks_compact_qr(shape: tuple[int, ...]) -> None:
    A = _randn(*shape, seed=2)
    a, tau = ag.geqrf(A)
    ta, ttau = torch.geqrf(_t(A))
    _close(a, ta)
    _close(tau, ttau)
    m, n = shape[-2:]
    if m >= n:  # the reflectors give Q back: Q R = A
        Q = LA.householder_product(a, tau)
        assert float((Q @ a[..., :n, :].triu() - A).abs().max()) < 1e-12


def test_geqrf_has_no_gradient_as_in_pytorch() -> None:
    a, tau = ag.geqrf(_randn(3, 3).requires_grad_())
    assert not a.requires_grad and not tau.requires_grad


# -- info reports --------------------------------------------------------------------------------

@needs_torch
def test_inv_ex_solve_ex_and_cholesky_ex_report_info_as_pytorch() -> None:
    good = _randn(3, 3) + 3 * ag.eye(3, dtype=ag.float64)
    singular = ag.tensor([[1., 2., 3.], [2., 4., 6.], [0., 0., 1.]], dtype=ag.float64)
    batch = ag.stack([good, singular])
    inverse, info = LA.inv_ex(batch)
    tinverse, tinfo = torch.linalg.inv_ex(_t(batch))
    assert info.tolist() == tinfo.tolist()
    _close(inverse[0], tinverse[0])
    assert bool(inverse[1].isnan().all())
    result, info = LA.solve_ex(batch, _randn(2, 3, 1))
    assert info.tolist() == torch.linalg.solve_ex(_t(batch), torch.zeros(2, 3, 1,
                                                  dtype=torch.float64)).info.tolist()
    spd = good @ good.mT
    not_pd = ag.tensor([[1., 0., 0.], [0., 1., 0.], [0., 0., -1.]], dtype=ag.float64)
    L, info = LA.cholesky_ex(ag.stack([spd, not_pd, spd]))
    tL, tinfo = torch.linalg.cholesky_ex(_t(ag.stack([spd, not_pd, spd])))
    assert info.tolist() == tinfo.tolist() == [0, 3, 0]
    _close(L[0], tL[0])
    for fn, args in ((LA.inv_ex, (batch,)), (LA.cholesky_ex, (not_pd,)),
                     (LA.solve_ex, (batch, _randn(2, 3, 1)))):
        with pytest.raises(LinAlgError):
            fn(*args, check_errors=True)


@needs_torch
def test_solve_triangular_with_a_zero_pivot_gives_infinities_as_pytorch() -> None:
    A = ag.tensor([[1., 0.], [2., 0.]], dtype=ag.float64)
    b = ag.tensor([[1.], [1.]], dtype=ag.float64)
    ours = LA.solve_triangular(A, b, upper=False)
    theirs = torch.linalg.solve_triangular(_t(A), _t(b), upper=False)
    assert ours.isfinite().tolist() == theirs.isfinite().tolist()


# -- removed and legacy names --------------------------------------------------------------------

@pytest.mark.parametrize("name", ["eig", "symeig", "solve", "lstsq", "matrix_rank"])
def test_functions_pytorch_removed_raise_its_runtime_error(name: str) -> None:
    with pytest.raises(RuntimeError, match="deprecated since version 1.9 and is now removed"):
        getattr(ag, name)(_randn(3, 3), _randn(3, 3))
    if name != "matrix_rank":
        with pytest.raises(RuntimeError, match="now removed"):
            getattr(_randn(3, 3), name)(_randn(3, 3))


@needs_torch
def test_chain_matmul_warns_and_multiplies() -> None:
    a, b, c = _randn(2, 3), _randn(3, 4, seed=1), _randn(4, 2, seed=2)
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        out = ag.chain_matmul(a, b, c)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _close(out, torch.chain_matmul(_t(a), _t(b), _t(c)))


def test_H_is_only_for_matrices() -> None:
    with pytest.raises(RuntimeError, match="only supported on matrices"):
        _randn(2, 3, 4).H
    assert _randn(2, 3).H.shape == (3, 2)


# -- keyword spellings PyTorch's parser accepts ----------------------------------------------------

@needs_torch
def test_keywords_pytorchs_argument_parser_accepts() -> None:
    A = _randn(3, 3) @ _randn(3, 3).mT + 3 * ag.eye(3, dtype=ag.float64)
    tA = _t(A)
    _close(LA.cholesky(input=A), torch.linalg.cholesky(input=tA))
    _close(LA.norm(input=A), torch.linalg.norm(input=tA))
    _close(LA.vector_norm(input=A), torch.linalg.vector_norm(input=tA))
    _close(LA.lstsq(A, b=A).solution, torch.linalg.lstsq(tA, b=tA).solution)
    assert LA.matrix_rank(A, tol=1e-3).item() == torch.linalg.matrix_rank(tA, tol=1e-3).item()
    _close(LA.pinv(A, rcond=1e-3), torch.linalg.pinv(tA, rcond=1e-3))
    _close(ag.det(input=A), torch.det(input=tA))
    _close(ag.inverse(input=A), torch.inverse(input=tA))
    v = _randn(3)
    _close(ag.dot(v, tensor=v), torch.dot(_t(v), tensor=_t(v)))
    with pytest.raises(RuntimeError, match="driver"):
        LA.svd(A, driver="gesvd")
    assert LA.svdvals(A, driver=None).shape == (3,)


def test_out_dtype_accumulates_half_products_in_float32() -> None:
    a = _randn(4, 5).half()
    b = _randn(5, 3, seed=1).half()
    out = ag.mm(a, b, out_dtype=ag.float32)
    assert out.dtype == ag.float32
    expected = a.float() @ b.float()
    assert float((out - expected).abs().max()) == 0.0
    assert ag.bmm(a[None], b[None], out_dtype=ag.float16).dtype == ag.float16
    with pytest.raises(RuntimeError, match="out_dtype"):
        ag.mm(a.double(), b.double(), out_dtype=ag.float32)


def test_linalg_functions_take_out() -> None:
    A = _randn(3, 3) + 3 * ag.eye(3, dtype=ag.float64)
    out = ag.empty(3, 3, dtype=ag.float64)
    assert LA.inv(A, out=out) is out
    assert float((out @ A - ag.eye(3, dtype=ag.float64)).abs().max()) < 1e-12


def test_an_absent_linalg_name_says_why() -> None:
    with pytest.raises(AttributeError, match="Bunch-Kaufman"):
        LA.ldl_factor
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        LA.nonsense


# -- iterative and randomised -------------------------------------------------------------------

def test_lobpcg_finds_the_extreme_eigenpairs() -> None:
    ag.manual_seed(0)
    X = _randn(20, 20)
    A = X @ X.mT + ag.eye(20, dtype=ag.float64)
    w = LA.eigvalsh(A)
    E, V = ag.lobpcg(A, k=3)
    np.testing.assert_allclose(E.numpy(), w.flip(0)[:3].numpy(), rtol=1e-6)
    assert float((A @ V - V * E).abs().max()) < 1e-4
    E, _ = ag.lobpcg(A, k=2, largest=False)
    np.testing.assert_allclose(E.numpy(), w[:2].numpy(), rtol=1e-6)
    B = ag.eye(20, dtype=ag.float64) * 2
    E, _ = ag.lobpcg(A, k=2, B=B)
    np.testing.assert_allclose(E.numpy(), (w.flip(0)[:2] / 2).numpy(), rtol=1e-6)


def test_lobpcg_eigenvalue_gradient_is_the_rayleigh_quotient_derivative() -> None:
    ag.manual_seed(1)
    X = _randn(12, 12)
    A = (X @ X.mT + ag.eye(12, dtype=ag.float64)).requires_grad_()
    E, V = ag.lobpcg(A, k=1)
    E.sum().backward()
    v = V[:, 0]
    np.testing.assert_allclose(A.grad.numpy(), ag.outer(v, v).numpy(), atol=1e-5)


def test_lobpcg_refuses_too_few_rows() -> None:
    with pytest.raises(ValueError, match="3 x the number"):
        ag.lobpcg(_randn(5, 5), k=2)


def test_svd_lowrank_and_pca_lowrank_recover_a_low_rank_matrix() -> None:
    ag.manual_seed(0)
    A = _randn(30, 3) @ _randn(3, 20, seed=1)
    U, S, V = ag.svd_lowrank(A, q=5)
    assert float((U @ ag.diag_embed(S) @ V.mT - A).abs().max()) < 1e-9
    np.testing.assert_allclose(S[:3].numpy(), LA.svdvals(A)[:3].numpy(), rtol=1e-9)
    U, S, V = ag.svd_lowrank(A.mT, q=4)
    assert float((U @ ag.diag_embed(S) @ V.mT - A.mT).abs().max()) < 1e-9
    C = A - A.mean(0, keepdim=True)
    U, S, V = ag.pca_lowrank(A, q=4)
    np.testing.assert_allclose(S[:3].numpy(), LA.svdvals(C)[:3].numpy(), rtol=1e-9)
    with pytest.raises(ValueError, match="q"):
        ag.svd_lowrank(A, q=50)


# -- torch.fft's real functions ------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("n", [1, 4, 7])
def test_fft_frequencies_and_shifts_are_pytorchs(n: int) -> None:
    _close(ag.fft.fftfreq(n, 0.3, dtype=ag.float64), torch.fft.fftfreq(n, 0.3, dtype=torch.float64))
    _close(ag.fft.rfftfreq(n, dtype=ag.float64), torch.fft.rfftfreq(n, dtype=torch.float64))
    x = _randn(3, n)
    _close(ag.fft.fftshift(x), torch.fft.fftshift(_t(x)))
    _close(ag.fft.ifftshift(x, dim=-1), torch.fft.ifftshift(_t(x), dim=-1))
    assert float((ag.fft.ifftshift(ag.fft.fftshift(x)) - x).abs().max()) == 0.0


def test_fftfreq_definition() -> None:
    assert ag.fft.fftfreq(4).tolist() == [0.0, 0.25, -0.5, -0.25]
    assert ag.fft.rfftfreq(5, d=2.0).tolist() == pytest.approx([0.0, 0.1, 0.2])
    assert ag.fft.fftfreq(3, requires_grad=True).requires_grad
    with pytest.raises(AttributeError, match="docstring fragments"):
        ag.fft.common_args
    assert math.isclose(ag.fft.fftfreq(5)[2].item(), 0.4, rel_tol=1e-6)
