"""Dtype conversion of tensors and arrays: ``to_native``/``to_dtype`` (differentiable casts)
and the array-level helpers ops use before computing."""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.ops.rule import ELEMENTWISE, defop, finishers, identity
from arraygrad.tensor import Tensor


__all__ = ["to_native", "to_dtype", "cast_data", "to_float_data", "full_like_scalar"]



# PyTorch's node for dtype casts (``_to_copy``); the gradient's cast back to the input's
# dtype is the recorder's. Device moves record the same node name (``ops.transfer``).
TO_COPY = defop("ToCopyBackward0", jvp=ELEMENTWISE, vjp=(identity,))


def to_native(input: Tensor, native_dtype: Any) -> Tensor:
    """``input`` converted to a native dtype of its backend (differentiable)."""
    if input._data.dtype == native_dtype:
        return input
    return TO_COPY.record(input._backend.xp.astype(input._data, native_dtype), input._backend,
                          (input,))


finishers.to_native = to_native


def to_dtype(input: Tensor, dtype: _dt.dtype) -> Tensor:
    """``input`` converted to ``dtype`` (no-op when it already has it)."""
    return to_native(input, input._backend.native_dtype(dtype))


def cast_data(t: Tensor, d: _dt.dtype) -> Tensor:
    """``t``'s native array converted to dtype ``d`` (no copy when it already is)."""
    backend = t._backend
    native = backend.native_dtype(d)
    data = t._data
    if data.dtype == native:
        return data
    return backend.xp.astype(data, native)


def to_float_data(t: Tensor) -> Tensor:
    """``t``'s array, converted to the default float dtype if it is integer or bool."""
    if t._data.dtype in t._backend.floating_natives:
        return t._data
    return cast_data(t, _dt.get_default_dtype())


def full_like_scalar(like: Tensor, value: Any) -> Tensor:
    """A 0-dim tensor holding ``value`` in ``like``'s dtype and device."""
    backend = like._backend
    return Tensor._wrap(backend.xp.asarray(value, dtype=like._data.dtype), backend)
