"""The standard's manipulation functions: ``axis`` keywords, ``concat(axis=None)``,
``squeeze`` refusing an axis whose size is not one (PyTorch keeps it silently), mixed dtypes
promoted by the standard's rules, lists where the standard returns lists."""

from __future__ import annotations

from typing import Any, Sequence

import arraygrad as _ag
from arraygrad.array_api._axes import normalize_axes
from arraygrad.array_api._promotion import result_type
from arraygrad.tensor import Tensor

__all__ = ["broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis",
           "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack"]


def _promoted(arrays: Sequence[Tensor]) -> list[Tensor]:
    dtype = result_type(*arrays)
    return [a if a.dtype == dtype else a.to(dtype) for a in arrays]


def broadcast_arrays(*arrays: Tensor) -> list[Tensor]:
    """The arrays broadcast against each other."""
    return list(_ag.broadcast_tensors(*arrays))


def broadcast_to(x: Tensor, /, shape: tuple[int, ...]) -> Tensor:
    """``x`` broadcast to ``shape``."""
    return _ag.broadcast_to(x, shape)


def concat(arrays: Sequence[Tensor], /, *, axis: int | None = 0) -> Tensor:
    """The arrays joined along ``axis`` (flattened first when ``axis`` is None)."""
    parts = _promoted(arrays)
    if axis is None:
        return _ag.cat([_ag.reshape(p, (-1,)) for p in parts], dim=0)
    return _ag.cat(parts, dim=axis)


def stack(arrays: Sequence[Tensor], /, *, axis: int = 0) -> Tensor:
    """The arrays joined along a new ``axis``."""
    return _ag.stack(_promoted(arrays), dim=axis)


def expand_dims(x: Tensor, /, axis: int = 0) -> Tensor:
    """``x`` with a new axis of size one at ``axis``."""
    return _ag.unsqueeze(x, axis)


def flip(x: Tensor, /, *, axis: Any = None) -> Tensor:
    """``x`` reversed along ``axis`` (every axis by default)."""
    return _ag.flip(x, normalize_axes(axis, x.ndim)) if x.ndim else x.clone()


def moveaxis(x: Tensor, source: Any, destination: Any, /) -> Tensor:
    """``x`` with the axes ``source`` moved to ``destination``."""
    return _ag.moveaxis(x, source, destination)


def permute_dims(x: Tensor, /, axes: tuple[int, ...]) -> Tensor:
    """``x`` with its axes permuted."""
    return _ag.permute(x, tuple(axes))


def repeat(x: Tensor, repeats: Any, /, *, axis: int | None = None) -> Tensor:
    """Each element of ``x`` repeated ``repeats`` times (along ``axis``; flattened if None)."""
    if axis is None:
        x, axis = _ag.reshape(x, (-1,)), 0
    if isinstance(repeats, Tensor) and repeats.dtype != _ag.int64:
        repeats = repeats.to(_ag.int64)  # any integer dtype (PyTorch takes int32/int64)
    return _ag.repeat_interleave(x, repeats, dim=axis)


def reshape(x: Tensor, /, shape: tuple[int, ...], *, copy: bool | None = None) -> Tensor:
    """``x`` with a new ``shape`` (``copy=True`` always copies)."""
    out = _ag.reshape(x, tuple(shape))
    if copy:
        out = out.clone()
    elif copy is False and out.data_ptr() != x.data_ptr():
        raise ValueError("reshape(copy=False) needs a copy for this array")
    return out


def roll(x: Tensor, /, shift: Any, *, axis: Any = None) -> Tensor:
    """``x`` rolled by ``shift`` along ``axis`` (flattened when None)."""
    return _ag.roll(x, shift, axis)


def squeeze(x: Tensor, /, axis: Any) -> Tensor:
    """``x`` without the axes ``axis``, each of which must have size one."""
    axes = normalize_axes(axis, x.ndim)
    for a in axes:
        if x.ndim and x.shape[a] != 1:
            raise ValueError(f"cannot squeeze axis {a} of size {x.shape[a]}")
    return _ag.squeeze(x, axes) if axes and x.ndim else x


def tile(x: Tensor, repetitions: tuple[int, ...], /) -> Tensor:
    """``x`` repeated ``repetitions`` times along each axis."""
    return _ag.tile(x, tuple(repetitions))


def unstack(x: Tensor, /, *, axis: int = 0) -> tuple[Tensor, ...]:
    """The slices of ``x`` along ``axis``."""
    return tuple(_ag.unbind(x, dim=axis))
