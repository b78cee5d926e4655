"""A float's parts: ``frexp`` (mantissa and exponent), ``ldexp`` (``input * 2**other``) and
``nextafter`` (the next representable value towards ``other``), as PyTorch has them.

The standard has no ``frexp``: the exponent is ``floor(log2|x|) + 1``, corrected by one where
``log2`` rounded across a power of two, and the mantissa is ``x`` divided by that power of two
in two exact steps (one power could overflow at the ends of float64's range). The work is
done in float64 where the backend has it (a float32 or float16 mantissa is then exact).
"""

from __future__ import annotations

import math
from typing import Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.ops.families._select import named
from arraygrad.ops.promotion import operands as _operands
from arraygrad.ops.casting import in_opmath
from arraygrad.ops.rule import ELEMENTWISE, VIA_VJP, defop, identity
from arraygrad.tensor import Tensor

__all__ = ["frexp", "ldexp", "nextafter", "FUNCTIONS", "METHODS", "INPLACE"]

_LN2 = math.log(2.0)


def _scale_down(xp: Any, x: Any, e: Any) -> Any:
    """``x / 2**e`` exactly, in two halves so that neither power overflows."""
    half = xp.floor(e / 2.0)
    return (x / xp.pow(2.0, half)) / xp.pow(2.0, e - half)


def _frexp_arrays(xp: Any, x: Any) -> tuple[Any, Any]:
    """``(mantissa, exponent)`` of float array ``x`` (0.5 <= |mantissa| < 1; zeros, infs and
    NaNs are their own mantissa with exponent 0, as C's ``frexp``)."""
    regular = xp.isfinite(x) & (x != 0)
    safe = xp.where(regular, xp.abs(x), xp.ones_like(x))
    e = xp.floor(xp.log2(safe)) + 1.0
    m = _scale_down(xp, safe, e)
    e = xp.where(m >= 1.0, e + 1.0, xp.where(m < 0.5, e - 1.0, e))  # log2 rounded across 2**k
    m = _scale_down(xp, safe, e)
    m = xp.where(regular, xp.where(x < 0, -m, m), x)
    return m, xp.where(regular, e, xp.zeros_like(e))


FREXP = defop("FrexpBackward0", jvp=VIA_VJP, params=("exponent",), outputs=2,
              vjp=(lambda grads, n: grads[0] / n.exponent.exp2(),))


def frexp(input: Tensor) -> Any:
    """``(mantissa, exponent)`` with ``input = mantissa * 2**exponent``, ``0.5 <= |mantissa| <
    1`` (``torch.return_types.frexp``; the exponent is int32). Floating inputs only."""
    if not isinstance(input, Tensor):
        raise TypeError(f"frexp(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    backend = input._backend
    xp = backend.xp
    work = backend.native_dtype(_dt.float64 if _dt.float64 in backend.supported_dtypes()
                                else input.dtype)
    m, e = _frexp_arrays(xp, xp.astype(input._data, work))
    exponent = Tensor._wrap(xp.astype(e, backend.native_dtype(_dt.int32)), backend)
    mantissa_data = xp.astype(m, input._data.dtype)
    mantissa, exponent = FREXP.record_many(
        [mantissa_data, exponent._data], backend, (input,), differentiable=(True, False),
        exponent=exponent.to(input.dtype))
    return named("frexp", ("mantissa", "exponent"))(mantissa, exponent)


LDEXP = defop("LdexpBackward0", jvp=ELEMENTWISE, inputs=("self", "other"),
              saves=("other", "result"),
              vjp=(lambda g, n: g * n.other.exp2(), lambda g, n: g * n.result * _LN2))


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """``input * 2**other`` elementwise (integers compute in the default float dtype)."""
    for pos, (arg, value) in enumerate((("input", input), ("other", other)), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(f"ldexp(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(value).__name__}")
    backend, a, b, _, _ = _operands("ldexp", input, other, floating=True)
    xp = backend.xp
    data = in_opmath(backend, lambda p, q: p * xp.pow(2.0, q), a, b)  # bfloat16: in float32
    return LDEXP.record(data, backend, (input, other))


NEXTAFTER = defop("NextafterBackward0", jvp=ELEMENTWISE, inputs=("self", "other"),
                  vjp=(identity, lambda g, n: g * 0))


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """The next float after ``input`` towards ``other``, elementwise (floating tensors)."""
    for pos, (arg, value) in enumerate((("input", input), ("other", other)), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(f"nextafter(): argument '{arg}' (position {pos}) must be Tensor, "
                            f"not {type(value).__name__}")
    backend, a, b, _, _ = _operands("nextafter", input, other)
    d = _dt.result_type(input, other)
    if not d.is_floating_point:
        raise NotImplementedError(f"\"nextafter_cpu\" not implemented for "
                                  f"'{_dt.scalar_type_name(d)}'")
    return NEXTAFTER.record(backend.xp.nextafter(a, b), backend, (input, other))


FUNCTIONS: dict[str, Callable[..., Any]] = {"frexp": frexp, "ldexp": ldexp, "nextafter": nextafter}
METHODS: dict[str, Callable[..., Any]] = dict(FUNCTIONS)
INPLACE: dict[str, Callable[..., Any]] = {"ldexp_": ldexp, "nextafter_": nextafter}
