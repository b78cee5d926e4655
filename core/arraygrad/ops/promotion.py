"""Type promotion of an elementwise op's operands: tensors and Python numbers to one dtype
on one backend, as PyTorch's rules give (``dtypes.result_type``)."""

from __future__ import annotations

from numbers import Integral, Number
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.compiler.scalars import LiveScalar
from arraygrad.ops import fast as _fast
from arraygrad.ops.broadcast import broadcast_shapes
from arraygrad.backends.stacking import outer_backend
from arraygrad.ops.casting import cast_data
from arraygrad.tensor import Tensor


__all__ = ["operands", "same_backend"]

_scalar_types = (int, float, bool)


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
            raise RuntimeError(
                f"{op}: Expected all tensors to be on the same device, but found at least two "
                f"devices, {tensors[0].device} and {t.device}!")
    return backend


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
            else:
                raise TypeError(
                    f"{op}: unsupported operand type {type(other).__name__} (expected Tensor or number)")
        backend = (ta if ta is not None else tb)._backend
    d = _dt.result_type(a, b)
    if floating and not d.is_floating_point:
        d = _dt.get_default_dtype()
    ad = cast_data(ta, d) if ta is not None else _scalar_as(a, d)
    bd = cast_data(tb, d) if tb is not None else _scalar_as(b, d)
    return backend, ad, bd, ta, tb


def _scalar_as(value: Any, d: Any) -> Any:
    """A Python scalar converted to the kind of ``d`` (the standard wants matching kinds)."""
    if d.is_floating_point:
        # a live scalar (only while arraygrad.compile records) stays one, so the recorder
        # sees it as an operand and reads it afresh at replay
        return value if value.__class__ is LiveScalar else float(value)
    if d is _dt.bool:
        return bool(value)
    return int(value)
