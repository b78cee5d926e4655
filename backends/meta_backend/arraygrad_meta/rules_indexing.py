"""Indexing on meta arrays: ``x[key]`` and ``x[key] = v`` (the CPU namespace's NumPy
semantics), ``take``, ``take_along_axis``, ``searchsorted``, and the functions whose result's
shape is in the values (``nonzero``, ``unique_*``), which raise PyTorch's meta errors.

A key without index arrays indexes a zero-strided stand-in (a view: NumPy computes the shape
and raises its own errors). With integer index arrays, NumPy would allocate the result, so
its advanced-indexing rule is computed here: the index arrays (and any integers among them)
broadcast to one shape, which replaces their dimensions where they are adjacent, else goes
first. A boolean mask selects as many elements as it has ``True`` values: unknown.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

from arraygrad_meta import errors
from arraygrad_meta.array import MetaArray
from arraygrad_meta.standins import full, meta_of
from arraygrad_meta.table import probe, shape_rule, shaped

__all__ = ["getitem", "setitem", "indexed_shape"]


def _is_index_array(k: Any) -> bool:
    return hasattr(k, "shape") and hasattr(k, "dtype") and not isinstance(k, type)


def _expanded(shape: tuple[int, ...], key: tuple[Any, ...]) -> list[Any]:
    """``key`` with its Ellipsis (or the missing trailing dimensions) as full slices."""
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for k in key if k is not None and k is not Ellipsis)
    if used > len(shape):
        raise IndexError(f"too many indices for array: array is {len(shape)}-dimensional, but "
                         f"{used} were indexed")
    fill = [slice(None)] * (len(shape) - used)
    if Ellipsis in [k for k in key if not _is_index_array(k)]:
        at = next(i for i, k in enumerate(key) if k is Ellipsis and not _is_index_array(k))
        return list(key[:at]) + fill + list(key[at + 1:])
    return list(key) + fill


def indexed_shape(shape: tuple[int, ...], key: Any) -> tuple[int, ...]:
    """The shape of ``x[key]`` for an ``x`` of ``shape`` and a key with integer index arrays
    (NumPy's advanced indexing)."""
    key = _expanded(shape, key if isinstance(key, tuple) else (key,))
    advanced = [i for i, k in enumerate(key)
                if _is_index_array(k) or (isinstance(k, Integral) and not isinstance(k, bool))]
    arrays = []
    out: list[Any] = []
    dim = 0
    for k in key:
        if k is None:
            out.append(1)
            continue
        n = shape[dim]
        if isinstance(k, slice):
            out.append(len(range(*k.indices(n))))
        elif _is_index_array(k):
            if k.dtype.kind not in "iu":
                raise IndexError("arrays used as indices must be of integer (or boolean) type")
            arrays.append(tuple(k.shape))
        else:
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {dim} with size {n}")
            arrays.append(())
        dim += 1
    try:
        joint = np.broadcast_shapes(*arrays)
    except ValueError:
        raise IndexError("shape mismatch: indexing arrays could not be broadcast together with "
                         "shapes " + " ".join(str(a).replace(" ", "") for a in arrays)) from None
    if advanced == list(range(advanced[0], advanced[-1] + 1)):  # adjacent: in place
        before = sum(1 if k is None or isinstance(k, slice) else 0 for k in key[:advanced[0]])
        return tuple(out[:before]) + joint + tuple(out[before:])
    return joint + tuple(out)


def _has_arrays(key: tuple[Any, ...]) -> bool:
    return any(_is_index_array(k) for k in key)


def getitem(x: MetaArray, key: Any) -> MetaArray:
    """``x[key]`` with NumPy's semantics; a boolean mask raises PyTorch's ``nonzero`` error."""
    key = tuple(np.asarray(k) if isinstance(k, list) else k
                for k in (key if isinstance(key, tuple) else (key,)))
    if not _has_arrays(key):
        return meta_of(full(x)[key])
    if any(_is_index_array(k) and k.dtype.kind == "b" for k in key):
        raise NotImplementedError(errors.NONZERO)
    return MetaArray(indexed_shape(x.shape, key), x.dtype)


def setitem(x: MetaArray, key: Any, value: Any) -> None:
    """Check that ``value`` fits ``x[key]`` (NumPy's errors); a meta array has nothing to
    write. Under a boolean mask the selection's length is unknown: any value is taken."""
    tkey = key if isinstance(key, tuple) else (key,)
    if any(_is_index_array(k) and k.dtype.kind == "b" for k in tkey):
        return
    target = getitem(x, key).shape
    shape = tuple(getattr(value, "shape", ()))
    try:
        fits = np.broadcast_shapes(shape, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"could not broadcast input array from shape {shape} into shape "
                         f"{target}")


@shape_rule("take")
def take(fn: Any, x: MetaArray, indices: Any, /, *, axis: Any = None, **kwargs: Any) -> MetaArray:
    """``indices``' shape in place of ``axis`` (of the flattened ``x`` without one)."""
    found = probe(fn, x, indices, axis=axis, **kwargs)
    ishape = tuple(getattr(indices, "shape", ()))
    if axis is None:
        return shaped(found, ishape)
    ax = axis % x.ndim
    return shaped(found, x.shape[:ax] + ishape + x.shape[ax + 1:])


@shape_rule("take_along_axis")
def take_along_axis(fn: Any, x: MetaArray, indices: Any, /, axis: int = -1) -> MetaArray:
    """``indices``' length along ``axis``; the other dimensions broadcast with ``x``'s."""
    found = probe(fn, x, indices, axis=axis)
    ax = axis % x.ndim
    shape = list(np.broadcast_shapes(x.shape[:ax] + (1,) + x.shape[ax + 1:],
                                     indices.shape[:ax] + (1,) + indices.shape[ax + 1:]))
    shape[ax] = indices.shape[ax]
    return shaped(found, shape)


@shape_rule("searchsorted")
def searchsorted(fn: Any, x1: MetaArray, x2: Any, /, **kwargs: Any) -> MetaArray:
    """One position per element of ``x2``."""
    return shaped(probe(fn, x1, x2, **kwargs), tuple(getattr(x2, "shape", ())))


@shape_rule("nonzero", "argwhere", "flatnonzero", "extract", "compress")
def nonzero(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """How many elements are nonzero is in the values: PyTorch's NotImplementedError."""
    raise NotImplementedError(errors.NONZERO)


@shape_rule("unique_all", "unique_counts", "unique_inverse", "unique_values", "unique")
def unique(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """How many distinct values there are is in the values: PyTorch's NotImplementedError."""
    raise NotImplementedError(errors.no_kernel("aten::_unique2"))


@shape_rule("bincount")
def bincount(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """The result's length is the largest value: PyTorch's NotImplementedError."""
    raise NotImplementedError(errors.no_kernel("aten::bincount"))
