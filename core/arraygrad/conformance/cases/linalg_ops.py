"""``arraygrad.linalg`` (``torch.linalg``): decompositions, solvers, norms and products.

Inputs are made well-conditioned inside each case (``A + 3I``, ``X X^T + nI``, ``X + X^T``)
and eigen/singular vectors are compared through sign-invariant products, so every backend
and dtype agrees with the float64 reference.
"""

from __future__ import annotations

import math
from typing import Any

import arraygrad as ag
from arraygrad.conformance.cases._make import case

LA = ag.linalg


def _eye(x: Any) -> Any:
    return ag.eye(x.shape[-1], dtype=x.dtype, device=x.device)


def _wc(x: Any) -> Any:
    return x + 3 * _eye(x)


def _spd(x: Any) -> Any:
    return x @ x.mT + x.shape[-1] * _eye(x)


def _signfree(v: Any) -> Any:
    return v * v[..., :1, :]


def _svd(a: Any) -> Any:
    u, s, vh = LA.svd(a, full_matrices=False)
    return _signfree(u), s, _signfree(vh.mT)


def _eigh(a: Any) -> Any:
    w, v = LA.eigh(a + a.mT)
    return w, _signfree(v)


CASES = (
    case("linalg.inv", "batched", lambda a: LA.inv(_wc(a)), [(2, 3, 3)]),
    case("linalg.det", "batched", lambda a: LA.det(_wc(a)), [(2, 3, 3)]),
    case("linalg.slogdet", "batched", lambda a: LA.slogdet(_wc(a)).logabsdet, [(2, 3, 3)]),
    case("logdet", "spd", lambda a: ag.logdet(_spd(a)), [(3, 3)]),
    case("linalg.solve", "broadcast", lambda a, b: LA.solve(_wc(a), b), [(3, 3), (2, 3, 2)]),
    case("linalg.solve", "vector", lambda a, b: LA.solve(_wc(a), b), [(2, 3, 3), (2, 3)]),
    case("linalg.cholesky", "batched", lambda a: LA.cholesky(_spd(a)), [(2, 3, 3)]),
    case("linalg.qr", "tall", lambda a: tuple(LA.qr(a)), [(2, 4, 3)]),
    case("linalg.qr", "wide", lambda a: tuple(LA.qr(a)), [(3, 4)]),
    case("linalg.eigh", "batched", _eigh, [(2, 3, 3)]),
    case("linalg.eigvalsh", "basic", lambda a: LA.eigvalsh(a + a.mT), [(3, 3)]),
    case("linalg.svd", "tall", _svd, [(2, 4, 3)]),
    case("linalg.svd", "wide", _svd, [(3, 4)]),
    case("linalg.svdvals", "basic", LA.svdvals, [(2, 4, 3)]),
    case("linalg.pinv", "tall", LA.pinv, [(4, 3)]),
    case("linalg.pinv", "wide", LA.pinv, [(2, 3, 4)]),
    case("linalg.lstsq", "basic", lambda a, b: LA.lstsq(a, b).solution, [(4, 3), (4, 2)]),
    case("linalg.vector_norm", "2", LA.vector_norm, [(2, 3)], "away"),
    case("linalg.vector_norm", "3-dim", lambda a: LA.vector_norm(a, 3, dim=-1), [(2, 3)],
         "away"),
    case("linalg.vector_norm", "inf", lambda a: LA.vector_norm(a, math.inf, dim=0), [(2, 3)],
         "grid"),
    case("linalg.matrix_norm", "fro", LA.matrix_norm, [(2, 3, 4)]),
    case("linalg.matrix_norm", "nuc", lambda a: LA.matrix_norm(a, "nuc"), [(3, 4)]),
    case("linalg.matrix_norm", "2", lambda a: LA.matrix_norm(a, 2), [(3, 4)]),
    case("linalg.matrix_norm", "1", lambda a: LA.matrix_norm(a, 1), [(3, 4)], "grid"),
    case("linalg.norm", "vector", LA.norm, [(2, 3)], "away"),
    case("linalg.cross", "broadcast", LA.cross, [(2, 3), (1, 3)]),
    case("linalg.vecdot", "basic", LA.vecdot, [(2, 4), (4,)]),
    case("linalg.multi_dot", "vec-mat-mat", lambda a, b, c: LA.multi_dot([a, b, c]),
         [(3,), (3, 4), (4, 2)]),
    case("linalg.matrix_power", "3", lambda a: LA.matrix_power(a, 3), [(2, 3, 3)]),
    case("linalg.matrix_power", "-2", lambda a: LA.matrix_power(_wc(a), -2), [(3, 3)]),
    case("linalg.matrix_exp", "basic", LA.matrix_exp, [(2, 3, 3)]),
    case("linalg.solve_triangular", "lower", lambda a, b: LA.solve_triangular(
        _wc(a).tril(), b, upper=False), [(2, 3, 3), (2, 3, 2)]),
    case("linalg.solve_triangular", "upper-right-unit", lambda a, b: LA.solve_triangular(
        a, b, upper=True, left=False, unitriangular=True), [(3, 3), (2, 3)]),
    case("linalg.lu", "square", lambda a: tuple(LA.lu(_wc(a))[1:]), [(2, 3, 3)]),
    case("linalg.lu", "wide", lambda a: tuple(LA.lu(a)[1:]), [(2, 4)]),
    case("linalg.lu", "tall", lambda a: tuple(LA.lu(a)[1:]), [(4, 2)]),
    case("linalg.lu_factor", "square", lambda a: LA.lu_factor(_wc(a)).LU, [(3, 3)]),
    case("linalg.lu_solve", "basic", lambda a, b: LA.lu_solve(*LA.lu_factor(_wc(a)), b),
         [(3, 3), (3, 2)]),
    case("linalg.householder_product", "tall", LA.householder_product, [(4, 3), (2,)]),
)
