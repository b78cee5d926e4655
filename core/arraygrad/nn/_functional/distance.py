"""Distances and similarities: ``cosine_similarity``, ``normalize``, ``pairwise_distance``,
``cdist`` and ``pdist`` (PyTorch's formulas, eps placement and gradients at zero distance)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.ops.arguments import tensor_arg
from arraygrad.amp import state as _amp
from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import is_grad_enabled
from arraygrad.ops import elementwise as ew, shape as _shape
from arraygrad.ops.casting import in_opmath
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.ops.rule import RuleNode

# ``cdist`` is torch-level only in PyTorch (``arraygrad.cdist``), not in ``nn.functional``
__all__ = ["cosine_similarity", "normalize", "pairwise_distance", "pdist"]


def _value_clamped_min(norm: Tensor, eps: float) -> Tensor:
    """``norm`` with its values raised to ``eps`` but its gradient left as the norm's: PyTorch
    clamps the norms of ``cosine_similarity`` in place under ``no_grad``."""
    return norm + (ew.clamp(norm, min=eps) - norm).detach()


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1 / max(|x1|, eps) * x2 / max(|x2|, eps), dim)`` over the broadcast shape.

    Each input is divided by its own (clamped) norm first, as PyTorch does, which keeps the
    result in [-1, 1]; integer inputs are promoted to the other's floating dtype.
    """
    tensor_arg("cosine_similarity", x1, "x1"), tensor_arg("cosine_similarity", x2, "x2", 2)
    if _amp.on:  # autocast (arraygrad.amp.state)
        x1, x2 = _amp.cast("cosine_similarity", x1, x2)
    from arraygrad.linalg import vector_norm

    common = _dt.promote_types(x1.dtype, x2.dtype)
    if not common.is_floating_point:
        raise RuntimeError(
            f"expected common dtype to be floating point, yet common dtype is {common}")
    if x1.dtype != common:
        x1 = x1.to(common)
    if x2.dtype != common:
        x2 = x2.to(common)
    shape = ew.broadcast_shapes("cosine_similarity", tuple(x1.shape), tuple(x2.shape))
    if not shape:  # 0-d inputs: PyTorch reduces them as one-element vectors (dim -1 or 0)
        if dim not in (-1, 0):
            raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], "
                             f"but got {dim})")
        shape, dim = (1,), 0
    x1, x2 = _shape.broadcast_to(x1, shape), _shape.broadcast_to(x2, shape)
    n1 = _value_clamped_min(vector_norm(x1, 2, dim=dim, keepdim=True), eps)
    n2 = _value_clamped_min(vector_norm(x2, 2, dim=dim, keepdim=True), eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim`` (``out=``: written into ``out``)."""
    check_kernel_dtype("normalize", input)
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, = _amp.cast("normalize", input)
    denom = ew.clamp(input.norm(p, dim, keepdim=True), min=eps).expand_as(input)
    if out is None:
        return input / denom
    if is_grad_enabled() and (input.requires_grad or out.requires_grad):
        raise RuntimeError("div(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    return out.copy_(input / denom)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last dimension of the broadcast inputs (PyTorch adds
    ``eps`` to the difference, so equal rows still have a gradient)."""
    tensor_arg("pairwise_distance", x1, "x1"), tensor_arg("pairwise_distance", x2, "x2", 2)
    last = max(x1.ndim, x2.ndim) - 1
    return ((x1 - x2) + eps).norm(p, last, keepdim=keepdim)


_MODES = {"use_mm_for_euclid_dist_if_necessary": 0, "use_mm_for_euclid_dist": 1,
          "donot_use_mm_for_euclid_dist": 2}


def _cdist_vjp(g: Tensor, n: RuleNode) -> tuple[Tensor, Tensor]:
    """PyTorch's ``_cdist_backward`` for both inputs, in Tensor ops: each pair's term is
    ``g * d|x1_i - x2_j|_p / dx1_i``, zero where the distance is zero."""
    p = n.p
    diff = n.x1.unsqueeze(-2) - n.x2.unsqueeze(-3)  # (..., P, R, M)
    dist = n.result.unsqueeze(-1)
    g = g.unsqueeze(-1)
    zero = ew.full_like_scalar(diff, 0.0)  # a 0-d fill for ``where``
    if p == 0:
        term = diff.new_zeros(tuple(diff.shape))
    elif p == 1:
        term = g * ew.sign(diff)
    elif p == math.inf:
        term = g * ew.sign(diff) * (ew.abs(diff) == dist).to(diff.dtype)
    else:
        nonzero = dist != 0
        safe = ew.where(nonzero, dist, ew.full_like_scalar(dist, 1.0))
        if p == 2:
            term = g * diff / safe
        else:  # sign(d) |d|^(p-1) / dist^(p-1), zero where d == 0 (no 0 * inf for p < 2)
            nonzero = nonzero & (diff != 0)
            a = ew.where(diff != 0, ew.abs(diff), ew.full_like_scalar(diff, 1.0))
            term = g * ew.sign(diff) * a ** (p - 1) / safe ** (p - 1)
        term = ew.where(nonzero, term, zero)
    return term.sum(-2), -term.sum(-3)


CDIST = defop("CdistBackward0", jvp=VIA_VJP, inputs=("x1", "x2"), saves=("x1", "x2", "result"),
              params=("p",), vjp=_cdist_vjp)


def _cdist_direct(x1: Tensor, x2: Tensor, p: float) -> Tensor:
    """Every pair's p-norm from the explicit differences, one ``CdistBackward0`` node."""
    backend = same_backend("cdist", x1, x2)  # inside vmap: the batched one's
    xp = backend.xp

    def formula(a: Any, b: Any) -> Any:  # (float16/bfloat16 in float32: in_opmath)
        diff = xp.abs(xp.expand_dims(a, axis=-2) - xp.expand_dims(b, axis=-3))
        if p == 0:
            return xp.sum(xp.astype(diff != 0, a.dtype), axis=-1)
        if p == 1:
            return xp.sum(diff, axis=-1)
        if p == 2:
            return xp.sqrt(xp.sum(diff * diff, axis=-1))
        if p == math.inf:
            return (xp.max(diff, axis=-1) if diff.shape[-1]
                    else xp.zeros(diff.shape[:-1], dtype=a.dtype))
        return xp.sum(diff ** p, axis=-1) ** (1.0 / p)

    return CDIST.record(in_opmath(backend, formula, x1._data, x2._data), backend, (x1, x2), p=p)


def _cdist_mm(x1: Tensor, x2: Tensor) -> Tensor:
    """PyTorch's matrix-product Euclidean distance ``sqrt(|a|^2 - 2 a.b + |b|^2)`` (its
    ``_euclidean_dist``, differentiable through its ops), clamped at 0; the gradient of an
    exact zero distance is zero."""
    from arraygrad.ops.linalg import matmul

    n1 = (x1 * x1).sum(-1, keepdim=True)
    n2 = (x2 * x2).sum(-1, keepdim=True)
    a = _shape.cat([x1 * -2, n1, n1.new_ones(tuple(n1.shape))], -1)
    b = _shape.cat([x2, n2.new_ones(tuple(n2.shape)), n2], -1)
    sq = matmul(a, b.transpose(-1, -2))
    pos = sq > 0
    return ew.where(pos, ew.sqrt(ew.where(pos, sq, ew.full_like_scalar(sq, 1.0))),
                    ew.full_like_scalar(sq, 0.0))


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The p-norm distance between each row of ``x1`` (..., P, M) and of ``x2`` (..., R, M):
    (..., P, R), batch dimensions broadcast.

    ``p=2`` uses a matrix product when ``compute_mode`` asks (always, or by default when P or
    R exceeds 25), as PyTorch does.
    """
    same_backend("cdist", x1, x2)
    if x1.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if compute_mode not in _MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.is_floating_point():
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {t.dtype}")
    if x1.dtype != x2.dtype:
        raise RuntimeError(f"cdist: expected X1 and X2 of the same dtype, but got {x1.dtype} "
                           f"and {x2.dtype}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    batch = ew.broadcast_shapes("cdist", tuple(x1.shape[:-2]), tuple(x2.shape[:-2]))
    x1 = _shape.broadcast_to(x1, (*batch, *x1.shape[-2:]))
    x2 = _shape.broadcast_to(x2, (*batch, *x2.shape[-2:]))
    mode = _MODES[compute_mode]
    r1, r2 = x1.shape[-2], x2.shape[-2]
    if (p == 2 and x1.numel() and x2.numel()
            and (mode == 1 or (mode == 0 and (r1 > 25 or r2 > 25)))):
        return _cdist_mm(x1, x2)
    return _cdist_direct(x1, x2, float(p))


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """The p-norm distance between each pair of rows ``i < j`` of ``input`` ``(N, M)``, in
    row-major order of the pairs: ``N * (N - 1) / 2`` values (``cdist``'s upper triangle,
    its gradient zero where a distance is zero)."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    pairs = [i * n + j for i in range(n) for j in range(i + 1, n)]
    if not pairs:
        return input.new_zeros((0,))
    from arraygrad.creation import tensor

    index = tensor(pairs, dtype=_dt.int64, device=input.device)
    return _cdist_direct(input, input, float(p)).reshape(-1).index_select(0, index)
