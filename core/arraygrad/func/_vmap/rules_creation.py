"""Batching rules: creation functions called by ops on batched tensors.

``zeros_like``/``ones_like``/``full_like``/``empty_like``/``asarray``/``astype`` of a batched
array are batched (elementwise rules). ``zeros``/``ones``/``empty``/``full`` of a shape,
called through a batching namespace (by an op whose backend is a vmap level's, never by the
user's ``arraygrad.zeros``), allocate one buffer per sample: ops allocate a buffer and then
write their (batched) values into it (``padded[interior] = x``, ``scatter_add``), and an
unbatched native buffer cannot receive a batched value. ``arange``/``eye``/``linspace``
stay unbatched: they are read, not written.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.func._vmap._batched import Level
from arraygrad.func._vmap._table import batched

__all__ = ["ALLOCATORS", "allocate"]

ALLOCATORS = ("zeros", "ones", "empty", "full")


def allocate(level: Level, fn: Callable[..., Any], shape: Any, *args: Any, **kwargs: Any) -> Any:
    """A buffer of logical ``shape`` for every sample."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return batched(fn((level.size,) + shape, *args, **kwargs), level)
