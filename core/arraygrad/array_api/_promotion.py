"""The standard's type promotion (Array API 2024.12), which is not PyTorch's in two places:
unsigned with signed integers of 16 bits and more (PyTorch refuses ``uint16 + int16``; the
standard gives ``int32``) and Python scalars in ``result_type``. Mixed kinds (integer with
floating), which the standard leaves to the library, follow arraygrad's (PyTorch's) rule."""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.tensor import Tensor

__all__ = ["result_type", "can_cast", "promote_pair", "as_operand"]

_SIGNED = {8: _dt.int8, 16: _dt.int16, 32: _dt.int32, 64: _dt.int64}
_UNSIGNED = {8: _dt.uint8, 16: _dt.uint16, 32: _dt.uint32, 64: _dt.uint64}
_COMPLEX = {64: _dt.complex64, 128: _dt.complex128}


def _kind(d: _dt.dtype) -> str:
    if d == _dt.bool:
        return "b"
    if d.is_complex:
        return "c"
    if d.is_floating_point:
        return "f"
    return "u" if d in _UNSIGNED.values() else "i"


def _bits(d: _dt.dtype) -> int:
    return d.itemsize * 8


def _pair(a: _dt.dtype, b: _dt.dtype) -> _dt.dtype:
    """The promoted type of two dtypes (TypeError where the standard defines none)."""
    if a == b:
        return a
    ka, kb = _kind(a), _kind(b)
    if ka == kb and ka != "b":
        return a if _bits(a) >= _bits(b) else b
    if {ka, kb} == {"u", "i"}:
        u, i = (a, b) if ka == "u" else (b, a)
        if _bits(i) > _bits(u):
            return i
        if _bits(u) == 64:
            raise TypeError(f"{a} and {b} cannot be type promoted together")
        return _SIGNED[2 * _bits(u)]
    if {ka, kb} == {"f", "c"}:
        f, c = (a, b) if ka == "f" else (b, a)
        return _COMPLEX[max(2 * _bits(f), _bits(c))]
    if "b" in (ka, kb):
        raise TypeError(f"{a} and {b} cannot be type promoted together")
    return _dt.promote_types(a, b)  # integer with floating: the library's choice (PyTorch's)


def _scalar_dtype(value: Any, against: _dt.dtype | None) -> _dt.dtype | None:
    """A Python scalar's part in promotion: none where it fits the kind of ``against``."""
    if isinstance(value, bool):
        return None if against is not None else _dt.bool
    if isinstance(value, int):
        return None if against is not None and _kind(against) in "iufc" else _dt.int64
    if isinstance(value, float):
        return None if against is not None and _kind(against) in "fc" else _dt.get_default_dtype()
    if isinstance(value, complex):
        if against is not None and _kind(against) == "c":
            return None
        base = against if against is not None and _kind(against) == "f" else \
            _dt.get_default_dtype()
        return _COMPLEX[2 * _bits(base)]
    raise TypeError(f"result_type() got an unsupported argument of type {type(value).__name__}")


def result_type(*arrays_and_dtypes: Any) -> _dt.dtype:
    """The dtype that results from applying the standard's promotion rules to the arguments
    (arrays, dtypes and, since 2024.12, Python scalars)."""
    if not arrays_and_dtypes:
        raise ValueError("at least one array or dtype is required")
    dtypes = [a.dtype if isinstance(a, Tensor) else a for a in arrays_and_dtypes
              if isinstance(a, (Tensor, _dt.dtype))]
    scalars = [a for a in arrays_and_dtypes if not isinstance(a, (Tensor, _dt.dtype))]
    out: _dt.dtype | None = None
    for d in dtypes:
        out = d if out is None else _pair(out, d)
    for s in scalars:
        weak = _scalar_dtype(s, out)
        if weak is not None:
            out = weak if out is None else _pair(out, weak)
    assert out is not None
    return out


def can_cast(from_: Any, to: _dt.dtype, /) -> bool:
    """Whether ``from_`` (a dtype or an array) casts to ``to`` by the promotion rules."""
    source = from_.dtype if isinstance(from_, Tensor) else from_
    if not isinstance(source, _dt.dtype) or not isinstance(to, _dt.dtype):
        raise TypeError("can_cast() takes dtypes or arrays")
    if _kind(source) != _kind(to) and not (_kind(source) == "f" and _kind(to) == "c") and \
            not ({_kind(source), _kind(to)} == {"u", "i"}):
        return source == _dt.bool and to == _dt.bool
    try:
        return _pair(source, to) == to
    except TypeError:
        return False


def as_operand(value: Any, like: Tensor, dtype: _dt.dtype) -> Tensor:
    """``value`` (a tensor or a Python scalar) as a tensor of ``dtype`` on ``like``'s device."""
    if isinstance(value, Tensor):
        return value if value.dtype == dtype else value.to(dtype)
    from arraygrad.creation import tensor
    return tensor(value, dtype=dtype, device=like.device)


def promote_pair(x1: Any, x2: Any) -> tuple[Tensor, Tensor]:
    """Both operands of a binary function as tensors of their promoted dtype."""
    if not isinstance(x1, Tensor) and not isinstance(x2, Tensor):
        raise TypeError("at least one argument must be an array")
    like = x1 if isinstance(x1, Tensor) else x2
    dtype = result_type(x1, x2)
    return as_operand(x1, like, dtype), as_operand(x2, like, dtype)
