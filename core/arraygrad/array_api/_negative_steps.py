"""Slices with negative steps (``x[::-1]``, ``x[5:1:-2] = v``) for the namespace's array type.

The standard requires them; PyTorch refuses them ("step must be greater than zero") and
``Tensor.__getitem__`` keeps that refusal. Reading, each such slice's range is cut out of the
array (a view), flipped (a copy, differentiable) and read with the positive step; writing,
the positions the key selects are found by reading the key from index grids, and the value
is written there by advanced indexing (in place, differentiable, views of the array see it).
A negative-step read is therefore a copy, not a view (docs/array-api.md)."""

from __future__ import annotations

import operator
from typing import Any

import arraygrad as _ag
from arraygrad.tensor import Tensor

__all__ = ["has_negative_step", "getitem", "setitem"]


def _items(key: Any) -> tuple[Any, ...]:
    return key if type(key) is tuple else (key,)


def _negative(item: Any) -> bool:
    return type(item) is slice and item.step is not None and operator.index(item.step) < 0


def has_negative_step(key: Any) -> bool:
    """Whether ``key`` holds a slice with a negative step."""
    return any(_negative(item) for item in _items(key))


def _dims_taken(item: Any) -> int:
    """How many of the indexed array's dimensions ``item`` consumes (as the indexing rules
    count them: a boolean mask its own dimensions, ``None`` and Python booleans none)."""
    if item is None or item is Ellipsis or isinstance(item, bool):
        return 0
    if isinstance(item, (list, tuple)):
        item = _ag.as_tensor(item)
    if isinstance(item, Tensor) and item.dtype == _ag.bool:
        return item.ndim
    return 1


def _ascending(x: Tensor, key: Any) -> tuple[Tensor, Any]:
    """``x`` with each negative-step slice's range cut out and reversed, and ``key`` with those
    slices stepping forward through it: ``x[key]`` is then the result's ``out[key']``. A key
    with more indices than ``x`` has dimensions is returned unchanged (the tensor's indexing
    raises PyTorch's error for it)."""
    items = _items(key)
    explicit = sum(_dims_taken(item) for item in items)
    if explicit > x.ndim:
        return x, key
    out: list[Any] = []
    dim = 0
    for item in items:
        if item is Ellipsis:
            dim += x.ndim - explicit
        elif _negative(item):
            chosen = range(*item.indices(x.shape[dim]))
            if not chosen:
                item = slice(0, 0)
            else:  # chosen[-1] is the smallest position: cut [chosen[-1], chosen[0]], flip it
                x = x.narrow(dim, chosen[-1], chosen[0] - chosen[-1] + 1).flip(dim)
                item = slice(None, None, -chosen.step)
        out.append(item)
        dim += _dims_taken(item)
    return x, tuple(out)


def getitem(x: Tensor, key: Any) -> Tensor:
    """``x[key]`` where ``key`` may hold negative-step slices (a copy where it does)."""
    source, forward_key = _ascending(x, key)
    return Tensor.__getitem__(source, forward_key)


def setitem(x: Tensor, key: Any, value: Any) -> None:
    """``x[key] = value`` where ``key`` may hold negative-step slices: the positions ``key``
    selects, read from one index grid per dimension, written by advanced indexing."""
    if x.ndim == 0:  # no slice applies: the tensor's indexing raises its error
        Tensor.__setitem__(x, key, value)
        return
    grids = []
    for d, size in enumerate(x.shape):
        along = [1] * x.ndim
        along[d] = size
        grids.append(_ag.arange(size, device=x.device).reshape(along).expand(tuple(x.shape)))
    positions = tuple(getitem(grid, key) for grid in grids)
    Tensor.__setitem__(x, positions, value)
