"""Triangular systems: ``linalg.solve_triangular`` and what is built on it (``cholesky_solve``,
``cholesky_inverse``, the legacy ``triangular_solve``).

The forward solves through the backend's general ``xp.linalg.solve`` on the triangle that is
read (LAPACK does that in one vectorised call); a singular triangle, which PyTorch's
substitution turns into inf/nan without raising, falls back to a substitution loop written in
Array API calls, so the result is PyTorch's there too. Gradients are PyTorch's
(``linalg_solve_triangular_backward``): ``gB = A^-T g`` and ``gA = -(gB X^T)`` on the triangle.
"""

from __future__ import annotations

import warnings
from collections import namedtuple
from typing import TYPE_CHECKING, Any

from arraygrad.ops.arguments import renamed_keywords
from arraygrad.ops.broadcast import broadcast_shapes
from arraygrad.ops.families.linalg_ops import LinAlgError, _call, _floating, _matrices
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode

__all__ = ["solve_triangular", "cholesky_solve", "cholesky_inverse", "triangular_solve",
           "FUNCTIONS", "METHODS"]

TriangularSolveResult = namedtuple("TriangularSolveResult", ["solution", "cloned_coefficient"])


def triangle(A: Tensor, upper: bool, unitriangular: bool = False) -> Tensor:
    """The triangle of ``A`` that a triangular solve reads (a differentiable mask), with ones on
    the diagonal when ``unitriangular``."""
    strict = 1 if unitriangular else 0
    T = A.triu(strict) if upper else A.tril(-strict)
    if unitriangular:
        import arraygrad as ag

        T = T + ag.eye(A.shape[-1], dtype=A.dtype, device=A.device)
    return T


def _substitute(xp: Any, a: Any, b: Any, upper: bool) -> Any:
    """``a^-1 b`` for triangular ``a`` by substitution, one row at a time (no pivoting and no
    check: a zero on the diagonal gives inf/nan, as LAPACK's trtrs-free path in PyTorch)."""
    n = a.shape[-1]
    rows: list[Any] = [None] * n
    order = range(n - 1, -1, -1) if upper else range(n)
    for i in order:
        acc = b[..., i, :]
        for j in (range(i + 1, n) if upper else range(i)):
            acc = acc - a[..., i, j][..., None] * rows[j]
        rows[i] = acc / a[..., i, i][..., None]
    return xp.stack(rows, axis=-2)


def _solve_data(op: str, backend: Backend, a: Any, b: Any, upper: bool) -> Any:
    """``a^-1 b`` for the (already masked) triangular ``a``; batch dimensions broadcast."""
    xp = backend.xp
    shape = broadcast_shapes(op, tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    a = xp.broadcast_to(a, shape + tuple(a.shape[-2:]))
    b = xp.broadcast_to(b, shape + tuple(b.shape[-2:]))
    try:
        return _call(op, backend, "solve", a, b)
    except LinAlgError:  # a zero on the diagonal: PyTorch gives inf/nan, not an error
        with warnings.catch_warnings():  # nor a warning (a library's divide-by-zero one)
            warnings.simplefilter("ignore", RuntimeWarning)
            return _substitute(xp, a, b, upper)


def _solve_triangular_vjp(g: Tensor, n: RuleNode) -> tuple[Tensor | None, Tensor | None]:
    gB = solve_triangular(n.A.mT, g, upper=not n.upper, unitriangular=n.unitriangular)
    if not n.needs_input_grad[0]:
        return None, gB
    gA = -(gB @ n.result.mT)
    strict = 1 if n.unitriangular else 0
    return (gA.triu(strict) if n.upper else gA.tril(-strict)), gB


SOLVE_TRIANGULAR = defop("LinalgSolveTriangularBackward0", jvp=VIA_VJP, inputs=("A", "B"),
                         saves=("A", "result"), params=("upper", "unitriangular"),
                         vjp=_solve_triangular_vjp)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> Tensor:
    """``X`` with ``A X = B`` (``X A = B`` when ``left=False``) for triangular ``A``: only the
    upper (``upper=True``) or lower triangle of ``A`` is read, and its diagonal is taken as ones
    when ``unitriangular``. Batch dimensions broadcast."""
    op = "linalg.solve_triangular"
    backend = _floating(op, A, B)
    _matrices(op, A, square=True)
    _matrices(op, B, name="B")
    if A.dtype != B.dtype:
        raise RuntimeError(f"{op}: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype} and B of type {B.dtype} instead")
    if not left:
        return solve_triangular(A.mT, B.mT, upper=not upper, unitriangular=unitriangular).mT
    if A.shape[-1] != B.shape[-2]:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    a = triangle(A.detach(), upper, unitriangular)._data
    data = _solve_data(op, backend, a, B._data, upper)
    return SOLVE_TRIANGULAR.record(data, backend, (A, B), upper=upper, unitriangular=unitriangular)


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor:
    """``X`` with ``A X = B`` for ``A = L L^T`` (``U^T U`` when ``upper``), given the Cholesky
    factor ``L`` (PyTorch's ``torch.cholesky_solve(B, L)``)."""
    op = "cholesky_solve"
    _floating(op, B, L)
    _matrices(op, B, name="B")
    _matrices(op, L, square=True)
    if upper:
        Y = solve_triangular(L.mT, B, upper=False)
        return solve_triangular(L, Y, upper=True)
    Y = solve_triangular(L, B, upper=False)
    return solve_triangular(L.mT, Y, upper=True)


def cholesky_inverse(L: Tensor, upper: bool = False) -> Tensor:
    """``(L L^T)^-1`` (``(U^T U)^-1`` when ``upper``) from a Cholesky factor."""
    import arraygrad as ag

    op = "cholesky_inverse"
    _floating(op, L)
    _matrices(op, L, square=True)
    eye = ag.eye(L.shape[-1], dtype=L.dtype, device=L.device).expand(L.shape)
    return cholesky_solve(eye, L, upper=upper)


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False) -> Any:
    """PyTorch's legacy ``torch.triangular_solve``: ``(solution, cloned_coefficient)`` of
    ``A X = b`` (``A^T X = b`` when ``transpose``)."""
    coefficient = A.mT if transpose else A
    X = solve_triangular(coefficient, b, upper=upper != transpose, unitriangular=unitriangular)
    return TriangularSolveResult(X, A.clone())


FUNCTIONS = {
    "cholesky_solve": renamed_keywords(cholesky_solve, input="B", input2="L"),
    "cholesky_inverse": renamed_keywords(cholesky_inverse, input="L"),
    "triangular_solve": renamed_keywords(triangular_solve, input="b"),
}
"""``arraygrad.<name>`` (``torch.cholesky_solve``, ...)."""

METHODS = dict(FUNCTIONS)
"""``Tensor.<name>``: the same functions, ``self`` first."""
