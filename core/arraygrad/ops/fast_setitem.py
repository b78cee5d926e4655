"""``t[key] = value`` written straight into ``t``'s array when nothing is recorded: the fast
path of ``Tensor.__setitem__`` (a dataset's ``y[:4] = -1``, a mask's ``m[i] = 0``, a weight
initialised under ``no_grad``, ``x[x < 0] = 0``).

The general mechanism (``inplace.apply_inplace`` with ``indexing.index_put``) copies the
whole array, writes the copy, records a node and writes the copy back: 18 us for a 9-element
tensor, against PyTorch's 3.4 (a bool mask: 223 us against 4.7, its positions sorted and
scattered). Where no node can be recorded (nothing involved requires grad while grad mode is
on, no forward-mode level, no transform) and the key is basic or a bool mask of the tensor's
shape, the write is one ``__setitem__`` of the backend's own array and a version bump, as
PyTorch's is.

Anything else, and anything the array library refuses (an out-of-range integer for the dtype,
a shape that does not broadcast, a read-only expanded view), returns False before a byte is
written, and the general mechanism runs and raises PyTorch's error.
"""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt, transform_state as _transforms
from arraygrad.autograd.forward_ad import state as _fw
from arraygrad.autograd.grad_mode import _state as _grad
from arraygrad.ops.fast import arrays_writable, basic_key
from arraygrad.ops.inplace import before_write
from arraygrad.tensor import Tensor

__all__ = ["setitem", "OVERWRITES"]

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def setitem(t: Tensor, key: Any, value: Any) -> bool:
    """``t[key] = value`` into ``t``'s array directly; True when done, False when the general
    mechanism must run (nothing written then)."""
    if not arrays_writable() or _fw.on or _transforms.indexed_input is not None:
        return False
    backend = t._backend
    if not backend.mutable_arrays or backend.array_type is not type(t._data):
        return False
    if _grad.enabled:  # a write that would be recorded, or that PyTorch refuses on a leaf
        base = t._base
        if t._requires_grad or (base is not None and base._requires_grad):
            return False
    values = _native_value(t, value)
    if values is None:
        return False
    index = _index(t, key)
    if index is None:
        return False
    before_write(t)  # (PyTorch's refusal of an inference tensor's update comes first)
    target: Any = t._data
    try:
        target[index] = values  # NumPy checks the shape and the value before writing
    except (ValueError, TypeError, OverflowError):
        return False
    t._bump_version()
    return True


def _zero(t: Tensor, args: tuple[Any, ...]) -> bool:
    return not args and setitem(t, Ellipsis, 0)


def _fill(t: Tensor, args: tuple[Any, ...]) -> bool:
    # a number or a 0-d tensor (the general path refuses any other)
    return len(args) == 1 and (type(args[0]) is not Tensor or args[0].ndim == 0) \
        and setitem(t, Ellipsis, args[0])


def _copy(t: Tensor, args: tuple[Any, ...]) -> bool:
    # a tensor of ``t``'s dtype, broadcast (a cast is the general path's)
    return len(args) == 1 and type(args[0]) is Tensor and setitem(t, Ellipsis, args[0])


OVERWRITES = {"zero_": _zero, "fill_": _fill, "copy_": _copy}
"""``zero_``, ``fill_`` and ``copy_`` as ``t[...] = value`` on the fast path: each takes
``(t, positional args)`` and answers True when written, False when the general mechanism
must run."""


def _index(t: Tensor, key: Any) -> Any:
    """The array key of ``...``, of a basic ``key`` (``ops.fast.basic_key``), or of a bool mask
    tensor of ``t``'s shape, backend and array type (``x[x < 0] = 0``); None for any other
    key."""
    if key is Ellipsis:  # ``t[...] = v``, and fill_/zero_/copy_
        return key
    if type(key) is Tensor:
        mask: Any = key._data
        if key._backend is t._backend and mask.dtype == t._backend.native_dtype(_dt.bool) \
                and mask.shape == t._data.shape and t._backend.array_type is type(mask):
            return mask
        return None
    basic = basic_key(t, key)
    return None if basic is None else basic[0]


def _native_value(t: Tensor, value: Any) -> Any:
    """``value`` as the write's right side: a Python bool (any dtype), an int64 (not into a
    bool tensor: its overflow checks are the general path's), a float (a floating or complex
    tensor: a float into an integer one is the general path's), or a
    tensor of ``t``'s backend, array type and dtype that no recorded write would read;
    None for anything else."""
    kind = type(value)
    if kind is bool:
        return value
    if kind is int:  # (past int64, PyTorch's unpacking errors even into a float tensor)
        if not _INT64_MIN <= value <= _INT64_MAX \
                or t._data.dtype == t._backend.native_dtype(_dt.bool):
            return None
        return value
    if kind is float:
        return value if t._data.dtype in t._backend.differentiable_natives else None
    if kind is Tensor:
        data: Any = value._data
        target: Any = t._data
        if value._backend is not t._backend or data.dtype != target.dtype \
                or t._backend.array_type is not type(data) or value._fw_grads is not None \
                or (value._requires_grad and _grad.enabled):
            return None
        return data
    return None
