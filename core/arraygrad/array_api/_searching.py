"""The standard's searching and indexing functions: ``argmax(keepdims=)`` over every axis,
``nonzero`` as a tuple, ``searchsorted(side=, sorter=)`` with mixed dtypes, ``where`` with
scalars, and ``take``/``take_along_axis`` with negative indices (PyTorch's ``index_select``
refuses them)."""

from __future__ import annotations

from typing import Any

import arraygrad as _ag
from arraygrad.array_api._axes import normalize_axes
from arraygrad.array_api._promotion import promote_pair
from arraygrad.tensor import Tensor

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where", "take",
           "take_along_axis"]


def _arg(fn: Any, x: Tensor, axis: int | None, keepdims: bool) -> Tensor:
    if axis is None:
        out = fn(_ag.reshape(x, (-1,)), 0)
        return _ag.reshape(out, (1,) * x.ndim) if keepdims else out
    return fn(x, axis, keepdim=keepdims)


def argmax(x: Tensor, /, *, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """The index of the first greatest value along ``axis`` (of the flattened array if None)."""
    return _arg(_ag.argmax, x, axis, keepdims)


def argmin(x: Tensor, /, *, axis: int | None = None, keepdims: bool = False) -> Tensor:
    """The index of the first least value along ``axis`` (of the flattened array if None)."""
    return _arg(_ag.argmin, x, axis, keepdims)


def count_nonzero(x: Tensor, /, *, axis: Any = None, keepdims: bool = False) -> Tensor:
    """The number of non-zero elements along ``axis``."""
    axes = normalize_axes(axis, x.ndim)
    return _ag.sum(x != 0, dim=axes, keepdim=keepdims, dtype=_ag.int64) if axes else \
        (x != 0).to(_ag.int64)


def nonzero(x: Tensor, /) -> tuple[Tensor, ...]:
    """The indices of the non-zero elements, one array per axis."""
    if x.ndim == 0:
        raise ValueError("nonzero() is not defined for 0-d arrays")
    return tuple(_ag.nonzero(x, as_tuple=True))


def searchsorted(x1: Tensor, x2: Any, /, *, side: str = "left",
                 sorter: Tensor | None = None) -> Tensor:
    """Where the values ``x2`` go in the sorted 1-D ``x1`` to keep it sorted."""
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    a, b = promote_pair(x1, x2)
    return _ag.searchsorted(a, b, side=side, sorter=sorter)


def where(condition: Tensor, x1: Any, x2: Any, /) -> Tensor:
    """``x1`` where ``condition`` holds, ``x2`` elsewhere (promoted by the standard)."""
    a, b = promote_pair(x1, x2)
    return _ag.where(condition, a, b)


def _wrapped(indices: Tensor, size: int) -> Tensor:
    return _ag.where(indices < 0, indices + size, indices)


def take(x: Tensor, indices: Tensor, /, *, axis: int | None = None) -> Tensor:
    """The elements of ``x`` at ``indices`` along ``axis`` (which a 1-D ``x`` may omit)."""
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take() needs an axis for an array of more than one dimension")
        axis = 0
    (axis,) = normalize_axes(axis, x.ndim)
    return _ag.index_select(x, axis, _wrapped(indices, x.shape[axis]))


def take_along_axis(x: Tensor, indices: Tensor, /, *, axis: int = -1) -> Tensor:
    """The elements of ``x`` at ``indices`` matched along ``axis``."""
    (axis,) = normalize_axes(axis, x.ndim)
    return _ag.take_along_dim(x, _wrapped(indices, x.shape[axis]), dim=axis)


