"""The LU, triangular and Householder families and the rest of ``torch.linalg``: values and
gradients against PyTorch, finite differences and double backward in float64.

Inputs are made well-conditioned inside each case (``A + 3I``, ``X X^T + nI``), so the
comparisons are exact to rounding on every input the random draw makes.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

from linalg_harness import check_against_torch, check_gradients
from torch_compare import needs_torch


def _wc(lib: Any, x: Any) -> Any:
    return x + 3 * lib.eye(x.shape[-1], dtype=x.dtype)


def _spd(lib: Any, x: Any) -> Any:
    return x @ x.mT + x.shape[-1] * lib.eye(x.shape[-1], dtype=x.dtype)


def _lower(lib: Any, x: Any) -> Any:
    return _wc(lib, x).tril()


def _lu_parts(la: Any, a: Any) -> Any:
    P, L, U = la.lu(a)
    return L * 1.0, U * 1.0


def _householder(lib: Any, la: Any, a: Any, t: Any) -> Any:
    return la.householder_product(a, t)


# name -> (function of (lib, linalg namespace, *tensors), input shapes)
CASES: dict[str, tuple[Callable[..., Any], list[tuple[int, ...]]]] = {
    "lu_square": (lambda lib, la, a: _lu_parts(la, a), [(2, 4, 4)]),
    "lu_wide": (lambda lib, la, a: _lu_parts(la, a), [(3, 5)]),
    "lu_tall": (lambda lib, la, a: _lu_parts(la, a), [(5, 3)]),
    "lu_factor": (lambda lib, la, a: la.lu_factor(_wc(lib, a)).LU, [(2, 3, 3)]),
    "lu_factor_ex_wide": (lambda lib, la, a: la.lu_factor_ex(a).LU, [(3, 4)]),
    "lu_solve": (lambda lib, la, a, b: la.lu_solve(*la.lu_factor(_wc(lib, a)), b),
                 [(2, 3, 3), (2, 3, 2)]),
    "lu_solve_adjoint": (lambda lib, la, a, b: la.lu_solve(*la.lu_factor(_wc(lib, a)), b,
                                                           adjoint=True), [(3, 3), (3, 2)]),
    "lu_solve_right": (lambda lib, la, a, b: la.lu_solve(*la.lu_factor(_wc(lib, a)), b,
                                                         left=False), [(3, 3), (2, 3)]),
    "lu_solve_right_adjoint": (lambda lib, la, a, b: la.lu_solve(
        *la.lu_factor(_wc(lib, a)), b, left=False, adjoint=True), [(3, 3), (2, 3)]),
    "lu_unpack": (lambda lib, la, a: lib.lu_unpack(*la.lu_factor(_wc(lib, a)))[1:],
                  [(3, 3)]),
    "legacy_lu_solve": (lambda lib, la, a, b: lib.lu_solve(b, *lib.linalg.lu_factor(
        _wc(lib, a))), [(3, 3), (3, 1)]),
    "solve_triangular_lower": (lambda lib, la, a, b: la.solve_triangular(
        _lower(lib, a), b, upper=False), [(2, 3, 3), (2, 3, 2)]),
    "solve_triangular_upper_right": (lambda lib, la, a, b: la.solve_triangular(
        _wc(lib, a), b, upper=True, left=False), [(3, 3), (2, 3)]),
    "solve_triangular_unit": (lambda lib, la, a, b: la.solve_triangular(
        a, b, upper=False, unitriangular=True), [(3, 3), (3, 2)]),
    "solve_triangular_broadcast": (lambda lib, la, a, b: la.solve_triangular(
        _wc(lib, a), b, upper=True), [(3, 3), (2, 3, 1)]),
    "cholesky_solve": (lambda lib, la, a, b: lib.cholesky_solve(
        b, la.cholesky(_spd(lib, a))), [(3, 3), (3, 2)]),
    "cholesky_solve_upper": (lambda lib, la, a, b: lib.cholesky_solve(
        b, la.cholesky(_spd(lib, a), upper=True), upper=True), [(2, 3, 3), (2, 3, 2)]),
    "cholesky_inverse": (lambda lib, la, a: lib.cholesky_inverse(la.cholesky(_spd(lib, a))),
                         [(3, 3)]),
    "triangular_solve": (lambda lib, la, a, b: lib.triangular_solve(b, _wc(lib, a))[0],
                         [(3, 3), (3, 2)]),
    "triangular_solve_transpose": (lambda lib, la, a, b: lib.triangular_solve(
        b, _wc(lib, a), upper=False, transpose=True)[0], [(3, 3), (3, 2)]),
    "householder_product": (lambda lib, la, a, t: la.householder_product(a, t),
                            [(4, 3), (2,)]),
    "orgqr": (lambda lib, la, a, t: lib.orgqr(a, t), [(2, 3, 3), (2, 3)]),
    "ormqr": (lambda lib, la, a, t, c: lib.ormqr(a, t, c), [(4, 3), (3,), (4, 2)]),
    "ormqr_transpose_right": (lambda lib, la, a, t, c: lib.ormqr(a, t, c, left=False,
                                                                  transpose=True),
                              [(3, 3), (3,), (2, 3)]),
    "cond": (lambda lib, la, a: la.cond(a), [(2, 3, 4)]),
    "cond_fro": (lambda lib, la, a: la.cond(_wc(lib, a), "fro"), [(3, 3)]),
    "cond_1": (lambda lib, la, a: la.cond(_wc(lib, a), 1), [(3, 3)]),
    "vander": (lambda lib, la, x: la.vander(x), [(2, 4)]),
    "vander_N": (lambda lib, la, x: la.vander(x, N=2), [(3,)]),
    "tensorinv": (lambda lib, la, a: la.tensorinv(_wc(lib, a.reshape(6, 6)).reshape(2, 3, 6),
                                                  ind=2), [(6, 6)]),
    "tensorsolve": (lambda lib, la, a, b: la.tensorsolve(
        _wc(lib, a.reshape(6, 6)).reshape(2, 3, 6), b), [(6, 6), (2, 3)]),
    "inv_ex": (lambda lib, la, a: la.inv_ex(_wc(lib, a)).inverse, [(2, 3, 3)]),
    "solve_ex": (lambda lib, la, a, b: la.solve_ex(_wc(lib, a), b).result, [(3, 3), (3, 2)]),
    "cholesky_ex": (lambda lib, la, a: la.cholesky_ex(_spd(lib, a)).L, [(2, 3, 3)]),
    "linalg_diagonal": (lambda lib, la, a: la.diagonal(a, offset=1), [(2, 3, 4)]),
    "linalg_matmul": (lambda lib, la, a, b: la.matmul(a, b), [(2, 3), (3, 4)]),
    "qr_legacy": (lambda lib, la, a: tuple(lib.qr(a)), [(4, 3)]),
    "qr_legacy_complete": (lambda lib, la, a: tuple(lib.qr(a, some=False)), [(3, 3)]),
    "ger": (lambda lib, la, a, b: lib.ger(a, b), [(3,), (2,)]),
    "adjoint": (lambda lib, la, a: lib.adjoint(a), [(2, 3, 4)]),
    "mH": (lambda lib, la, a: a.mH, [(2, 3, 4)]),
    "H": (lambda lib, la, a: a.H, [(3, 4)]),
    "nuclear_norm": (lambda lib, la, a: lib.nuclear_norm(a), [(3, 4)]),
    "frobenius_norm": (lambda lib, la, a: lib.frobenius_norm(a, dim=(0, 1)), [(3, 4)]),
}


# PyTorch 2.13's backward of these raises (its cond saves inv_ex's output, then writes it in
# place): the values are compared, and the gradients against finite differences only
TORCH_BACKWARD_FAILS = {"cond_fro", "cond_1"}


@pytest.mark.filterwarnings("ignore:torch.lu_solve is deprecated")
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name: str) -> None:
    check_gradients(*CASES[name])


@needs_torch
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str) -> None:
    check_against_torch(*CASES[name], backward=name not in TORCH_BACKWARD_FAILS,
                        allow_unused=True)
