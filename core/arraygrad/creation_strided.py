"""Factories with given strides: ``empty_strided``, ``empty_permuted``, ``Tensor.new_empty_strided``.

arraygrad keeps *logical* strides (``ops.views``): the result reports the strides asked for
(``stride()``, ``is_contiguous()``, where ``view`` may not go), as PyTorch's would; its array
is row-major, as every backend's is. Overlapping strides (a 0 stride) are reported too, but
the elements do not share memory (as a checkpoint's expanded tensors, ``serialization``).
"""

from __future__ import annotations

from typing import Any, Sequence

from arraygrad import dtypes as _dt
from arraygrad.creation import _size, empty
from arraygrad.device import DeviceLike
from arraygrad.layouts import check_layout
from arraygrad.ops.views import is_contiguous
from arraygrad.tensor import Tensor

__all__ = ["empty_strided", "empty_permuted", "new_empty_strided"]


def _ints(values: Any, op: str, name: str) -> tuple[int, ...]:
    if isinstance(values, int) and not isinstance(values, bool):
        values = (values,)
    if not isinstance(values, (tuple, list)) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise TypeError(f"{op}(): argument '{name}' must be tuple of ints, not "
                        f"{type(values).__name__}")
    return tuple(values)


def _strided(out: Tensor, shape: Sequence[int], stride: Sequence[int]) -> Tensor:
    # an empty tensor is contiguous whatever its strides (as PyTorch's)
    if out.numel() and not is_contiguous(shape, stride):
        out._strides = tuple(stride)
    return out


def empty_strided(size: Any, stride: Any, *, dtype: _dt.dtype | None = None, layout: Any = None,
                  device: DeviceLike | None = None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of ``size`` reporting strides ``stride`` (``torch.empty_strided``)."""
    shape = _size((_ints(size, "empty_strided", "size"),), "empty_strided")
    strides = _ints(stride, "empty_strided", "stride")
    if len(shape) != len(strides):
        raise RuntimeError(f"dimensionality of sizes ({len(shape)}) must match dimensionality "
                           f"of strides ({len(strides)})")
    if any(s < 0 for s in strides):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} and "
                           f"strides={list(strides)}")
    if layout is not None:  # strided only (``empty`` itself makes a sparse one too)
        check_layout(layout, "empty_strided")
    out = empty(shape, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    _strided(out, shape, strides)
    return out.requires_grad_(True) if requires_grad else out


def empty_permuted(size: Any, physical_layout: Any, *, dtype: _dt.dtype | None = None,
                   layout: Any = None, device: DeviceLike | None = None,
                   requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of ``size`` laid out in memory in the dimension order
    ``physical_layout`` (outermost first), as ``torch.empty_permuted``."""
    shape = _size((_ints(size, "empty_permuted", "size"),), "empty_permuted")
    order = _ints(physical_layout, "empty_permuted", "physical_layout")
    if len(order) != len(shape):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(shape)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    if sorted(order) != list(range(len(shape))):
        if len(set(order)) != len(order):
            raise RuntimeError("Duplicate dim not allowed")
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-len(shape)}, {len(shape) - 1}], but got {max(order)})")
    strides = [0] * len(shape)
    step = 1
    for d in reversed(order):
        strides[d] = step
        step *= max(shape[d], 1)
    if layout is not None:  # strided only (``empty`` itself makes a sparse one too)
        check_layout(layout, "empty_strided")
    out = empty(shape, dtype=dtype, layout=layout, device=device, pin_memory=pin_memory)
    _strided(out, shape, strides)
    return out.requires_grad_(True) if requires_grad else out


def new_empty_strided(self: Tensor, size: Any, stride: Any, *, dtype: _dt.dtype | None = None,
                      layout: Any = None, device: DeviceLike | None = None,
                      requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """``empty_strided`` with this tensor's dtype and device by default."""
    return empty_strided(size, stride, dtype=dtype or self.dtype, layout=layout,
                         device=device if device is not None else self.device,
                         requires_grad=requires_grad, pin_memory=pin_memory)
