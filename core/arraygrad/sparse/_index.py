"""Index arithmetic of COO tensors on native arrays, through the backend's Array API namespace.

A sparse tensor's ``indices`` are ``(sparse_dim, nnz)`` int64; its ``values`` ``(nnz,
*dense_shape)``. Each column of indices is one position of the sparse dimensions, and its
*key* is that position's row-major offset (``linear_keys``): coalescing sorts and merges
equal keys (``unique_inverse`` plus the backend's ``scatter_add``, the segment sum), a dense
copy is a ``scatter_add`` of the values at their keys, and finding one tensor's entries in
another's is a ``searchsorted`` of keys. No array library is imported here.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = ["linear_keys", "unravel", "coalesced_arrays", "dense_array", "lookup",
           "nonzero_positions", "check_in_bounds"]


def linear_keys(xp: Any, indices: Any, sizes: Sequence[int]) -> Any:
    """The row-major offset of each column of ``indices`` in a block of shape ``sizes``."""
    keys = xp.zeros((indices.shape[1],), dtype=xp.int64)
    for k, size in enumerate(sizes):
        keys = keys * size + indices[k, ...]
    return keys


def unravel(xp: Any, keys: Any, sizes: Sequence[int]) -> Any:
    """The ``(len(sizes), n)`` indices whose row-major offsets are ``keys``."""
    rows = []
    for size in reversed(sizes):
        rows.append(keys % size)
        keys = keys // size
    if not rows:
        return xp.zeros((0, keys.shape[0]), dtype=xp.int64)
    return xp.stack(rows[::-1], axis=0)


def coalesced_arrays(backend: Backend, indices: Any, values: Any,
                     sizes: Sequence[int]) -> tuple[Any, Any]:
    """The indices sorted with repeats merged, and the values summed per position (in their
    order of appearance, as PyTorch sums them)."""
    xp = backend.xp
    if values.shape[0] == 0:
        return indices, values
    keys = linear_keys(xp, indices, sizes)
    unique, inverse = xp.unique_inverse(keys)
    summed = xp.zeros((unique.shape[0], *values.shape[1:]), dtype=values.dtype)
    summed = backend.scatter_add(summed, xp.reshape(inverse, (-1,)), values)
    return unravel(xp, unique, sizes), summed


def dense_array(backend: Backend, indices: Any, values: Any, shape: Sequence[int]) -> Any:
    """The dense array a COO tensor stands for: its values added up at their positions."""
    xp = backend.xp
    sparse_dim = indices.shape[0]
    sizes = tuple(shape[:sparse_dim])
    out = xp.zeros((math.prod(sizes), *shape[sparse_dim:]), dtype=values.dtype)
    if values.shape[0]:
        out = backend.scatter_add(out, linear_keys(xp, indices, sizes), values)
    return xp.reshape(out, tuple(shape))


def lookup(xp: Any, sorted_keys: Any, keys: Any) -> tuple[Any, Any]:
    """Where each of ``keys`` is in ``sorted_keys`` (ascending, no repeats): ``(position,
    found)``, the position clipped into range where the key is missing."""
    n = sorted_keys.shape[0]
    if n == 0:
        zero = xp.zeros(keys.shape, dtype=xp.int64)
        return zero, xp.zeros(keys.shape, dtype=xp.bool)
    pos = xp.searchsorted(sorted_keys, keys)
    pos = xp.clip(pos, 0, n - 1)
    return pos, xp.take(sorted_keys, pos, axis=0) == keys


def nonzero_positions(xp: Any, data: Any, sparse_dim: int) -> Any:
    """The ``(sparse_dim, nnz)`` positions of the sparse dimensions where ``data`` has a
    non-zero element (in any of the dense dimensions behind them), in row-major order."""
    mask = data != 0
    if mask.ndim > sparse_dim:
        mask = xp.any(mask, axis=tuple(range(sparse_dim, mask.ndim)))
    if sparse_dim == 0:
        return xp.zeros((0, 1 if bool(mask) else 0), dtype=xp.int64)
    found = xp.nonzero(mask)
    return xp.stack([xp.astype(f, xp.int64) for f in found], axis=0)


def check_in_bounds(xp: Any, indices: Any, shape: Sequence[int]) -> None:
    """PyTorch's invariant checks of COO indices against a shape (RuntimeError)."""
    if indices.shape[1] == 0:
        return
    for d in range(indices.shape[0]):
        row = indices[d, ...]
        low = int(xp.min(row))
        if low < 0:
            raise RuntimeError(f"found negative index {low} for dim {d}")
        high = int(xp.max(row))
        if high >= shape[d]:
            raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                               f"{shape[d]} but found index {high}")
