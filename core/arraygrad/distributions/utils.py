"""Helpers the distributions share (``torch.distributions.utils``): broadcasting parameters,
probabilities <-> logits, lazily computed attributes, triangular matrices <-> vectors."""

from __future__ import annotations

import math
from functools import update_wrapper
from numbers import Number
from typing import Any, Callable, Generic, TypeVar, overload

import arraygrad as ag
from arraygrad.tensor import Size, Tensor

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs",
           "lazy_property", "tril_matrix_to_vec", "vec_to_tril_matrix", "euler_constant"]

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant

T = TypeVar("T")
R = TypeVar("R")


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """``values`` (tensors or numbers) broadcast to one shape: numbers become tensors of the
    tensors' dtype and device (the default dtype when all are numbers)."""
    if not all(isinstance(v, (Tensor, Number)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not any(isinstance(v, Tensor) for v in values):
        return tuple(ag.tensor(float(v), dtype=ag.get_default_dtype()) for v in values)
    like = next(v for v in values if isinstance(v, Tensor))
    dtype = like.dtype if like.dtype.is_floating_point else ag.get_default_dtype()
    tensors = [v if isinstance(v, Tensor) else ag.tensor(v, dtype=dtype, device=like.device)
               for v in values]
    return tuple(ag.broadcast_tensors(*tensors))


def _standard_normal(shape: Any, dtype: Any, device: Any) -> Tensor:
    return ag.randn(*shape, dtype=dtype, device=device) if len(shape) else \
        ag.randn((), dtype=dtype, device=device)


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """``value`` summed over its ``dim`` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(*value.shape[:value.ndim - dim], -1).sum(-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: ``sigmoid`` when ``is_binary``, else a softmax over the last
    dim."""
    if is_binary:
        return ag.sigmoid(logits)
    return ag.softmax(logits, dim=-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """``probs`` clamped to ``[eps, 1 - eps]`` of their dtype."""
    eps = ag.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from probabilities (``log p - log1p(-p)`` when ``is_binary``, else ``log p``),
    the probabilities clamped away from 0 and 1 first."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return ag.log(ps_clamped) - ag.log1p(-ps_clamped)
    return ag.log(ps_clamped)


class lazy_property(Generic[T, R]):
    """A property computed once per instance on first use (under grad mode, so parameters
    derived from others stay differentiable) and then stored on the instance."""

    def __init__(self, wrapped: Callable[[T], R]) -> None:
        self.wrapped = wrapped
        update_wrapper(self, wrapped)  # type: ignore[arg-type]

    @overload
    def __get__(self, instance: None, obj_type: Any = None) -> "_lazy_property_and_property[T, R]":
        ...

    @overload
    def __get__(self, instance: T, obj_type: Any = None) -> R:
        ...

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with ag.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property[T, R], property):
    """What ``lazy_property`` looks like on the class: also a ``property`` (documentation
    tools and ``isinstance(..., property)`` see one)."""

    def __init__(self, wrapped: Callable[[T], R]) -> None:
        property.__init__(self, wrapped)
        lazy_property.__init__(self, wrapped)


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle (below diagonal ``diag``) of the last two dims, row by row, as a
    vector."""
    n = mat.shape[-1]
    if not -n <= diag < n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    rows, cols = _tril_positions(n, diag)
    return mat[..., rows, cols]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The lower triangular matrix (below diagonal ``diag``) whose triangle is ``vec``, filled
    row by row (the inverse of ``tril_matrix_to_vec``)."""
    count = vec.shape[-1]
    # n^2 + (2 diag + 1) n - 2 count = 0 (with PyTorch's correction for diag), solved for n
    root = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * count
                               + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    n = round(root)
    rows, cols = _tril_positions(n, diag)
    if abs(n - root) > 1e-6 or len(rows) != count:
        raise ValueError(f"The size of last dimension is {count} which cannot be expressed as "
                         "the lower triangular part of a square D x D matrix.")
    index = ag.tensor([r * n + c for r, c in zip(rows, cols)], device=vec.device)
    flat = ag.zeros(*vec.shape[:-1], n * n, dtype=vec.dtype, device=vec.device)
    flat = flat.scatter(-1, index.expand(*vec.shape[:-1], count), vec)
    return flat.reshape(*vec.shape[:-1], n, n)


def _tril_positions(n: int, diag: int) -> tuple[list[int], list[int]]:
    rows, cols = [], []
    for r in range(n):
        for c in range(n):
            if c - r <= diag:
                rows.append(r)
                cols.append(c)
    return rows, cols


def _size(shape: Any) -> Size:
    """``shape`` as a ``Size`` (tuples and lists too)."""
    return shape if isinstance(shape, Size) else Size(tuple(int(s) for s in shape))
