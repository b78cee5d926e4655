"""Questions about dtypes and tensors that compute nothing: ``finfo``, ``iinfo``,
``result_type``, ``can_cast``, ``is_floating_point``, ``is_complex``, ``is_nonzero``.

``finfo``/``iinfo`` are written from the IEEE 754 and two's-complement definitions rather
than asked of a backend, so they answer the same on every backend (and need none loaded).
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.tensor import Tensor

__all__ = ["finfo", "iinfo", "result_type", "can_cast", "is_floating_point", "is_complex",
           "is_nonzero"]

# (bits, mantissa bits, largest exponent, resolution) of each floating dtype
_FLOAT_LAYOUT = {"float16": (16, 10, 15, 1e-3), "bfloat16": (16, 7, 127, 0.01),
                 "float32": (32, 23, 127, 1e-6), "float64": (64, 52, 1023, 1e-15)}


def _short(value: float) -> str:
    return f"{value:.6g}"


class finfo:
    """Machine limits of a floating dtype (a complex one's parts), as ``torch.finfo`` (the
    default dtype when none):
    ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (= ``smallest_normal``), ``resolution`` and
    ``dtype`` (its name, as PyTorch gives it)."""

    bits: int
    eps: float
    max: float
    min: float
    tiny: float
    smallest_normal: float
    resolution: float
    dtype: str

    def __init__(self, type: _dt.dtype | None = None) -> None:
        d = _dt.get_default_dtype() if type is None else type
        if isinstance(d, _dt.dtype):
            d = d.to_real()  # complex64's limits are float32's, as PyTorch gives them
        if not isinstance(d, _dt.dtype) or d.name not in _FLOAT_LAYOUT:
            raise TypeError("finfo() requires a floating point input type. Use iinfo to "
                            "handle 'finfo'")
        bits, mantissa, emax, resolution = _FLOAT_LAYOUT[d.name]
        self.bits = bits
        self.eps = 2.0 ** -mantissa
        self.max = sys.float_info.max if d.name == "float64" else (2.0 - self.eps) * 2.0 ** emax
        self.min = -self.max
        self.tiny = self.smallest_normal = 2.0 ** (1 - emax)
        self.resolution = resolution
        self.dtype = d.name

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={_short(self.min)}, "
                f"max={_short(self.max)}, eps={_short(self.eps)}, "
                f"smallest_normal={_short(self.smallest_normal)}, tiny={_short(self.tiny)}, "
                f"dtype={self.dtype})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    __hash__ = None  # type: ignore[assignment]  # as PyTorch's: comparable, not hashable


class iinfo:
    """Limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``max``, ``min``, ``dtype``."""

    bits: int
    max: int
    min: int
    dtype: str

    def __init__(self, type: _dt.dtype) -> None:
        if isinstance(type, _dt.dtype) and type is _dt.bool:
            raise TypeError("arraygrad.bool is not supported by iinfo")
        if not isinstance(type, _dt.dtype) or type.is_floating_point or type.is_complex:
            raise TypeError("iinfo() requires an integer input type. Use finfo to handle "
                            "'iinfo'")
        self.bits = 8 * type.itemsize
        if type.is_signed:
            self.max = 2 ** (self.bits - 1) - 1
            self.min = -(2 ** (self.bits - 1))
        else:
            self.max = 2 ** self.bits - 1
            self.min = 0
        self.dtype = type.name

    def __repr__(self) -> str:
        return f"iinfo(min={_short(self.min)}, max={_short(self.max)}, dtype={self.dtype})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    __hash__ = None  # type: ignore[assignment]


def result_type(tensor: Any = None, other: Any = None, *, scalar: Any = None,
                scalar1: Any = None, scalar2: Any = None) -> _dt.dtype:
    """The dtype of an arithmetic op on ``tensor`` and ``other`` (tensors or Python numbers),
    by PyTorch's promotion rules (``torch.result_type``); its overloads' keyword names too:
    ``result_type(scalar=2, tensor=t)``, ``result_type(scalar1=1, scalar2=2.0)``."""
    if scalar1 is not None or scalar2 is not None:
        tensor, other = scalar1, scalar2
    elif scalar is not None:
        tensor, other = scalar, tensor
    for arg in (tensor, other):
        if not isinstance(arg, (Tensor, bool, int, float, complex)):
            raise TypeError(f"result_type(): expected a Tensor or a number, got "
                            f"{type(arg).__name__}")
    return _dt.result_type(tensor, other)


def can_cast(from_: _dt.dtype, to: _dt.dtype) -> bool:
    """Whether PyTorch's casting rule allows ``from_`` -> ``to`` in type promotion: never to a
    lower category (complex -> float, float -> integer, integer -> bool); any width within a
    category."""
    for arg in (from_, to):
        if not isinstance(arg, _dt.dtype):
            raise TypeError(f"can_cast(): argument must be a dtype, not {type(arg).__name__}")
    return from_.category <= to.category


def is_floating_point(input: Tensor) -> bool:
    """Whether ``input``'s dtype is a floating-point dtype."""
    _check_tensor("is_floating_point", input)
    return input.dtype.is_floating_point


def is_complex(input: Tensor) -> bool:
    """Whether ``input``'s dtype is complex (``complex64``, ``complex128``)."""
    _check_tensor("is_complex", input)
    return input.dtype.is_complex


def is_nonzero(input: Tensor) -> bool:
    """Whether the one element of ``input`` is nonzero (RuntimeError for none or several)."""
    _check_tensor("is_nonzero", input)
    n = input.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item() != 0)


def _check_tensor(name: str, input: Any) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "finfo": finfo, "iinfo": iinfo, "result_type": result_type, "can_cast": can_cast,
    "is_floating_point": is_floating_point, "is_complex": is_complex, "is_nonzero": is_nonzero,
}
METHODS: dict[str, Callable[..., Any]] = {"is_complex": is_complex, "is_nonzero": is_nonzero}
