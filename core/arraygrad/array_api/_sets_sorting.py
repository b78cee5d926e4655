"""The standard's set and sorting functions: the four ``unique_*`` (named tuples, each NaN
distinct, ``indices`` of first occurrences, ``inverse_indices`` shaped as the input) and
``sort``/``argsort`` with ``stable=True`` by default."""

from __future__ import annotations

from typing import NamedTuple

import arraygrad as _ag
from arraygrad.tensor import Tensor

__all__ = ["UniqueAllResult", "UniqueCountsResult", "UniqueInverseResult", "unique_all",
           "unique_counts", "unique_inverse", "unique_values", "sort", "argsort"]


class UniqueAllResult(NamedTuple):
    """``unique_all``'s values, first indices, inverse indices and counts."""
    values: Tensor
    indices: Tensor
    inverse_indices: Tensor
    counts: Tensor


class UniqueCountsResult(NamedTuple):
    """``unique_counts``'s values and counts."""
    values: Tensor
    counts: Tensor


class UniqueInverseResult(NamedTuple):
    """``unique_inverse``'s values and inverse indices."""
    values: Tensor
    inverse_indices: Tensor


def unique_all(x: Tensor, /) -> UniqueAllResult:
    """The unique values of ``x`` with the index of each's first occurrence, the inverse
    indices and the counts."""
    values, inverse, counts = _ag.unique(x, return_inverse=True, return_counts=True)
    flat = _ag.reshape(inverse, (-1,))
    order = _ag.argsort(flat, stable=True)  # positions grouped by value, in order of position
    starts = _ag.cumsum(counts, 0) - counts
    return UniqueAllResult(values, order[starts], inverse, counts)


def unique_counts(x: Tensor, /) -> UniqueCountsResult:
    """The unique values of ``x`` and how often each occurs."""
    values, counts = _ag.unique(x, return_counts=True)
    return UniqueCountsResult(values, counts)


def unique_inverse(x: Tensor, /) -> UniqueInverseResult:
    """The unique values of ``x`` and where each element of ``x`` is among them."""
    values, inverse = _ag.unique(x, return_inverse=True)
    return UniqueInverseResult(values, inverse)


def unique_values(x: Tensor, /) -> Tensor:
    """The unique values of ``x``."""
    return _ag.unique(x)


def sort(x: Tensor, /, *, axis: int = -1, descending: bool = False,
         stable: bool = True) -> Tensor:
    """``x`` sorted along ``axis`` (stably by default)."""
    return _ag.sort(x, dim=axis, descending=descending, stable=stable).values


def argsort(x: Tensor, /, *, axis: int = -1, descending: bool = False,
            stable: bool = True) -> Tensor:
    """The indices that sort ``x`` along ``axis`` (stably by default)."""
    return _ag.argsort(x, dim=axis, descending=descending, stable=stable)
