"""Batching rules: creation functions called by ops on batched tensors.

``zeros_like``/``ones_like``/``full_like``/``empty_like``/``asarray``/``astype`` of a batched
array are batched (elementwise rules). ``zeros``/``ones``/``empty``/``full`` of a shape,
called through a batching namespace (by an op whose backend is a vmap level's, never by the
user's ``arraygrad.zeros``), allocate one buffer per sample: ops allocate a buffer and then
write their (batched) values into it (``padded[interior] = x``, ``scatter_add``), and an
unbatched native buffer cannot receive a batched value. ``arange``/``eye``/``linspace``
stay unbatched: they are read, not written.

A buffer is batched at its own level only; a value written into it that is also batched at
a level below (an enclosing ``vmap``, or an earlier call whose ops are being differentiated:
see ``_below``) widens the buffer to that level first (``widen``): it is the op's own fresh
array, so no one else sees it change. A user's tensor never widens (PyTorch refuses the
write: ``Level.check_write``).
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.func._vmap._batched import BatchedArray, Level
from arraygrad.func._vmap._table import batched, materialize

__all__ = ["ALLOCATORS", "allocate", "widen"]

ALLOCATORS = ("zeros", "ones", "empty", "full")


def allocate(level: Level, fn: Callable[..., Any], shape: Any, *args: Any, **kwargs: Any) -> Any:
    """A buffer of logical ``shape`` for every sample."""
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    out = batched(fn((level.size,) + shape, *args, **kwargs), level)
    out.fresh = True
    return out


def _levels(x: Any, below: int) -> list[Level]:
    """The levels ``x`` is batched at, shallower than depth ``below``."""
    found = []
    while type(x) is BatchedArray:
        if x.level.depth < below:
            found.append(x.level)
        x = x.value
    return found


def _insert(v: Any, level: Level) -> Any:
    """``v`` batched at ``level`` too (a writable copy broadcast along its batch), the
    wrappers kept in depth order."""
    if type(v) is BatchedArray and v.level.depth > level.depth:
        out = BatchedArray(_insert(v.value, level), v.level)
    else:
        out = BatchedArray(level.base.asarray(materialize(v, level), copy=True), level)
    out.fresh = True
    return out


def widen(buffer: BatchedArray, value: Any) -> Any:
    """The physical value of ``buffer`` (an op's fresh buffer at its level) made batched at
    every level below it that ``value`` (about to be written into it) is batched at; stored
    back into ``buffer``. A buffer that is not fresh is left as it is."""
    v = buffer.value
    if not buffer.fresh:
        return v
    have = _levels(v, buffer.level.depth)
    for level in _levels(value, buffer.level.depth):
        if level not in have:
            v = _insert(v, level)
    buffer.value = v
    return v
