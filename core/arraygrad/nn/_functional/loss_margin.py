"""Margin, ranking and embedding losses of ``nn.functional``, written as PyTorch computes them
(ATen's compositions, or its kernels' formulas for the multi-class margin losses), so values
and gradients agree with PyTorch's, ties and boundaries included."""

from __future__ import annotations

import warnings
from typing import Any, Callable

from arraygrad.amp import state as _amp
from arraygrad import dtypes as _dt
from arraygrad.nn import _ops
from arraygrad.nn._functional.distance import pairwise_distance
from arraygrad.nn._functional.loss import _reduce, _reduction
from arraygrad.ops import elementwise as ew
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.value_checks import index_range
from arraygrad.tensor import Tensor

__all__ = ["cosine_embedding_loss", "margin_ranking_loss", "hinge_embedding_loss",
           "soft_margin_loss", "multilabel_soft_margin_loss", "multilabel_margin_loss",
           "multi_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss"]

_EPSILON = 1e-12  # ATen's cosine_embedding_loss adds it to each squared magnitude


def reduction_of(size_average: Any, reduce: Any, reduction: str) -> str:
    """The reduction a loss applies, checked before any work as PyTorch's ``get_enum`` does
    (ValueError for an unknown one; ``'elementwise_mean'`` is the deprecated ``'mean'``)."""
    reduction = _reduction(size_average, reduce, reduction)
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' "
                      "instead.", UserWarning, stacklevel=3)
        return "mean"
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def same_device(op: str, *tensors: Any) -> None:
    """PyTorch's RuntimeError naming both devices when the tensors among ``tensors`` (None and
    numbers skipped) live on different devices."""
    found = [t for t in tensors if isinstance(t, Tensor)]
    if len(found) > 1:
        same_backend(op, *found)


def _zeros_where(mask: Tensor, values: Tensor) -> Tensor:
    """``values`` where ``mask``, else 0 (``where``: no NaN leaks from the other side)."""
    return ew.where(mask, values, ew.full_like_scalar(values, 0.0))


def _check_long(target: Tensor, op: str) -> None:
    if not isinstance(target, Tensor) or target.dtype not in (_dt.int64, _dt.int32):
        found = target.dtype if isinstance(target, Tensor) else type(target).__name__
        raise RuntimeError(f"{op}: expected scalar type Long but found {found}")


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                          size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos(x1, x2) - margin)`` where
    ``target == -1`` (0 elsewhere); ``cos`` with ``1e-12`` added to each squared norm."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input1, input2 = _amp.cast("cosine_embedding_loss", input1, input2)
    reduction = reduction_of(size_average, reduce, reduction)
    same_device("cosine_embedding_loss", input1, input2, target)
    tdim = target.ndim
    if tdim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = 2 if tdim == 1 else 1
    if input1.ndim != want or input2.ndim != want:
        raise RuntimeError(
            f"{tdim}D target tensor expects {want}D input tensors, but found inputs with sizes "
            f"{list(input1.shape)} and {list(input2.shape)}.")
    dim = tdim  # the feature dimension: 1 for a batch, 0 for one pair
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + _EPSILON
    mag2 = (input2 * input2).sum(dim) + _EPSILON
    cos = prod / ew.sqrt(mag1 * mag2)
    loss = (_zeros_where(target == 1, 1 - cos)
            + _zeros_where(target == -1, ew.clamp(cos - margin, min=0)))
    return _reduce(loss, reduction)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input1, input2 = _amp.cast("margin_ranking_loss", input1, input2)
    reduction = reduction_of(size_average, reduce, reduction)
    same_device("margin_ranking_loss", input1, input2, target)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(
            f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _reduce(ew.clamp(-target * (input1 - input2) + margin, min=0), reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """``x`` where ``target == 1`` plus ``max(0, margin - x)`` where ``target == -1`` (other
    targets: both terms, as PyTorch's composition gives)."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, = _amp.cast("hinge_embedding_loss", input)
    reduction = reduction_of(size_average, reduce, reduction)
    same_device("hinge_embedding_loss", input, target)
    loss = (_zeros_where(target != 1, ew.clamp(margin - input, min=0))
            + _zeros_where(target != -1, input))
    return _reduce(loss, reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * input))`` (two-class logistic loss)."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, target = _amp.cast("soft_margin_loss", input, target)
    reduction = reduction_of(size_average, reduce, reduction)
    same_device("soft_margin_loss", input, target)
    return _reduce(ew.log1p(ew.exp(-input * target)), reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                size_average: Any = None, reduce: Any = None,
                                reduction: str = "mean") -> Tensor:
    """``-mean_c w_c (t_c log sigmoid(x_c) + (1 - t_c) log sigmoid(-x_c))`` per sample (the
    class dimension is the last)."""
    reduction = _reduction(size_average, reduce, reduction)
    same_device("multilabel_soft_margin_loss", input, target, weight)
    loss = -(target * _ops.log_sigmoid(input) + (1 - target) * _ops.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def _frames(input: Tensor, op: str) -> tuple[int, int]:
    """``(nframe, dim)`` of a margin loss's input: a vector, a matrix or a scalar."""
    nd = input.ndim
    if not ((nd == 2 and input.shape[1] != 0) or (nd == 1 and input.shape[0] != 0) or nd == 0):
        raise RuntimeError(f"{op}: Expected non-empty vector or matrix with optional 0-dim "
                           f"batch size, but got: {list(input.shape)}")
    return (1 if nd <= 1 else input.shape[0]), (1 if nd == 0 else input.shape[-1])


def _class_range(target: Tensor, low: int, high: int) -> bool:
    """Whether every entry of ``target`` lies in ``[low, high)``."""
    found = index_range(target._backend, target._data)
    return found is None or (found[0] >= low and found[1] < high)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0,
                      weight: Tensor | None = None, size_average: Any = None, reduce: Any = None,
                      reduction: str = "mean") -> Tensor:
    """``sum_{i != y} w_y max(0, margin - x_y + x_i)^p / C`` per sample (``p`` 1 or 2)."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, = _amp.cast("multi_margin_loss", input)
    reduction = reduction_of(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    same_device("multi_margin_loss", input, target, weight)
    nframe, dim = _frames(input, "multi_margin_loss")
    if target.ndim > 1 or target.numel() != nframe:
        raise RuntimeError(
            f"multi_margin_loss: target tensor should be 1-D with size equal to the number of "
            f"input samples (batch size). Expected target size [{nframe}], but got "
            f"{list(target.shape)}. Input has shape {list(input.shape)}.")
    _check_long(target, "multi_margin_loss")
    if weight is not None and weight.numel() != dim:
        raise RuntimeError(
            f"inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    if not _class_range(target, 0, dim):
        raise RuntimeError("multi_margin_loss: target out of range")
    x = input.reshape(nframe, dim)
    t = target.reshape(nframe, 1)
    z = margin - x.gather(1, t) + x  # (N, C); the kernel sums only z > 0: relu's gradient
    h = ew.relu(z)
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * weight[t.reshape(nframe)].reshape(nframe, 1)
    classes = target.new_tensor(list(range(dim))) if dim else t[:0]
    loss = _zeros_where(classes != t, h).sum(1) / dim
    if reduction == "none":
        return loss if target.ndim > 0 else loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average: Any = None,
                           reduce: Any = None, reduction: str = "mean") -> Tensor:
    """``sum_{j in targets} sum_{i not in targets} max(0, 1 - (x_j - x_i)) / C`` per sample;
    each row of ``target`` lists class indices up to the first ``-1``."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, = _amp.cast("multilabel_margin_loss", input)
    reduction = reduction_of(size_average, reduce, reduction)
    same_device("multilabel_margin_loss", input, target)
    nframe, dim = _frames(input, "multilabel_margin_loss")
    bad = (target.ndim > 1 or target.numel() != dim) if input.ndim <= 1 else (
        target.ndim != 2 or tuple(target.shape) != (nframe, dim))
    if bad:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    _check_long(target, "multilabel_margin_loss")
    if not _class_range(target, -1, dim):
        raise RuntimeError("multilabel_margin_loss: argument #2 'target' is out of range")
    x = input.reshape(nframe, dim)
    t = target.reshape(nframe, dim)
    # the listed targets: the positions before each row's first -1
    listed = (t == -1).to(_dt.int64).cumsum(1) == 0
    safe = ew.where(listed, t, ew.full_like_scalar(t, 0))
    classes = t.new_tensor(list(range(dim)))
    hits = (safe.unsqueeze(2) == classes) & listed.unsqueeze(2)  # (N, K, C)
    is_target = hits.any(1)  # (N, C)
    z = 1 - x.gather(1, safe).unsqueeze(2) + x.unsqueeze(1)  # (N, K, C)
    pairs = listed.unsqueeze(2) & ~is_target.unsqueeze(1)
    loss = _zeros_where(pairs, ew.relu(z)).sum((1, 2)) / dim
    if reduction == "none":
        return loss if target.ndim > 1 else loss.reshape(())
    return _reduce(loss, reduction)


def _check_triplet_dims(anchor: Tensor, positive: Tensor, negative: Tensor) -> None:
    same_device("triplet_margin_loss", anchor, positive, negative)
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == p == n):
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")


def _triplet(dist_pos: Tensor, dist_neg: Tensor, swap_dist: Callable[[], Tensor] | None,
             margin: float) -> Tensor:
    if swap_dist is not None:  # Balntas et al.: the closer of anchor and positive to negative
        dist_neg = ew.minimum(dist_neg, swap_dist())
    return ew.clamp(margin + dist_pos - dist_neg, min=0)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the ``pairwise_distance`` (``p``,
    ``eps``); ``swap`` uses ``min(d(a, n), d(p, n))``."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        anchor, positive, negative = _amp.cast("triplet_margin_loss", anchor, positive, negative)
    reduction = reduction_of(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    loss = _triplet(pairwise_distance(anchor, positive, p, eps),
                    pairwise_distance(anchor, negative, p, eps),
                    (lambda: pairwise_distance(positive, negative, p, eps)) if swap else None,
                    margin)
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(
        anchor: Tensor, positive: Tensor, negative: Tensor, *,
        distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
        margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> Tensor:
    """``triplet_margin_loss`` with any ``distance_function`` (default ``pairwise_distance``)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_triplet_dims(anchor, positive, negative)
    dist = distance_function if distance_function is not None else pairwise_distance
    loss = _triplet(dist(anchor, positive), dist(anchor, negative),
                    (lambda: dist(positive, negative)) if swap else None, margin)
    return _reduce(loss, reduction)
