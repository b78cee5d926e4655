"""``Tensor.fill_diagonal_``: the main diagonal of a matrix (or of an n-d tensor with equal
dimensions) set to a value, in place; ``wrap=True`` continues a tall matrix's diagonal after
every ``ncols + 1`` rows, as PyTorch (and NumPy's ``fill_diagonal``)."""

from __future__ import annotations

from typing import Any

from arraygrad.ops import elementwise as ew
from arraygrad.tensor import Tensor

__all__ = ["INPLACE"]


def _diagonal_mask(input: Tensor, wrap: bool) -> Tensor:
    """Where the diagonal is, over ``input``'s shape (bool), from flat positions: for a matrix
    multiples of ``ncols + 1`` (below ``min(rows, cols) * (ncols + 1)`` unless ``wrap``); for
    ``d`` equal dimensions ``n``, multiples of ``(n**d - 1) / (n - 1)``."""
    from arraygrad.creation import arange

    shape = tuple(input.shape)
    if len(shape) < 2:
        raise RuntimeError("fill_diagonal_: dimensions must larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise RuntimeError("fill_diagonal_: all dimensions of input must be of equal length")
    flat = arange(input.numel(), device=input.device).reshape(shape)
    if len(shape) == 2:
        rows, cols = shape
        step = cols + 1
        mask = flat % step == 0
        if not wrap:
            mask = mask & (flat < min(rows, cols) * step)
        return mask
    n = shape[0]
    step = sum(n ** k for k in range(len(shape)))
    return flat % step == 0


def fill_diagonal(input: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """``input`` with its main diagonal set to ``fill_value`` (the diagonal's gradient is 0)."""
    return ew.where(_diagonal_mask(input, wrap), fill_value, input)


INPLACE = {"fill_diagonal_": fill_diagonal}
"""``Tensor.fill_diagonal_(fill_value, wrap=False)``."""
