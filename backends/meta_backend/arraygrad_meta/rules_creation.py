"""Shape rules of the creation functions: the shape is an argument (or a count), the dtype
the CPU namespace's for the same arguments on an empty or one-element result."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from arraygrad_meta.array import MetaArray
from arraygrad_meta.standins import is_meta, meta_of
from arraygrad_meta.table import probe, shape_rule, shaped

__all__ = ["as_shape"]


def as_shape(shape: Any) -> tuple[int, ...]:
    """An int or a sequence of ints as a shape; NumPy's ValueError for a negative size."""
    dims = (operator.index(shape),) if not isinstance(shape, (tuple, list)) else tuple(
        operator.index(n) for n in shape)
    if any(n < 0 for n in dims):
        raise ValueError("negative dimensions are not allowed")
    return dims


def _cpu_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    kwargs.pop("device", None)  # the meta device: the CPU namespace knows only its own
    return kwargs


@shape_rule("zeros", "ones", "empty")
def filled(fn: Any, shape: Any, **kwargs: Any) -> MetaArray:
    """``shape``, of ``dtype`` (the default float without one)."""
    return shaped(fn((), **_cpu_kwargs(kwargs)), as_shape(shape))


@shape_rule("full")
def full(fn: Any, shape: Any, fill_value: Any, **kwargs: Any) -> MetaArray:
    """``shape``, of ``dtype`` or the fill value's."""
    return shaped(probe(fn, (), fill_value, **_cpu_kwargs(kwargs)), as_shape(shape))


@shape_rule("zeros_like", "ones_like", "empty_like", "full_like")
def like(fn: Any, x: MetaArray, *args: Any, **kwargs: Any) -> MetaArray:
    """``x``'s shape, of ``dtype`` or ``x``'s."""
    return shaped(probe(fn, x, *args, **_cpu_kwargs(kwargs)), x.shape)


@shape_rule("arange")
def arange(fn: Any, start: Any, /, stop: Any = None, step: Any = 1, **kwargs: Any) -> MetaArray:
    """``ceil((stop - start) / step)`` elements (none when negative), NumPy's count."""
    lo, hi = (0, start) if stop is None else (start, stop)
    found = fn(lo, lo + 0 * hi, step, **_cpu_kwargs(kwargs))  # empty: the arguments' dtype
    return shaped(found, (max(0, math.ceil((hi - lo) / step)),))


@shape_rule("linspace")
def linspace(fn: Any, start: Any, stop: Any, /, num: int, **kwargs: Any) -> MetaArray:
    """``num`` elements."""
    return shaped(probe(fn, start, stop, 0, **_cpu_kwargs(kwargs)), (operator.index(num),))


@shape_rule("eye")
def eye(fn: Any, n_rows: int, n_cols: Any = None, /, **kwargs: Any) -> MetaArray:
    """``(n_rows, n_cols)`` (square without ``n_cols``)."""
    kwargs.pop("k", None)
    found = fn(0, **_cpu_kwargs(kwargs))
    return shaped(found, as_shape((n_rows, n_rows if n_cols is None else n_cols)))


@shape_rule("asarray", "array")
def asarray(fn: Any, obj: Any, /, dtype: Any = None, **kwargs: Any) -> MetaArray:
    """A meta array as it is (cast to ``dtype``); host data (Python numbers, lists, NumPy
    arrays) by its shape and dtype."""
    if is_meta(obj):
        return obj if dtype is None or np.dtype(dtype) == obj.dtype else MetaArray(obj.shape, dtype)
    if isinstance(obj, (list, tuple)) and any(is_meta(v) for v in obj):
        from arraygrad_meta.namespace import get
        xp = get()
        return xp.stack([xp.asarray(v, dtype=dtype) for v in obj])
    kwargs.pop("copy", None)
    return meta_of(fn(obj, dtype=dtype, **_cpu_kwargs(kwargs)))


@shape_rule("from_dlpack")
def from_dlpack(fn: Any, obj: Any, /, **kwargs: Any) -> MetaArray:
    """A meta array as it is; any other array by its shape and dtype."""
    if is_meta(obj):
        return obj
    return meta_of(fn(obj))
