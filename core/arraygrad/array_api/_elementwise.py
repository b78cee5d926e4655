"""The standard's element-wise functions over arraygrad's differentiable ops: binary functions
promote by the standard's rules (``_promotion``) and take Python scalars for either operand;
the names and semantics that differ from PyTorch's (``equal``, ``bitwise_invert``, ``sign``
of complex numbers, ``clip`` with array bounds, ``round`` of complex numbers) are mapped
here."""

from __future__ import annotations

from math import inf, nan
from typing import Any, Callable

import arraygrad as _ag
from arraygrad.array_api._promotion import as_operand, promote_pair
from arraygrad.tensor import Tensor

__all__ = ["BINARY", "UNARY", "sign", "expm1", "tanh", "floor_divide", "clip", "round", "real",
           "imag", "conj"]


def _binary(fn: Callable[..., Tensor], name: str) -> Callable[..., Tensor]:
    def function(x1: Any, x2: Any, /) -> Tensor:
        a, b = promote_pair(x1, x2)
        return fn(a, b)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"The standard's ``{name}``: ``arraygrad.{fn.__name__}`` after the " \
        "standard's type promotion (Python scalars allowed on either side)."
    return function


def _unary(fn: Callable[..., Tensor], name: str) -> Callable[..., Tensor]:
    def function(x: Tensor, /) -> Tensor:
        return fn(x)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"The standard's ``{name}``: ``arraygrad.{fn.__name__}``."
    return function


# the standard's name -> arraygrad's function
_BINARY_OPS = {
    "add": _ag.add, "atan2": _ag.atan2, "bitwise_and": _ag.bitwise_and,
    "bitwise_left_shift": _ag.bitwise_left_shift, "bitwise_or": _ag.bitwise_or,
    "bitwise_right_shift": _ag.bitwise_right_shift, "bitwise_xor": _ag.bitwise_xor,
    "copysign": _ag.copysign, "divide": _ag.divide, "equal": _ag.eq,
    "greater": _ag.gt, "greater_equal": _ag.ge,
    "hypot": _ag.hypot, "less": _ag.lt, "less_equal": _ag.le, "logaddexp": _ag.logaddexp,
    "logical_and": _ag.logical_and, "logical_or": _ag.logical_or,
    "logical_xor": _ag.logical_xor, "maximum": _ag.maximum, "minimum": _ag.minimum,
    "multiply": _ag.mul, "nextafter": _ag.nextafter, "not_equal": _ag.ne, "pow": _ag.pow,
    "remainder": _ag.remainder, "subtract": _ag.sub,
}
_UNARY_OPS = {
    "abs": _ag.abs, "acos": _ag.acos, "acosh": _ag.acosh, "asin": _ag.asin,
    "asinh": _ag.asinh, "atan": _ag.atan, "atanh": _ag.atanh, "bitwise_invert": _ag.bitwise_not,
    "ceil": _ag.ceil, "cos": _ag.cos, "cosh": _ag.cosh, "exp": _ag.exp,
    "floor": _ag.floor, "isfinite": _ag.isfinite, "isinf": _ag.isinf, "isnan": _ag.isnan,
    "log": _ag.log, "log1p": _ag.log1p, "log2": _ag.log2, "log10": _ag.log10,
    "logical_not": _ag.logical_not, "negative": _ag.neg, "positive": _ag.positive,
    "reciprocal": _ag.reciprocal, "signbit": _ag.signbit, "sin": _ag.sin, "sinh": _ag.sinh,
    "square": _ag.square, "sqrt": _ag.sqrt, "tan": _ag.tan, "trunc": _ag.trunc,
}
BINARY = {name: _binary(fn, name) for name, fn in _BINARY_OPS.items()}
UNARY = {name: _unary(fn, name) for name, fn in _UNARY_OPS.items()}


def sign(x: Tensor, /) -> Tensor:
    """The sign; of a complex number ``x / |x|`` (PyTorch's ``sgn``), of NaN NaN, as the
    standard says."""
    if x.dtype.is_complex:
        return _ag.sgn(x)
    out = _ag.sign(x)
    return _ag.where(_ag.isnan(x), x, out) if x.dtype.is_floating_point else out


def _special(x: Tensor, out: Tensor, mask: Tensor, b: Tensor, re: float, im: float) -> Tensor:
    """``out`` with ``re + im j`` where ``mask`` holds, the imaginary zero or infinity taking
    ``b``'s sign (the values are constants: ``arraygrad.complex`` of an infinite or NaN part
    is built by a multiplication that turns it into NaN)."""
    def constant(imag: float) -> Tensor:
        return _ag.tensor(complex(re, imag), dtype=x.dtype, device=x.device)

    value = _ag.where(_ag.signbit(b), constant(-im), constant(im))
    return _ag.where(mask, value, out)


def expm1(x: Tensor, /) -> Tensor:
    """``exp(x) - 1``; of a complex number with the standard's special values: a complex zero
    gives ``+0 + 0j`` whatever the sign of its real part (NumPy's gives ``-0`` for
    ``-0 + 0j``), and infinite or NaN parts the limits the standard lists (NumPy's gives NaN
    parts there)."""
    out = _ag.expm1(x)
    if not x.dtype.is_complex:
        return out
    # adding +0 - 0j turns a real part's -0 into +0 and keeps the imaginary part's sign
    out = _ag.add(out, complex(0.0, -0.0))
    a, b = _ag.real(x), _ag.imag(x)
    up, down, unbounded, zero_b = a == inf, a == -inf, ~_ag.isfinite(b), b == 0
    out = _special(x, out, up & zero_b, b, inf, 0.0)          # +inf + 0j, b's sign kept
    out = _special(x, out, down & unbounded, b, -1.0, 0.0)    # -1 + 0j
    out = _special(x, out, up & unbounded, b, inf, nan)       # inf + NaN j
    return _special(x, out, _ag.isnan(a) & zero_b, b, nan, 0.0)  # NaN + 0j


def tanh(x: Tensor, /) -> Tensor:
    """The hyperbolic tangent; of a complex number with an infinite real part and a finite
    imaginary part ``b``, ``±1 + 0j`` with the zero's sign that of ``b`` (the standard's
    value; NumPy's sign of that zero follows ``sin(2b)``)."""
    out = _ag.tanh(x)
    if not x.dtype.is_complex:
        return out
    a, b = _ag.real(x), _ag.imag(x)
    limit = _ag.isfinite(b)
    out = _special(x, out, (a == inf) & limit, b, 1.0, 0.0)
    return _special(x, out, (a == -inf) & limit, b, -1.0, 0.0)


def floor_divide(x1: Any, x2: Any, /) -> Tensor:
    """The floor of the quotient; with an infinite operand ``floor(x1 / x2)``, as the
    standard's special cases say (PyTorch's, Python's, give NaN and -1 there)."""
    a, b = promote_pair(x1, x2)
    if not a.dtype.is_floating_point:
        return _ag.floor_divide(a, b)
    infinite = _ag.isinf(a) | _ag.isinf(b)
    one = _ag.ones_like(a)  # in place of the infinities, whose quotient is taken apart
    out = _ag.floor_divide(_ag.where(infinite, one, a), _ag.where(infinite, one, b))
    return _ag.where(infinite, _ag.floor(_ag.div(a, b)), out)


def round(x: Tensor, /) -> Tensor:  # noqa: A001
    """Rounding half to even; a complex number's parts are rounded apart."""
    if x.dtype.is_complex:
        return _ag.complex(_ag.round(_ag.real(x)), _ag.round(_ag.imag(x)))
    return _ag.round(x)


def clip(x: Tensor, /, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """``x`` limited to ``[min, max]`` (arrays or scalars, either may be None); the result
    keeps ``x``'s dtype, as the standard says."""
    if min is None and max is None:
        return x.clone()
    out = x
    if min is not None:
        out = _ag.maximum(out, as_operand(min, x, x.dtype))
    if max is not None:
        out = _ag.minimum(out, as_operand(max, x, x.dtype))
    return out


def real(x: Tensor, /) -> Tensor:
    """The real part (a real array is its own real part)."""
    return _ag.real(x) if x.dtype.is_complex else x


def imag(x: Tensor, /) -> Tensor:
    """The imaginary part (zeros for a real array)."""
    return _ag.imag(x) if x.dtype.is_complex else _ag.zeros_like(x)


def conj(x: Tensor, /) -> Tensor:
    """The complex conjugate, materialised (a real array is returned as is)."""
    return _ag.conj_physical(x) if x.dtype.is_complex else x
