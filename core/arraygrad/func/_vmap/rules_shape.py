"""Batching rules: shape functions (the batch dimension stays first, logical dimensions
shift by one).

Functions that join several arrays (``concat``, ``stack``) broadcast their unbatched
inputs along the batch (``materialize``); the trailing-dimension functions
(``matrix_transpose``) need no change at all.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.func._vmap._batched import Level
from arraygrad.func._vmap._table import (
    batched, batching_rule, bval, materialize, pad, shift, wrap_results,
)


def _axes(axis: Any, ndim: int) -> Any:
    if isinstance(axis, (tuple, list)):
        return tuple(shift(a, ndim) for a in axis)
    return shift(axis, ndim)


@batching_rule("reshape")
def reshape(level: Level, fn: Callable[..., Any], x: Any, shape: Any, /, **kwargs: Any) -> Any:
    """The batch dimension kept in front of the new logical shape."""
    v = bval(x, level)
    return batched(fn(v, (v.shape[0],) + tuple(shape), **kwargs), level)


@batching_rule("permute_dims")
def permute_dims(level: Level, fn: Callable[..., Any], x: Any, axes: Any, /) -> Any:
    """The batch dimension fixed, the logical ones permuted."""
    nd = x.ndim
    return batched(fn(bval(x, level), (0,) + tuple(shift(a, nd) for a in axes)), level)


@batching_rule("matrix_transpose")
def trailing(level: Level, fn: Callable[..., Any], x: Any, /, *args: Any, **kwargs: Any) -> Any:
    """Functions of the last dimensions, leading ones batch dimensions: as they are."""
    return wrap_results(fn(bval(x, level), *args, **kwargs), level)


@batching_rule("expand_dims")
def expand_dims(level: Level, fn: Callable[..., Any], x: Any, /, *args: Any, **kwargs: Any) -> Any:
    """A new logical axis (counted in the result's logical rank)."""
    axis = kwargs.pop("axis", args[0] if args else 0)
    nd = x.ndim + (len(axis) if isinstance(axis, (tuple, list)) else 1)
    return batched(fn(bval(x, level), axis=_axes(axis, nd), **kwargs), level)


@batching_rule("squeeze")
def squeeze(level: Level, fn: Callable[..., Any], x: Any, /, *args: Any, **kwargs: Any) -> Any:
    """Logical axes removed."""
    axis = kwargs.pop("axis", args[0] if args else None)
    if axis is None:  # NumPy's "all size-1 axes": the logical ones only
        axis = tuple(i for i, s in enumerate(x.shape) if s == 1)
    return batched(fn(bval(x, level), axis=_axes(axis, x.ndim), **kwargs), level)


@batching_rule("flip")
def flip(level: Level, fn: Callable[..., Any], x: Any, /, *, axis: Any = None) -> Any:
    """None: every logical axis."""
    nd = x.ndim
    phys = tuple(range(1, nd + 1)) if axis is None else _axes(axis, nd)
    return batched(fn(bval(x, level), axis=phys), level)


@batching_rule("roll")
def roll(level: Level, fn: Callable[..., Any], x: Any, /, shift_: Any = None, *,
         axis: Any = None, **kwargs: Any) -> Any:
    """None: each sample flattened, rolled, and shaped back."""
    if shift_ is None:
        shift_ = kwargs.pop("shift")
    v = bval(x, level)
    if axis is None:
        flat = level.base.reshape(v, (v.shape[0], -1))
        return batched(level.base.reshape(fn(flat, shift_, axis=1), v.shape), level)
    return batched(fn(v, shift_, axis=_axes(axis, x.ndim)), level)


@batching_rule("moveaxis")
def moveaxis(level: Level, fn: Callable[..., Any], x: Any, source: Any, destination: Any, /) -> Any:
    """Both positions shifted."""
    nd = x.ndim
    return batched(fn(bval(x, level), _axes(source, nd), _axes(destination, nd)), level)


@batching_rule("broadcast_to")
def broadcast_to(level: Level, fn: Callable[..., Any], x: Any, /, shape: Any) -> Any:
    """The sample padded to the target rank, then broadcast behind the batch dimension."""
    shape = tuple(shape)
    v = pad(bval(x, level), level, len(shape))
    return batched(fn(v, (v.shape[0],) + shape), level)


@batching_rule("broadcast_arrays")
def broadcast_arrays(level: Level, fn: Callable[..., Any], *arrays: Any) -> Any:
    """Every array to the logical broadcast shape (the unbatched ones stay unbatched)."""
    from arraygrad.ops.broadcast import broadcast_shapes
    shape = tuple(broadcast_shapes("broadcast_arrays", *[tuple(a.shape) for a in arrays]))
    return [level.xp.broadcast_to(a, shape) for a in arrays]


@batching_rule("tile")
def tile(level: Level, fn: Callable[..., Any], x: Any, repetitions: Any, /) -> Any:
    """Repetitions of the logical axes; the batch repeated once."""
    reps = tuple(repetitions)
    nd = max(x.ndim, len(reps))
    reps = (1,) * (nd - len(reps)) + reps
    return batched(fn(pad(bval(x, level), level, nd), (1,) + reps), level)


@batching_rule("concat")
def concat(level: Level, fn: Callable[..., Any], arrays: Any, /, *, axis: Any = 0) -> Any:
    """Joined along a logical axis (None: each sample flattened first)."""
    values = [materialize(a, level) for a in arrays]
    if axis is None:
        values = [level.base.reshape(v, (v.shape[0], -1)) for v in values]
        return batched(fn(values, axis=1), level)
    return batched(fn(values, axis=shift(axis, arrays[0].ndim)), level)


@batching_rule("stack")
def stack(level: Level, fn: Callable[..., Any], arrays: Any, /, *, axis: int = 0) -> Any:
    """A new logical axis (counted in the result's logical rank)."""
    values = [materialize(a, level) for a in arrays]
    return batched(fn(values, axis=shift(axis, arrays[0].ndim + 1)), level)


@batching_rule("diff")
def diff(level: Level, fn: Callable[..., Any], x: Any, /, *, axis: int = -1, n: int = 1,
         prepend: Any = None, append: Any = None) -> Any:
    """Differences along a logical axis; ``prepend``/``append`` broadcast along the batch."""
    kw: dict[str, Any] = {}
    nd = x.ndim
    if prepend is not None:
        kw["prepend"] = materialize(prepend, level)
    if append is not None:
        kw["append"] = materialize(append, level)
    return batched(fn(materialize(x, level), axis=shift(axis, nd), n=n, **kw), level)
