"""Shape rules of the functions that rearrange, join or repeat arrays.

The view functions (``reshape``, ``permute_dims``, ``expand_dims``, ``broadcast_to``...)
run on zero-strided full-shape stand-ins: NumPy computes their shapes (and raises their
errors) without allocating. Joins and repeats allocate on NumPy, so their shapes are
computed here.
"""

from __future__ import annotations

import math
from typing import Any

from arraygrad_meta.array import MetaArray
from arraygrad_meta.standins import full, meta_of, replaced
from arraygrad_meta.table import probe, shape_rule, shaped

__all__ = ["view"]


@shape_rule("reshape", "permute_dims", "expand_dims", "squeeze", "broadcast_to",
            "broadcast_arrays", "moveaxis", "matrix_transpose", "linalg.matrix_transpose",
            "unstack", "linalg.diagonal", "swapaxes", "transpose", "atleast_1d", "atleast_2d",
            "atleast_3d")
def view(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn`` on full-shape zero-strided stand-ins: NumPy's own shapes, nothing allocated."""
    kwargs.pop("copy", None)  # a copy would allocate; a meta array has nothing to copy
    return meta_of(fn(*replaced(args, full), **{k: replaced(v, full) for k, v in kwargs.items()}))


def _axis(axis: int, ndim: int) -> int:
    return axis % ndim if ndim else 0


@shape_rule("concat", "concatenate")
def concat(fn: Any, arrays: Any, axis: Any = 0, **kwargs: Any) -> MetaArray:
    """The arrays joined along ``axis`` (None: flattened first)."""
    found = probe(fn, arrays, axis=axis, **kwargs)
    arrays = list(arrays)
    if axis is None:
        return shaped(found, (sum(math.prod(a.shape) for a in arrays),))
    first = arrays[0].shape
    ax = _axis(axis, len(first))
    for k, a in enumerate(arrays[1:], 1):
        for d, (n, m) in enumerate(zip(first, a.shape)):
            if d != ax and n != m:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis must "
                    f"match exactly, but along dimension {d}, the array at index 0 has size {n} "
                    f"and the array at index {k} has size {m}")
    return shaped(found, first[:ax] + (sum(a.shape[ax] for a in arrays),) + first[ax + 1:])


@shape_rule("stack")
def stack(fn: Any, arrays: Any, axis: int = 0, **kwargs: Any) -> MetaArray:
    """The arrays (of one shape) along a new ``axis``."""
    found = probe(fn, arrays, axis=axis, **kwargs)
    arrays = list(arrays)
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        raise ValueError("all input arrays must have the same shape")
    ax = _axis(axis, len(shape) + 1)
    return shaped(found, shape[:ax] + (len(arrays),) + shape[ax:])


@shape_rule("tile")
def tile(fn: Any, x: MetaArray, repetitions: Any) -> MetaArray:
    """Each dimension times its repetition (the shorter of the two padded with 1s in front)."""
    reps = (repetitions,) if isinstance(repetitions, int) else tuple(repetitions)
    found = probe(fn, x, (1,) * len(reps))
    n = max(x.ndim, len(reps))
    shape = (1,) * (n - x.ndim) + x.shape
    reps = (1,) * (n - len(reps)) + reps
    return shaped(found, tuple(s * r for s, r in zip(shape, reps)))


@shape_rule("repeat")
def repeat(fn: Any, x: MetaArray, repeats: Any, axis: Any = None) -> MetaArray:
    """Each element ``repeats`` times along ``axis`` (None: flattened first). Repeats given
    as an array are values: the result's length is unknown (PyTorch's RuntimeError)."""
    if hasattr(repeats, "shape"):
        from arraygrad_meta.errors import REPEATS
        raise RuntimeError(REPEATS)
    found = probe(fn, x, 1, axis=axis)
    if axis is None:
        return shaped(found, (x.size * repeats,))
    ax = _axis(axis, x.ndim)
    return shaped(found, x.shape[:ax] + (x.shape[ax] * repeats,) + x.shape[ax + 1:])


@shape_rule("diff")
def diff(fn: Any, x: MetaArray, /, *, axis: int = -1, n: int = 1, prepend: Any = None,
         append: Any = None) -> MetaArray:
    """``x``'s shape, ``n`` shorter along ``axis`` (after ``prepend``/``append``)."""
    found = probe(fn, x, axis=axis, n=0, prepend=prepend, append=append)
    ax = _axis(axis, x.ndim)
    size = x.shape[ax] + sum(e.shape[ax] if getattr(e, "ndim", 0) else 1
                             for e in (prepend, append) if e is not None)
    return shaped(found, x.shape[:ax] + (max(size - n, 0),) + x.shape[ax + 1:])


@shape_rule("meshgrid")
def meshgrid(fn: Any, *arrays: Any, indexing: str = "xy") -> Any:
    """One array per input, each of the grid's shape (the first two swapped for ``xy``)."""
    found = probe(fn, *arrays, indexing=indexing)
    shape = [math.prod(a.shape) for a in arrays]
    if indexing == "xy" and len(shape) >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    return type(found)(shaped(f, shape) for f in found)
