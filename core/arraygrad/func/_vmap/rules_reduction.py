"""Batching rules: reductions, scans, sorting and searching (a logical ``axis`` shifted
past the batch dimension).

``axis=None`` means every logical axis for reductions (``sum``: the tuple of them); the
functions that take one integer axis and read ``None`` as "the flattened array" (``argmax``,
``cumulative_sum`` of a 1-D array) get each sample flattened to one axis first.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.func._vmap._batched import BatchedArray, Level
from arraygrad.func._vmap._table import (
    batched, batching_rule, bval, is_batched, materialize, shift, wrap_results,
)

_ALL = ("sum", "prod", "mean", "std", "var", "count_nonzero",
        "logsumexp", "nansum", "nanmax", "nanmin", "nanmean")
_FLAT = ("argmax", "argmin", "cumulative_sum", "cumulative_prod")
_LAST = ("sort", "argsort")


def _axis_arg(kwargs: dict[str, Any], default: Any) -> Any:
    return kwargs.pop("axis", default)


def _physical_axis(axis: Any, ndim: int) -> Any:
    if isinstance(axis, (tuple, list)):
        return tuple(shift(a, ndim) for a in axis)
    return shift(axis, ndim)


@batching_rule(*_ALL)
def reduce_all(level: Level, fn: Callable[..., Any], x: Any, *args: Any, **kwargs: Any) -> Any:
    """A reduction over logical axes (None: all of them)."""
    v = bval(x, level)
    if v is None:  # an extra argument is batched, not the array: per-sample
        from arraygrad.func._vmap._fallback import fallback
        return fallback(level, fn.__name__, fn, x, *args, **kwargs)
    axis = _axis_arg(kwargs, None)
    nd = x.ndim
    phys = tuple(range(1, nd + 1)) if axis is None else _physical_axis(axis, nd)
    return wrap_results(fn(v, *args, axis=phys, **kwargs), level)


@batching_rule("min", "max", "any", "all")
def reduce_checkable(level: Level, fn: Callable[..., Any], x: Any, *args: Any,
                     **kwargs: Any) -> Any:
    """``reduce_all``; a whole-sample reduction remembers which (for the core's argument
    checks: see ``BatchedArray._batch_value``)."""
    out = reduce_all(level, fn, x, *args, **kwargs)
    if kwargs.get("axis") is None and type(out) is BatchedArray and out.ndim == 0:
        out.reduced = _REDUCED.get(fn.__name__.split("_")[0], None)
    return out


# the level-below function's name -> the reduction's name (NumPy's fast namespace names its
# min/max after their ufuncs)
_REDUCED = {"min": "min", "minimum": "min", "max": "max", "maximum": "max", "any": "any",
            "all": "all"}


@batching_rule(*_FLAT)
def reduce_flat(level: Level, fn: Callable[..., Any], x: Any, *args: Any, **kwargs: Any) -> Any:
    """One integer axis, None meaning the flattened sample."""
    v = materialize(x, level)
    axis = _axis_arg(kwargs, None)
    if axis is None:
        v = level.base.reshape(v, (v.shape[0], -1))
        phys = 1
        if kwargs.get("keepdims"):
            kwargs["keepdims"] = False
            out = fn(v, *args, axis=phys, **kwargs)
            return batched(level.base.reshape(out, (out.shape[0],) + (1,) * x.ndim), level)
    else:
        phys = shift(axis, x.ndim)
    return wrap_results(fn(v, *args, axis=phys, **kwargs), level)


@batching_rule(*_LAST)
def reduce_last(level: Level, fn: Callable[..., Any], x: Any, *args: Any, **kwargs: Any) -> Any:
    """One integer axis, -1 by default (sorting)."""
    axis = _axis_arg(kwargs, -1)
    return wrap_results(fn(bval(x, level), *args, axis=shift(axis, x.ndim), **kwargs), level)


@batching_rule("searchsorted")
def searchsorted(level: Level, fn: Callable[..., Any], x1: Any, x2: Any, /, **kwargs: Any) -> Any:
    """Sorted ``x1`` (1-D in the standard): unbatched, one search for all the batched queries;
    a batched ``x1`` (a row per sample) has no one-call form in the standard: per sample."""
    if not is_batched(x1, level):
        return batched(fn(x1, bval(x2, level), **kwargs), level)
    from arraygrad.func._vmap._fallback import fallback
    return fallback(level, "searchsorted", fn, x1, x2, **kwargs)
