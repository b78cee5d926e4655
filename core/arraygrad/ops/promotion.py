"""Type promotion of an elementwise op's operands: tensors and Python numbers to one dtype
on one backend, as PyTorch's rules give (``dtypes.result_type``)."""

from __future__ import annotations

from numbers import Integral, Number
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.ops import fast as _fast
from arraygrad.ops.broadcast import broadcast_shapes
from arraygrad.backends.scalar_operands import scalar_operand
from arraygrad.backends.stacking import outer_backend
from arraygrad.ops.casting import cast_data
from arraygrad.ops.host_operands import host_array, host_scalar, promoted_pair
from arraygrad.tensor import Tensor


__all__ = ["operands", "same_backend", "scalar_in_opmath", "mixed_devices_message"]

_scalar_types = (int, float, bool, complex)
_INT64 = 1 << 63


def same_backend(op: str, *tensors: Tensor) -> Any:
    """The one backend of ``tensors`` (inside vmap: the innermost level's, see
    ``outer_backend``); RuntimeError naming both devices if they differ."""
    backend = tensors[0]._backend
    for t in tensors[1:]:
        if t._backend is not backend:
            outer = outer_backend(backend, t._backend)
            if outer is not None:
                backend = outer
                continue
            raise RuntimeError(mixed_devices_message(op, tensors[0].device, t.device))
    return backend


def mixed_devices_message(op: str, expected: Any, found: Any) -> str:
    """PyTorch's message for an op given tensors on two devices: its meta kernels' when one
    is ``meta``, else its device-guard's."""
    if "meta" in (expected.type, found.type):
        return f"{op}: Tensor on device {found} is not on the expected device {expected}!"
    return (f"{op}: Expected all tensors to be on the same device, but found at least two "
            f"devices, {expected} and {found}!")


def operands(op: str, a: Tensor, b: Tensor, floating: bool = False) -> Any:
    """Promote ``a``, ``b`` (tensors or Python scalars) to one dtype on one backend.

    Returns ``(backend, a_data, b_data, ta, tb)`` where ``ta``/``tb`` are the
    tensor operands (None for scalars) and the data are native arrays or scalars.
    ``floating``: the result dtype is at least the default float (true division).
    """
    if not floating:
        found = _fast.operands(a, b)
        if found is not None:
            return found
    ta = a if isinstance(a, Tensor) else None
    tb = b if isinstance(b, Tensor) else None
    if ta is not None and tb is not None:
        backend = ta._backend
        if tb._backend is not backend:
            backend = same_backend(op, ta, tb)
        sa, sb = ta._data.shape, tb._data.shape
        if sa != sb:
            broadcast_shapes(op, sa, sb)
        if ta._data.dtype == tb._data.dtype and not floating:
            return backend, ta._data, tb._data, ta, tb
    elif ta is None and tb is None:
        raise TypeError(f"{op}: expected at least one Tensor operand")
    else:
        other = b if ta is not None else a
        if not isinstance(other, _scalar_types):
            if isinstance(other, Number):  # a NumPy scalar: the Python number of its kind
                other = int(other) if isinstance(other, Integral) else float(other)
                if ta is not None:
                    b = other
                else:
                    a = other
            elif host_array(other):  # a NumPy array: both in NumPy's result dtype, as PyTorch
                return operands(op, *promoted_pair(op, a, b, floating), floating)
            else:
                number = host_scalar(other)  # np.bool_ and the other NumPy scalars
                if number is None:
                    raise TypeError(f"{op}: unsupported operand type {type(other).__name__} "
                                    "(expected Tensor or number)")
                if ta is not None:
                    b = number
                else:
                    a = number
        backend = (ta if ta is not None else tb)._backend
    d = _dt.result_type(a, b)
    if floating and not (d.is_floating_point or d.is_complex):
        d = _dt.get_default_dtype()
    ad = cast_data(ta, d) if ta is not None else _scalar_as(a, d, backend)
    bd = cast_data(tb, d) if tb is not None else _scalar_as(b, d, backend)
    return backend, ad, bd, ta, tb


def _kept(value: Any) -> bool:
    """Whether a Python scalar is passed on as it is: a live scalar of ``arraygrad.compile``
    (a float that carries how to compute it again: converting it would read its value into
    Python, a guard)."""
    return value.__class__ is not float and getattr(value, "live_operand", False)


def _scalar_as(value: Any, d: Any, backend: Any) -> Any:
    """A Python scalar converted to the kind of ``d`` (the standard wants matching kinds)."""
    if d.is_complex:
        return value if _kept(value) else complex(value)
    if d.is_floating_point:
        if _kept(value):
            return value
        if value.__class__ is not float and isinstance(value, float):
            value = float.__float__(value)  # (a live scalar after a graph break: its number)
        if d is _dt.bfloat16:  # a 0-d bfloat16: the number rounded, as PyTorch casts it
            return scalar_operand(backend, float(value), backend.native_dtype(d))
        return float(value)
    if d is _dt.bool:
        return bool(value)
    value = int(value)
    if d is _dt.int64 and -_INT64 <= value < _INT64:  # the common case
        return value
    return _dt.wrap_integer(value, d)  # ``uint8 + 300`` wraps, as PyTorch's kernels


def scalar_in_opmath(backend: Any, fn: Any, ad: Any, bd: Any, a: Any, b: Any) -> Any:
    """``fn(ad, bd)`` (``mul``, ``div``), as PyTorch computes a float16/bfloat16 tensor times
    or over a number or a 0-dim tensor ``b``: in float32 (its ``opmath`` type) with ``b``'s
    value unrounded, the result rounded once (``x * 2.3`` does not round 2.3 first). Other
    operands: ``fn(ad, bd)`` itself."""
    if not isinstance(a, Tensor) or not backend.reduced_floating_natives:
        return fn(ad, bd)
    if isinstance(b, Tensor):
        if b._data.ndim:
            return fn(ad, bd)
        value = b._data
    elif isinstance(b, Number) and not isinstance(b, bool):
        value = b
    else:
        return fn(ad, bd)
    native = ad.dtype
    if native not in backend.reduced_floating_natives:
        return fn(ad, bd)
    xp = backend.xp
    f32 = backend.native_dtype(_dt.float32)
    wide = xp.asarray(value, dtype=f32) if not hasattr(value, "dtype") else xp.astype(value, f32)
    return xp.astype(fn(xp.astype(ad, f32), wide), native)
