"""The error-function and logarithm family of special functions: ``erf``, ``erfc``,
``erfinv``, ``logit``, ``xlogy``, ``xlog1py`` and ``entr`` (``torch.erf`` ..., the ``Tensor``
methods and their in-place forms, and ``torch.special``'s), written with Array API functions
only: erf and erfc are Cody's (``ops._erf``), erfinv is Giles' single-precision approximation
refined by Newton steps on the erf residual (on ``log erfc`` in the tails).

A plugin may register faster kernels for erf/erfc/erfinv/entr (as arraygrad-special does with
SciPy/cupyx); a kernel that declines defers to these.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from arraygrad.ops._erf import (
    erf_data as _erf_data, erfc_data as _erfc_data, erfinv_data as _erfinv_data,
)
from arraygrad.ops._special._common import quieted
from arraygrad.ops import elementwise as ew
from arraygrad.ops.casting import to_float_data, unary_float_data
from arraygrad.ops.families._special_op import binary_op, check_tensor, unary_op
from arraygrad.ops.rule import ELEMENTWISE, defop
from arraygrad.tensor import Tensor

__all__ = ["FUNCTIONS", "METHODS", "INPLACE", "erf", "erfc", "erfinv", "logit", "xlogy",
           "xlog1py", "entr", "kernel_unary"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0

kernel_unary = unary_op  # the name nn._ops and plugins knew

ERF = defop("ErfBackward0", jvp=ELEMENTWISE, saves=("self",),
            vjp=(lambda g, n: g * (ew.exp(-(n.self * n.self)) * _TWO_OVER_SQRT_PI),))
erf = unary_op(
    "erf", ERF, _erf_data,
    "The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``, elementwise (a plugin's "
    "faster kernel, e.g. arraygrad-special's SciPy/cupyx one, when registered).")

ERFC = defop("ErfcBackward0", jvp=ELEMENTWISE, key="core.erfc", saves=("self",),
             vjp=(lambda g, n: g * (ew.exp(-(n.self * n.self)) * -_TWO_OVER_SQRT_PI),))
ERFINV = defop("ErfinvBackward0", jvp=ELEMENTWISE, key="core.erfinv", saves=("result",),
               vjp=(lambda g, n: g * (ew.exp(n.result * n.result) * _SQRT_PI_OVER_TWO),))


erfc = unary_op("erfc", ERFC, _erfc_data,
                      "The complementary error function ``1 - erf(x)``, accurate in the "
                      "right tail.")
erfinv = unary_op("erfinv", ERFINV, _erfinv_data,
                        "The inverse error function on ``[-1, 1]`` (+-inf at +-1, NaN "
                        "outside).")

def _logit_grad(g: Tensor, n: Any) -> Tensor:
    x = n.self
    d = g / (x * (1 - x))
    if n.eps is None:  # NaN outside [0, 1], as PyTorch
        # a constant NaN, not g * nan: the unused branch's gradient would be 0 * nan
        return ew.where((x < 0) | (x > 1), ew.full_like_scalar(d, math.nan), d)
    return ew.where((x < n.eps) | (x > 1 - n.eps), g * 0, d)


LOGIT = defop("LogitBackward0", jvp=ELEMENTWISE, key="core.logit", saves=("self",), params=("eps",),
              vjp=(_logit_grad,))


@quieted
def _logit_data(xp: Any, x: Any) -> Any:
    return xp.log(x / (1.0 - x))  # +-inf at 1 and 0, as PyTorch (no warning)


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """``log(x / (1 - x))``; with ``eps``, ``x`` is first clamped to ``[eps, 1 - eps]``
    (gradient 0 outside that range)."""
    check_tensor("logit", input)
    if eps is not None:
        eps = float(eps)

    def forward(xp: Any, x: Any) -> Any:
        if eps is not None:
            lo, hi = xp.asarray(eps, dtype=x.dtype), xp.asarray(1.0 - eps, dtype=x.dtype)
            x = xp.where(x < lo, lo, xp.where(x > hi, hi, x))  # where(), not clip: NaN stays NaN
        return _logit_data(xp, x)

    return LOGIT.record(unary_float_data(input, forward), input._backend, (input,), eps=eps)


XLOGY = tuple(defop(f"XlogyBackward{i}", jvp=ELEMENTWISE, inputs=("self", "other"),
                    saves=("self", "other"), vjp=(
                        # PyTorch's d/dself: log(other) everywhere except where self == 0 and
                        # other <= 0 (there 0, the subgradient of the 0 * log(0) convention)
                        lambda g, n: ew.where((n.self == 0) & (n.other <= 0), g * 0,
                                              xlogy(g, n.other)),
                        lambda g, n: g * n.self / n.other))
              for i in range(3))


@quieted
def _xlogy_data(xp: Any, a: Any, b: Any) -> Any:
    prod = a * xp.log(b)
    return xp.where(xp.isnan(b), b + a, xp.where(a == 0, xp.zeros_like(prod), prod))


xlogy: Callable[[Any, Any], Tensor] = binary_op("xlogy", XLOGY, _xlogy_data,
                  "``input * log(other)``, 0 where ``input == 0`` (unless ``other`` is NaN); "
                  "either may be a Python number.")


XLOG1PY = tuple(defop(f"SpecialXlog1PyBackward{i}", jvp=ELEMENTWISE, inputs=("self", "other"),
                      saves=("self", "other"), vjp=(
                          # PyTorch's: log1p(other), but 0 where self == 0 and other <= -1
                          lambda g, n: ew.where((n.self == 0) & (n.other <= -1), g * 0,
                                                xlog1py(g, n.other)),
                          lambda g, n: g * n.self / (n.other + 1)))
                for i in range(3))


@quieted
def _xlog1py_data(xp: Any, a: Any, b: Any) -> Any:
    prod = a * xp.log1p(b)
    return xp.where(xp.isnan(b), b + a, xp.where(a == 0, xp.zeros_like(prod), prod))


xlog1py: Callable[[Any, Any], Tensor] = binary_op("xlog1py", XLOG1PY, _xlog1py_data,
                    "``input * log1p(other)``, 0 where ``input == 0`` (unless ``other`` is "
                    "NaN); either may be a Python number.")

ENTR = defop("SpecialEntrBackward0", jvp=ELEMENTWISE, saves=("self",),
             vjp=(lambda g, n: g * -(ew.log(n.self) + 1),))


@quieted
def _entr_data(xp: Any, x: Any) -> Any:
    safe = xp.where(x > 0, x, xp.ones_like(x))
    out = xp.where(x > 0, -safe * xp.log(safe), xp.zeros_like(x))
    out = xp.where(x < 0, xp.full_like(x, -math.inf), out)
    return xp.where(xp.isnan(x), x, out)


entr = unary_op("entr", ENTR, _entr_data,
                "The elementwise entropy ``-x log(x)``: 0 at 0, -inf for x < 0.")


def _inplace_function(name: str) -> Callable[..., Tensor]:
    """``torch.<name>_(input, ...)``: the in-place method as a function."""
    def fn(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        check_tensor(f"{name}_", input)
        result: Tensor = getattr(input, f"{name}_")(*args, **kwargs)
        return result

    fn.__name__ = fn.__qualname__ = f"{name}_"
    fn.__doc__ = f"In-place ``{name}`` of ``input``; returns ``input``."
    return fn


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "erf": erf, "erfc": erfc, "erfinv": erfinv, "logit": logit, "xlogy": xlogy,
    **{f"{name}_": _inplace_function(name) for name in ("erf", "erfc", "logit", "xlogy")}}
"""Exported as ``arraygrad.<name>``."""

METHODS: dict[str, Callable[..., Any]] = {"erf": erf, "erfc": erfc, "erfinv": erfinv,
                                          "logit": logit, "xlogy": xlogy}
"""Bound as ``Tensor.<name>``."""

INPLACE: dict[str, Callable[..., Any]] = {"logit_": logit, "xlogy_": xlogy}
"""Bound as in-place ``Tensor.<name>`` (``erf_``, ``erfc_``, ``erfinv_`` are
``inplace_variants``')."""
