"""The LU decomposition with partial pivoting: ``linalg.lu_factor(_ex)``, ``linalg.lu``,
``linalg.lu_solve``, ``lu_unpack`` and PyTorch's legacy ``torch.lu``/``torch.lu_solve``.

The Array API's linalg extension has no LU, so the factorisation is LAPACK's ``getrf``
(right-looking, partial pivoting, first largest pivot) written with Array API calls only: no
array is written in place, so a backend with immutable arrays runs it too. Pivots are LAPACK's,
1-based int32 (row ``i`` was swapped with row ``pivots[i]``); a zero pivot sets ``info`` and
leaves its column, as ``getrf`` does. Gradients are PyTorch's ``linalg_lu_backward`` for square,
wide and tall matrices, written in Tensor ops (double backward works).
"""

from __future__ import annotations

import warnings
from collections import namedtuple
from typing import TYPE_CHECKING, Any

from arraygrad.ops.families.linalg_ops import LinAlgError, _PENDING, _floating, _matrices, \
    _save_outputs
from arraygrad.ops.families.linalg_triangular import solve_triangular
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.ops.value_checks import any_true
from arraygrad.tensor import Tensor, wrap

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode

__all__ = ["lu_factor", "lu_factor_ex", "lu", "lu_solve", "lu_unpack", "legacy_lu",
           "legacy_lu_solve", "factor_data", "FUNCTIONS", "METHODS"]

LUFactorResult = namedtuple("LUFactorResult", ["LU", "pivots"])
LUFactorExResult = namedtuple("LUFactorExResult", ["LU", "pivots", "info"])
LUResult = namedtuple("LUResult", ["P", "L", "U"])
LUUnpackResult = namedtuple("LUUnpackResult", ["P", "L", "U"])


def factor_data(xp: Any, a: Any) -> tuple[Any, Any, Any, Any]:
    """``(LU, pivots, info, perm)`` of native array ``a`` (``..., m, n``): ``getrf``'s packed
    factors, 1-based int32 pivots, int32 info (0, or the 1-based first zero pivot) and the row
    permutation ``perm`` with ``a[perm] = L U``."""
    m, n = a.shape[-2], a.shape[-1]
    k = min(m, n)
    batch = tuple(a.shape[:-2])
    rows = xp.reshape(xp.arange(m), (m, 1))
    cols = xp.reshape(xp.arange(n), (1, n))
    order = xp.broadcast_to(xp.arange(m), batch + (m,))
    info = xp.zeros(batch, dtype=xp.int32)
    pivots = []
    for j in range(k):
        column = xp.where(xp.reshape(xp.arange(m), (m,)) >= j, xp.abs(a[..., :, j]), -1.0)
        p = xp.argmax(column, axis=-1)  # first largest, as idamax
        pivots.append(p)
        # swap rows j and p (a gather, not a write)
        pe = p[..., None]
        swap = xp.where(xp.arange(m) == j, pe, xp.where(xp.arange(m) == pe, j, xp.arange(m)))
        a = xp.take_along_axis(a, swap[..., None], axis=-2)
        order = xp.take_along_axis(order, swap, axis=-1)
        pivot = a[..., j, j]
        zero = pivot == 0
        info = xp.where(zero & (info == 0), xp.asarray(j + 1, dtype=xp.int32), info)
        safe = xp.where(zero, xp.ones_like(pivot), pivot)
        below = rows > j
        lcol = xp.where(below[..., 0] & ~zero[..., None], a[..., :, j] / safe[..., None], 0.0)
        right = xp.where(cols[0, :] > j, a[..., j, :], 0.0)
        a = a - lcol[..., :, None] * right[..., None, :]
        a = xp.where(below & (cols == j), lcol[..., :, None], a)
    if pivots:
        piv = xp.astype(xp.stack(pivots, axis=-1) + 1, xp.int32)
    else:
        piv = xp.zeros(batch + (0,), dtype=xp.int32)
    return a, piv, info, order


def _unpack_data(LU: Tensor) -> tuple[Tensor, Tensor]:
    """``(L, U)`` from packed factors, as differentiable Tensor ops (masks)."""
    import arraygrad as ag

    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    L = LU[..., :, :k].tril(-1) + ag.eye(m, k, dtype=LU.dtype, device=LU.device)
    U = LU[..., :k, :].triu()
    return L, U


def _permutation(order: Tensor, dtype: Any) -> Tensor:
    """The matrix ``P`` with ``A = P L U`` from row order ``order`` (``A[order] = L U``)."""
    import arraygrad as ag

    m = order.shape[-1]
    return (order.unsqueeze(-2) == ag.arange(m, device=order.device).unsqueeze(-1)).to(dtype)


def _order_from_pivots(pivots: Tensor, m: int) -> Tensor:
    """Row order from LAPACK pivots: apply the swaps ``i <-> pivots[i] - 1`` in turn."""
    xp = pivots._backend.xp
    piv = pivots._data
    order = xp.broadcast_to(xp.arange(m), tuple(piv.shape[:-1]) + (m,))
    for j in range(piv.shape[-1]):
        p = xp.astype(piv[..., j:j + 1], xp.int64) - 1
        ar = xp.arange(m)
        swap = xp.where(ar == j, p, xp.where(ar == p, j, ar))
        order = xp.take_along_axis(order, swap, axis=-1)
    return wrap(order, pivots._backend)


def _lu_backward(gL: Tensor | None, gU: Tensor | None, P: Tensor, L: Tensor, U: Tensor) -> Tensor:
    """PyTorch's ``linalg_lu_backward``: the gradient of ``A = P L U`` from those of L and U."""
    m, n = L.shape[-2], U.shape[-1]
    k = min(m, n)
    gL = L * 0 if gL is None else gL
    gU = U * 0 if gU is None else gU
    if m == n:
        phi = (L.mT @ gL).tril(-1) + (gU @ U.mT).triu()
        gA = solve_triangular(L.mT, phi, upper=True, unitriangular=True)
        return P @ solve_triangular(U.mT, gA, upper=False, left=False)
    if m < n:  # A = P L [U1 | U2]
        U1, U2 = U[..., :, :k], U[..., :, k:]
        gU1, gU2 = gU[..., :, :k], gU[..., :, k:]
        phi = (L.mT @ gL - gU2 @ U2.mT).tril(-1) + (gU1 @ U1.mT).triu()
        gA1 = solve_triangular(U1.mT, phi, upper=False, left=False)
        import arraygrad as ag

        gA = solve_triangular(L.mT, ag.cat([gA1, gU2], dim=-1), upper=True, unitriangular=True)
        return P @ gA
    # m > n: A = P [L1; L2] U
    L1, L2 = L[..., :k, :], L[..., k:, :]
    gL1, gL2 = gL[..., :k, :], gL[..., k:, :]
    phi = (L1.mT @ gL1).tril(-1) + (gU @ U.mT - L2.mT @ gL2).triu()
    gA1 = solve_triangular(L1.mT, phi, upper=True, unitriangular=True)
    import arraygrad as ag

    gA = solve_triangular(U.mT, ag.cat([gA1, gL2], dim=-2), upper=False, left=False)
    return P @ gA


def _lu_vjp(g: Any, n: RuleNode) -> Tensor:
    _, gL, gU = g
    return _lu_backward(gL, gU, n.P, n.L, n.U)


LU_RULE = defop("LinalgLuBackward0", jvp=VIA_VJP, inputs=("A",), saves=("P", "L", "U"),
                vjp=(_lu_vjp,), outputs=3)


def _lu_factor_vjp(g: Any, n: RuleNode) -> Tensor:
    gLU = g[0]
    L, U = _unpack_data(n.LU)
    return _lu_backward(gLU.tril(-1)[..., :, :L.shape[-1]], gLU.triu()[..., :U.shape[-2], :],
                        n.P, L, U)


LU_FACTOR = defop("LinalgLuFactorExBackward0", jvp=VIA_VJP, inputs=("A",), saves=("LU", "P"),
                  vjp=(_lu_factor_vjp,), outputs=3)


def _factor(op: str, A: Tensor, pivot: bool) -> tuple[Backend, Any, Any, Any, Any]:
    backend = _floating(op, A)
    _matrices(op, A)
    if not pivot:
        raise RuntimeError(f"{op}: LU without pivoting is not implemented on the CPU")
    return (backend,) + factor_data(backend.xp, A.detach()._data)


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> Any:
    """``(LU, pivots, info)``: the packed LU factors of ``A`` with partial pivoting (LAPACK's
    format), and ``info`` > 0 where a matrix is singular (no error unless ``check_errors``)."""
    op = "linalg.lu_factor_ex"
    backend, lu_data, piv, info, order = _factor(op, A, pivot)
    xp = backend.xp
    if check_errors and any_true(backend, info != 0):
        raise LinAlgError(f"{op}: The factorization could not be completed because the input is "
                          "not invertible.")
    P = _permutation(wrap(order, backend), A.dtype)
    LU, pivots, infos = LU_FACTOR.record_many((lu_data, piv, info), backend, (A,), LU=_PENDING,
                                              P=P)
    _save_outputs(LU_FACTOR, (LU,), ("LU",))
    return LUFactorExResult(LU, pivots, infos)


def lu_factor(A: Tensor, *, pivot: bool = True) -> Any:
    """``(LU, pivots)``: the packed LU factors of ``A`` (LinAlgError where one is singular,
    as PyTorch, which reports it for square inputs)."""
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    if A.shape[-1] == A.shape[-2] and any_true(A._backend, info._data != 0):
        raise LinAlgError("linalg.lu_factor: The factorization could not be completed because "
                          "the input is not invertible.")
    return LUFactorResult(LU, pivots)


def lu(A: Tensor, *, pivot: bool = True) -> Any:
    """``(P, L, U)`` with ``A = P L U``: ``P`` a permutation, ``L`` unit lower (m x k), ``U``
    upper (k x n), ``k = min(m, n)``."""
    op = "linalg.lu"
    backend, lu_data, _, _, order = _factor(op, A, pivot)
    L, U = _unpack_data(wrap(lu_data, backend))
    P = _permutation(wrap(order, backend), A.dtype)
    # every output pending, in output order: forward mode pairs pending saves with outputs
    outs = LU_RULE.record_many((P._data, L._data, U._data), backend, (A,), P=_PENDING,
                               L=_PENDING, U=_PENDING)
    _save_outputs(LU_RULE, outs, ("P", "L", "U"))
    return LUResult(*outs)


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,
              unpack_pivots: bool = True) -> Any:
    """``(P, L, U)`` from packed factors and pivots (differentiable in ``LU_data``); an output
    not asked for is an empty tensor, as PyTorch's."""
    import arraygrad as ag

    op = "lu_unpack"
    _floating(op, LU_data)
    _matrices(op, LU_data)
    empty = ag.empty(0, dtype=LU_data.dtype, device=LU_data.device)
    L, U = _unpack_data(LU_data) if unpack_data else (empty, empty)
    P = (_permutation(_order_from_pivots(LU_pivots, LU_data.shape[-2]), LU_data.dtype)
         if unpack_pivots else empty)
    return LUUnpackResult(P, L, U)


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,
             adjoint: bool = False) -> Tensor:
    """``X`` with ``A X = B`` (``X A = B`` when ``left=False``; ``A^T`` when ``adjoint``) from
    ``A``'s packed LU factors; differentiable in ``LU`` and ``B``."""
    op = "linalg.lu_solve"
    _floating(op, LU, B)
    _matrices(op, LU, square=True, name="LU")
    _matrices(op, B, name="B")
    P, L, U = lu_unpack(LU, pivots)
    if left and not adjoint:  # A = P L U
        return solve_triangular(U, solve_triangular(L, P.mT @ B, upper=False, unitriangular=True),
                                upper=True)
    if left:  # A^T X = B: U^T L^T P^T X = B
        Y = solve_triangular(L.mT, solve_triangular(U.mT, B, upper=False), upper=True,
                             unitriangular=True)
        return P @ Y
    if not adjoint:  # X P L U = B
        Y = solve_triangular(L, solve_triangular(U, B, upper=True, left=False), upper=False,
                             left=False, unitriangular=True)
        return Y @ P.mT
    # X A^T = B: X U^T L^T P^T = B
    Y = solve_triangular(U.mT, solve_triangular(L.mT, B @ P, upper=True, left=False,
                                                unitriangular=True), upper=False, left=False)
    return Y


def legacy_lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> Any:
    """PyTorch's ``torch.lu`` / ``Tensor.lu``: ``(LU, pivots)``, and ``infos`` when asked."""
    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / "
                  "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.",
                  UserWarning, stacklevel=2)
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


def legacy_lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """PyTorch's ``torch.lu_solve(b, LU_data, LU_pivots)``."""
    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and will be "
                  "removed in a future PyTorch release. Note that torch.linalg.lu_solve has its "
                  "arguments reversed.", UserWarning, stacklevel=2)
    return lu_solve(LU_data, LU_pivots, b)


FUNCTIONS = {"lu": legacy_lu, "lu_solve": legacy_lu_solve, "lu_unpack": lu_unpack}
"""``arraygrad.<name>`` (PyTorch's legacy top-level LU functions)."""

METHODS = {"lu": legacy_lu, "lu_solve": legacy_lu_solve}
"""``Tensor.lu`` and ``Tensor.lu_solve``."""
