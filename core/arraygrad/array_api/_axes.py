"""The standard's ``axis`` arguments: None (every axis), an int or a tuple, normalised once
here (an axis out of range raises PyTorch's IndexError, a repeated one ValueError)."""

from __future__ import annotations

from typing import Any

__all__ = ["normalize_axes"]


def normalize_axes(axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` as a tuple of distinct non-negative axes of an ``ndim``-dimensional array."""
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, tuple) else (axis,)
    out = []
    for a in axes:
        a = int(a)
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {a})")
        a %= max(ndim, 1)
        if a in out:
            raise ValueError(f"axis {a} appears more than once")
        out.append(a)
    return tuple(out)
