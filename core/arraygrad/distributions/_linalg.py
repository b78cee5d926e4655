"""The batched linear algebra the multivariate distributions share: matrix-vector products,
triangular solves, Mahalanobis distances and Cholesky factors of precision matrices."""

from __future__ import annotations

import arraygrad as ag
from arraygrad.tensor import Tensor

__all__ = ["batch_mv", "solve_lower", "batch_mahalanobis", "cholesky_solve",
           "precision_to_scale_tril"]


def batch_mv(bmat: Tensor, bvec: Tensor) -> Tensor:
    """``bmat @ bvec`` for batches of matrices and vectors that broadcast."""
    return ag.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def solve_lower(tril: Tensor, rhs: Tensor) -> Tensor:
    """``tril^-1 @ rhs`` for lower triangular ``tril`` (batches broadcast), differentiable;
    only the lower triangle is read (its upper entries get no gradient, as PyTorch's
    ``solve_triangular``)."""
    tril = tril.tril()
    shape = ag.broadcast_shapes(tuple(tril.shape[:-2]), tuple(rhs.shape[:-2]))
    return ag.linalg.solve(tril.expand(*shape, *tril.shape[-2:]),
                           rhs.expand(*shape, *rhs.shape[-2:]))


def batch_mahalanobis(bL: Tensor, bx: Tensor) -> Tensor:
    """The squared Mahalanobis distance ``x^T (L L^T)^-1 x`` for lower triangular ``L`` of shape
    ``(..., n, n)`` and ``x`` of shape ``(..., n)``, whose batches broadcast."""
    return solve_lower(bL, bx.unsqueeze(-1)).squeeze(-1).pow(2).sum(-1)


def cholesky_solve(rhs: Tensor, tril: Tensor) -> Tensor:
    """``(L L^T)^-1 @ rhs`` for the Cholesky factor ``L = tril``."""
    half = solve_lower(tril, rhs)
    shape = ag.broadcast_shapes(tuple(tril.shape[:-2]), tuple(half.shape[:-2]))
    upper = tril.mT.expand(*shape, *tril.shape[-2:])
    return ag.linalg.solve(upper, half.expand(*shape, *half.shape[-2:]))


def precision_to_scale_tril(P: Tensor) -> Tensor:
    """The lower Cholesky factor of ``P^-1`` computed from ``P`` (through the Cholesky factor
    of the index-reversed ``P``, as PyTorch, so no explicit inverse of ``P`` is taken)."""
    Lf = ag.linalg.cholesky(ag.flip(P, (-2, -1)))
    L_inv = ag.transpose(ag.flip(Lf, (-2, -1)), -2, -1)
    eye = ag.eye(P.shape[-1], dtype=P.dtype, device=P.device)
    return solve_lower(L_inv, eye.expand(*L_inv.shape)) if L_inv.ndim > 2 else \
        solve_lower(L_inv, eye)
