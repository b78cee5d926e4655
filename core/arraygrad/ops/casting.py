"""Dtype conversion of tensors and arrays: ``to_native``/``to_dtype`` (differentiable casts)
and the array-level helpers ops use before computing."""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.ops.rule import ELEMENTWISE, defop, finishers, identity
from arraygrad.tensor import Tensor


__all__ = ["to_native", "to_dtype", "convert", "cast_data", "to_float_data", "full_like_scalar",
           "opmath_apply", "computed_in_float32", "unary_float_data", "in_opmath"]



# PyTorch's node for dtype casts (``_to_copy``); the gradient's cast back to the input's
# dtype is the recorder's. Device moves record the same node name (``ops.transfer``).
TO_COPY = defop("ToCopyBackward0", jvp=ELEMENTWISE, vjp=(identity,), complex=True)


def convert(backend: Any, data: Any, native_dtype: Any) -> Any:
    """``data`` as ``native_dtype``: a complex array to a real dtype keeps its real part (what
    the standard leaves undefined, and PyTorch does)."""
    xp = backend.xp
    if data.dtype in backend.complex_natives and native_dtype not in backend.complex_natives:
        data = xp.real(data)
        if data.dtype == native_dtype:
            return xp.asarray(data, copy=True)
    return xp.astype(data, native_dtype)


def to_native(input: Tensor, native_dtype: Any) -> Tensor:
    """``input`` converted to a native dtype of its backend (differentiable; complex to real
    keeps the real part, whose gradient is the real part of the complex one's: the cast
    back of a real input's gradient, ``finish_grad``)."""
    if input._data.dtype == native_dtype:
        return input
    return TO_COPY.record(convert(input._backend, input._data, native_dtype), input._backend,
                          (input,))


finishers.to_native = to_native
finishers.convert = convert


def to_dtype(input: Tensor, dtype: _dt.dtype) -> Tensor:
    """``input`` converted to ``dtype`` (no-op when it already has it); complex to real warns
    as PyTorch does, and keeps the real part."""
    if dtype.is_complex or not input._data.dtype in input._backend.complex_natives:
        return to_native(input, input._backend.native_dtype(dtype))
    import warnings

    warnings.warn("Casting complex values to real discards the imaginary part", UserWarning,
                  stacklevel=3)
    return to_native(input, input._backend.native_dtype(dtype))


def cast_data(t: Tensor, d: _dt.dtype) -> Tensor:
    """``t``'s native array converted to dtype ``d`` (no copy when it already is)."""
    backend = t._backend
    native = backend.native_dtype(d)
    data = t._data
    if data.dtype == native:
        return data
    return convert(backend, data, native)


def to_float_data(t: Tensor) -> Tensor:
    """``t``'s array, converted to the default float dtype if it is integer or bool (a complex
    one as it is)."""
    if t._data.dtype in t._backend.differentiable_natives:
        return t._data
    return cast_data(t, _dt.get_default_dtype())


def full_like_scalar(like: Tensor, value: Any) -> Tensor:
    """A 0-dim tensor holding ``value`` in ``like``'s dtype and device."""
    backend = like._backend
    return Tensor._wrap(backend.xp.asarray(value, dtype=like._data.dtype), backend)


def opmath_apply(backend: Any, fn: Any, data: Any) -> Any:
    """``fn(data)`` for float16/bfloat16 ``data`` as PyTorch's CPU kernels compute it: in
    float32 (their ``opmath`` type), the result rounded once to ``data``'s dtype (intermediate
    roundings would differ from PyTorch's by an ulp, and NumPy widens bfloat16 next to
    Python numbers)."""
    xp = backend.xp
    out = fn(xp.astype(data, backend.native_dtype(_dt.float32)))
    return xp.astype(out, data.dtype)


def computed_in_float32(input: Tensor, fn: Any, *others: Any) -> Any:
    """``fn(input, *others)`` for a composite op (``gelu``, ``layer_norm``...): a float16 or
    bfloat16 ``input`` (and its floating tensor companions ``others``) is computed in float32
    and the result converted back once, as PyTorch's fused CPU kernels do (differentiably:
    the gradients come back through the casts in the input's dtype). Other dtypes: ``fn``
    itself."""
    d = input.dtype
    if d is not _dt.float16 and d is not _dt.bfloat16:
        return fn(input, *others)
    wide = [o if not isinstance(o, Tensor) or not o.dtype.is_floating_point
            else to_dtype(o, _dt.float32) for o in others]
    return to_dtype(fn(to_dtype(input, _dt.float32), *wide), d)


def unary_float_data(input: Tensor, forward: Any, reduced: Any = None) -> Any:
    """``forward(xp, array)`` of a float unary op on ``input``: integer and bool inputs in the
    default float dtype (PyTorch), float16/bfloat16 in float32 rounded once (``opmath_apply``,
    with ``reduced`` as the forward there when given)."""
    backend = input._backend
    data = input._data
    xp = backend.xp
    if data.dtype in backend.wide_floating_natives or data.dtype in backend.complex_natives:
        return forward(xp, data)
    if data.dtype in backend.reduced_floating_natives:
        fn = reduced or forward
        return opmath_apply(backend, lambda a: fn(xp, a), data)
    return forward(xp, to_float_data(input))


def in_opmath(backend: Any, fn: Any, *arrays: Any) -> Any:
    """``fn(*arrays)`` for an op's array formula with Python numbers in it: float16/bfloat16
    arrays computed in float32 and the result rounded once to their dtype, as PyTorch's
    kernels do (and NumPy would widen bfloat16 next to a number). Other arguments pass as
    they are; without a float16/bfloat16 array it is ``fn(*arrays)``."""
    reduced = backend.reduced_floating_natives
    low = next((a.dtype for a in arrays if getattr(a, "dtype", None) in reduced), None)
    if low is None:
        return fn(*arrays)
    xp = backend.xp
    f32 = backend.native_dtype(_dt.float32)
    out = fn(*(xp.astype(a, f32) if getattr(a, "dtype", None) == low else a for a in arrays))
    return xp.astype(out, low)
