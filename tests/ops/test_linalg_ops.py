"""``arraygrad.linalg``: values, gradients (finite differences, double backward) and PyTorch.

Each op is checked in float64 by ``gradcheck``/``gradgradcheck`` on well-conditioned
inputs (sign-invariant functions of eigen/singular vectors), and against PyTorch's
forward and gradient where PyTorch is installed.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import pytest

from linalg_harness import check_against_torch, check_gradients
from torch_compare import needs_torch

pytestmark = pytest.mark.filterwarnings("ignore:torch.cholesky is deprecated")


def _spd(lib: Any, x: Any) -> Any:
    """A symmetric positive-definite matrix from ``x`` (square)."""
    n = x.shape[-1]
    return x @ x.mT + n * lib.eye(n, dtype=x.dtype)


def _wc(lib: Any, x: Any) -> Any:
    """A well-conditioned square matrix from ``x``."""
    return x + 3 * lib.eye(x.shape[-1], dtype=x.dtype)


def _sym(lib: Any, x: Any) -> Any:
    return x + x.mT


def _signfree(v: Any) -> Any:
    """Columns of ``v`` times their first entry: invariant to each column's sign."""
    return v * v[..., :1, :]


# name -> (function of (lib, linalg namespace, *tensors), input shapes)
CASES: dict[str, tuple[Callable[..., Any], list[tuple[int, ...]]]] = {
    "inv": (lambda lib, la, a: la.inv(_wc(lib, a)), [(2, 3, 3)]),
    "inverse": (lambda lib, la, a: lib.inverse(_wc(lib, a)), [(3, 3)]),
    "det": (lambda lib, la, a: la.det(_wc(lib, a)), [(2, 3, 3)]),
    "det_top": (lambda lib, la, a: lib.det(a), [(3, 3)]),
    "slogdet": (lambda lib, la, a: la.slogdet(a)[1], [(2, 3, 3)]),
    "slogdet_sign": (lambda lib, la, a: la.slogdet(a)[0] * 1.0, [(2, 3, 3)]),
    "logdet": (lambda lib, la, a: lib.logdet(_spd(lib, a)), [(2, 3, 3)]),
    "solve": (lambda lib, la, a, b: la.solve(_wc(lib, a), b), [(2, 3, 3), (2, 3, 2)]),
    "solve_bcast": (lambda lib, la, a, b: la.solve(_wc(lib, a), b), [(3, 3), (2, 3, 2)]),
    "solve_vec": (lambda lib, la, a, b: la.solve(_wc(lib, a), b), [(3, 3), (3,)]),
    "solve_right": (lambda lib, la, a, b: la.solve(_wc(lib, a), b, left=False),
                    [(3, 3), (2, 3)]),
    "cholesky": (lambda lib, la, a: la.cholesky(_spd(lib, a)), [(2, 3, 3)]),
    "cholesky_upper": (lambda lib, la, a: la.cholesky(_spd(lib, a), upper=True), [(3, 3)]),
    "cholesky_top": (lambda lib, la, a: lib.cholesky(_spd(lib, a)), [(3, 3)]),
    "qr_tall": (lambda lib, la, a: _qr(la.qr(a)), [(2, 4, 3)]),
    "qr_square": (lambda lib, la, a: _qr(la.qr(a)), [(3, 3)]),
    "qr_wide": (lambda lib, la, a: _qr(la.qr(a)), [(3, 5)]),
    "eigh_vals": (lambda lib, la, a: la.eigh(_sym(lib, a))[0], [(2, 3, 3)]),
    "eigh_vecs": (lambda lib, la, a: _signfree(la.eigh(_sym(lib, a))[1]), [(2, 3, 3)]),
    "eigvalsh": (lambda lib, la, a: la.eigvalsh(_sym(lib, a)), [(2, 3, 3)]),
    "svd_tall": (lambda lib, la, a: _svd(la.svd(a, full_matrices=False)), [(2, 4, 3)]),
    "svd_wide": (lambda lib, la, a: _svd(la.svd(a, full_matrices=False)), [(3, 5)]),
    "svd_tall_full": (lambda lib, la, a: _svd(la.svd(a)), [(4, 3)]),
    "qr_complete_square": (lambda lib, la, a: _qr(la.qr(a, mode="complete")), [(3, 3)]),
    "svd_square_full": (lambda lib, la, a: _svd(la.svd(a)), [(3, 3)]),
    "svd_old": (lambda lib, la, a: _svd_old(lib.svd(a)), [(4, 3)]),
    "svdvals": (lambda lib, la, a: la.svdvals(a), [(2, 4, 3)]),
    "pinv_tall": (lambda lib, la, a: la.pinv(a), [(2, 4, 3)]),
    "pinv_wide": (lambda lib, la, a: la.pinv(a), [(3, 5)]),
    "pinverse": (lambda lib, la, a: lib.pinverse(a), [(3, 4)]),
    "lstsq": (lambda lib, la, a, b: la.lstsq(a, b).solution, [(5, 3), (5, 2)]),
    "vector_norm2": (lambda lib, la, a: la.vector_norm(a), [(2, 3, 4)]),
    "vector_norm1": (lambda lib, la, a: la.vector_norm(a, 1, dim=-1), [(3, 4)]),
    "vector_norm3": (lambda lib, la, a: la.vector_norm(a, 3, dim=(0, 2), keepdim=True),
                     [(2, 3, 4)]),
    "vector_norm1.5": (lambda lib, la, a: la.vector_norm(a, 1.5, dim=0), [(3, 4)]),
    "vector_norm0.5": (lambda lib, la, a: la.vector_norm(a, 0.5, dim=1), [(3, 4)]),
    "vector_norminf": (lambda lib, la, a: la.vector_norm(a, math.inf, dim=1), [(3, 4)]),
    "vector_norm-inf": (lambda lib, la, a: la.vector_norm(a, -math.inf, dim=1), [(3, 4)]),
    "matrix_norm_fro": (lambda lib, la, a: la.matrix_norm(a), [(2, 3, 4)]),
    "matrix_norm_nuc": (lambda lib, la, a: la.matrix_norm(a, "nuc"), [(2, 3, 4)]),
    "matrix_norm_2": (lambda lib, la, a: la.matrix_norm(a, 2), [(2, 3, 4)]),
    "matrix_norm_-2": (lambda lib, la, a: la.matrix_norm(a, -2, keepdim=True), [(3, 4)]),
    "matrix_norm_1": (lambda lib, la, a: la.matrix_norm(a, 1), [(2, 3, 4)]),
    "matrix_norm_-1": (lambda lib, la, a: la.matrix_norm(a, -1, dim=(0, 2)), [(3, 2, 4)]),
    "matrix_norm_inf": (lambda lib, la, a: la.matrix_norm(a, math.inf, keepdim=True),
                        [(2, 3, 4)]),
    "norm_vec": (lambda lib, la, a: la.norm(a), [(2, 3)]),
    "norm_mat": (lambda lib, la, a: la.norm(a, "nuc"), [(3, 4)]),
    "norm_dim": (lambda lib, la, a: la.norm(a, 3, dim=1), [(3, 4)]),
    "cross": (lambda lib, la, a, b: la.cross(a, b), [(2, 3), (2, 3)]),
    "cross_dim": (lambda lib, la, a, b: la.cross(a, b, dim=0), [(3, 2), (3, 1)]),
    "vecdot": (lambda lib, la, a, b: la.vecdot(a, b), [(2, 4), (4,)]),
    "multi_dot": (lambda lib, la, a, b, c: la.multi_dot([a, b, c]), [(3,), (3, 4), (4, 2)]),
    "matrix_power3": (lambda lib, la, a: la.matrix_power(a, 3), [(2, 3, 3)]),
    "matrix_power-2": (lambda lib, la, a: la.matrix_power(_wc(lib, a), -2), [(3, 3)]),
    "matrix_power0": (lambda lib, la, a: la.matrix_power(a, 0) + a, [(3, 3)]),
    "matrix_power_top": (lambda lib, la, a: lib.matrix_power(a, 5), [(3, 3)]),
    "matrix_exp": (lambda lib, la, a: la.matrix_exp(a), [(2, 3, 3)]),
    "matrix_exp_big": (lambda lib, la, a: la.matrix_exp(3 * a), [(3, 3)]),
    "matrix_exp_top": (lambda lib, la, a: lib.matrix_exp(a), [(3, 3)]),
}


def _qr(res: Any) -> Any:
    q, r = res
    return q * 1.0, r * 1.0


def _svd(res: Any) -> Any:
    u, s, vh = res
    k = s.shape[-1]
    return _signfree(u[..., :, :k]), s, _signfree(vh[..., :k, :].mT)


def _svd_old(res: Any) -> Any:
    u, s, v = res
    return _signfree(u), s, _signfree(v)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck(name: str) -> None:
    check_gradients(*CASES[name])


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name: str) -> None:
    # slogdet's sign is unused in torch: ours must be zero there
    check_against_torch(*CASES[name], unused_atol=1e-8)
