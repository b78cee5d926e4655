"""The standard's statistical and utility reductions: ``axis``/``keepdims`` keywords, an
empty axis tuple meaning no reduction, ``std``/``var``'s ``correction=0`` default (PyTorch's
is 1), the standard's accumulation dtypes for ``sum``/``prod``/``cumulative_*`` (an unsigned
input keeps an unsigned type) and ``cumulative_sum(include_initial=)``."""

from __future__ import annotations

from typing import Any, Callable

import arraygrad as _ag
from arraygrad import dtypes as _dt
from arraygrad.array_api._axes import normalize_axes
from arraygrad.array_api._data_types import isdtype
from arraygrad.tensor import Tensor

__all__ = ["max", "min", "sum", "prod", "mean", "std", "var", "all", "any",
           "cumulative_sum", "cumulative_prod", "diff"]


def _accumulator(x: Tensor, dtype: _dt.dtype | None) -> _dt.dtype | None:
    # the standard: integers widen to the default integer's width, keeping their signedness
    if dtype is not None:
        return dtype
    if isdtype(x.dtype, "unsigned integer"):
        return _dt.uint64
    if isdtype(x.dtype, ("signed integer", "bool")):
        return _dt.int64
    return None


def _reduce(fn: Callable[..., Tensor], x: Tensor, axis: Any, keepdims: bool,
            **kwargs: Any) -> Tensor:
    axes = normalize_axes(axis, x.ndim)
    if not axes:  # the empty tuple (or a 0-d array): each element reduced on its own, which
        # is a reduction over a new axis of size one (the std of one element is 0...)
        return fn(_ag.unsqueeze(x, 0), dim=(0,), keepdim=False, **kwargs)
    return fn(x, dim=axes, keepdim=keepdims, **kwargs)


def max(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """The greatest value along ``axis``."""
    return _reduce(_ag.amax, x, axis, keepdims)


def min(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """The least value along ``axis``."""
    return _reduce(_ag.amin, x, axis, keepdims)


def sum(x: Tensor, /, *, axis: Any = None, dtype: _dt.dtype | None = None,  # noqa: A001
        keepdims: bool = False) -> Tensor:
    """The sum along ``axis`` (integers accumulate in 64 bits, keeping their signedness)."""
    return _reduce(_ag.sum, x, axis, keepdims, dtype=_accumulator(x, dtype))


def prod(x: Tensor, /, *, axis: Any = None, dtype: _dt.dtype | None = None,
         keepdims: bool = False) -> Tensor:
    """The product along ``axis`` (integers accumulate in 64 bits, keeping signedness)."""
    return _reduce(_prod, x, axis, keepdims, dtype=_accumulator(x, dtype))


def _prod(x: Tensor, *, dim: tuple[int, ...], keepdim: bool, dtype: Any) -> Tensor:
    # PyTorch's prod takes one dim: reduce the axes one at a time, the highest first
    out = x
    for d in sorted(dim, reverse=True):
        out = _ag.prod(out, d, keepdim=keepdim, dtype=dtype)
    return out


def mean(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:
    """The arithmetic mean along ``axis``."""
    return _reduce(_ag.mean, x, axis, keepdims)


def std(x: Tensor, /, *, axis: Any = None, correction: int | float = 0.0,
        keepdims: bool = False) -> Tensor:
    """The standard deviation along ``axis`` (``correction=0``, the population's, by default)."""
    return _reduce(_ag.std, x, axis, keepdims, correction=correction)


def var(x: Tensor, /, *, axis: Any = None, correction: int | float = 0.0,
        keepdims: bool = False) -> Tensor:
    """The variance along ``axis`` (``correction=0`` by default, as the standard)."""
    return _reduce(_ag.var, x, axis, keepdims, correction=correction)


def all(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether every element along ``axis`` is true."""
    return _reduce(_ag.all, x, axis, keepdims)


def any(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:  # noqa: A001
    """Whether some element along ``axis`` is true."""
    return _reduce(_ag.any, x, axis, keepdims)


def _cumulative(fn: Callable[..., Tensor], identity: int, x: Tensor, axis: int | None,
                dtype: _dt.dtype | None, include_initial: bool) -> Tensor:
    if axis is None:
        if x.ndim > 1:
            raise ValueError("axis must be given for an array of more than one dimension")
        axis = 0
    if x.ndim == 0:
        raise ValueError("cumulative functions need an array of at least one dimension")
    (axis,) = normalize_axes(axis, x.ndim)
    dtype = _accumulator(x, dtype)
    source = x if dtype is None else x.to(dtype)
    out = fn(source, axis) if source.shape[axis] else source
    if include_initial:
        shape = list(source.shape)
        shape[axis] = 1
        start = _ag.full(shape, identity, dtype=source.dtype, device=x.device)
        out = _ag.cat([start, out], dim=axis)
    return out


def cumulative_sum(x: Tensor, /, *, axis: int | None = None, dtype: _dt.dtype | None = None,
                   include_initial: bool = False) -> Tensor:
    """Running sums along ``axis`` (with a leading zero when ``include_initial``)."""
    return _cumulative(_ag.cumsum, 0, x, axis, dtype, include_initial)


def cumulative_prod(x: Tensor, /, *, axis: int | None = None, dtype: _dt.dtype | None = None,
                    include_initial: bool = False) -> Tensor:
    """Running products along ``axis`` (with a leading one when ``include_initial``)."""
    return _cumulative(_ag.cumprod, 1, x, axis, dtype, include_initial)


def diff(x: Tensor, /, *, axis: int = -1, n: int = 1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The ``n``-th forward difference along ``axis``."""
    return _ag.diff(x, n, axis, prepend=prepend, append=append)
