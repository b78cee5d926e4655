"""The standard's data type functions beside promotion: ``astype`` (with ``copy=``),
``isdtype`` (kinds by name) and ``finfo``/``iinfo`` taking arrays as well as dtypes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.ops.families.dtype_queries import finfo as _finfo, iinfo as _iinfo
from arraygrad.tensor import Tensor

__all__ = ["astype", "isdtype", "finfo", "iinfo"]

_KINDS = {
    "bool": lambda d: d == _dt.bool,
    "signed integer": lambda d: d in (_dt.int8, _dt.int16, _dt.int32, _dt.int64),
    "unsigned integer": lambda d: d in (_dt.uint8, _dt.uint16, _dt.uint32, _dt.uint64),
    "real floating": lambda d: d.is_floating_point and not d.is_complex,
    "complex floating": lambda d: d.is_complex,
}
_KINDS["integral"] = lambda d: _KINDS["signed integer"](d) or _KINDS["unsigned integer"](d)
_KINDS["numeric"] = lambda d: d != _dt.bool


def isdtype(dtype: _dt.dtype, kind: Any) -> bool:
    """Whether ``dtype`` is of ``kind``: a dtype, a kind's name or a tuple of either."""
    if not isinstance(dtype, _dt.dtype):
        raise TypeError(f"isdtype() expected a dtype, got {type(dtype).__name__}")
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, _dt.dtype):
        return dtype == kind
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError(f"unknown data type kind {kind!r}")
        return bool(_KINDS[kind](dtype))
    raise TypeError(f"isdtype() kind must be a dtype, a str or a tuple, got {type(kind).__name__}")


def astype(x: Tensor, dtype: _dt.dtype, /, *, copy: bool = True, device: Any = None) -> Tensor:
    """``x`` cast to ``dtype`` (and moved to ``device``); ``copy=False`` returns ``x`` itself
    when nothing changes, as the standard says (PyTorch's ``.to`` never copies then)."""
    out = x.to(dtype=dtype) if device is None else x.to(device=device, dtype=dtype)
    if copy and out is x:
        out = x.clone()
    return out


@dataclass(frozen=True)
class finfo_object:
    """The standard's machine limits of a floating type (of the parts, for a complex one)."""
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: _dt.dtype


@dataclass(frozen=True)
class iinfo_object:
    """The standard's machine limits of an integer type."""
    bits: int
    max: int
    min: int
    dtype: _dt.dtype


def _dtype_of(type: Any) -> Any:
    return type.dtype if isinstance(type, Tensor) else type


def finfo(type: Any, /) -> finfo_object:
    """Machine limits of a floating dtype or of an array's (a complex type: of its parts)."""
    d = _dtype_of(type)
    if d == _dt.complex64:
        d = _dt.float32
    elif d == _dt.complex128:
        d = _dt.float64
    f = _finfo(d)
    return finfo_object(f.bits, float(f.eps), float(f.max), float(f.min),
                        float(f.smallest_normal), d)


def iinfo(type: Any, /) -> iinfo_object:
    """Machine limits of an integer dtype or of an array's."""
    d = _dtype_of(type)
    i = _iinfo(d)
    return iinfo_object(i.bits, int(i.max), int(i.min), d)
