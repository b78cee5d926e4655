"""The core's ``erfc``, ``erfinv``, ``logit`` and ``xlogy`` (``torch.erfc`` ...), written with Array
API functions only: erfc is Cody's (``ops._erf``, shared with the core's erf), erfinv is
Giles' single-precision approximation refined by Newton steps on the erf residual (on
``log erfc`` in the tails, where ``erf(y) - x`` would cancel).

A plugin may register faster kernels for them (op names ``erfc``/``erfinv``, as
arraygrad-special does with SciPy/cupyx); a kernel that declines defers to these.
The ``Tensor.erfc``/``erfinv``/``logit``/``xlogy`` methods are not bound here:
arraygrad-special binds them (to its ``arraygrad.special`` ops), and a second binding would
refuse that plugin.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from arraygrad.ops._erf import (
    erf_data as _erf_data, erfc_data as _erfc_data, in_float32 as _in_float32,
)
from arraygrad.ops import elementwise as ew
from arraygrad.ops.casting import to_float_data, unary_float_data
from arraygrad.ops.promotion import operands as _operands
from arraygrad.ops.rule import ELEMENTWISE, defop
from arraygrad.plugins.registry import dispatch_kernel
from arraygrad.tensor import Tensor

__all__ = ["FUNCTIONS", "erfc", "erfinv", "logit", "xlogy"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0

# Giles (2010), "Approximating the erfinv function", single precision: w < 5 and w >= 5
_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
            -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
         -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)


def _horner(coefficients: tuple[float, ...], w: Any) -> Any:
    p = coefficients[0] + 0 * w
    for c in coefficients[1:]:
        p = c + p * w
    return p


def _erfinv_data(xp: Any, x: Any) -> Any:
    """erfinv of a native floating array: +-inf at +-1, NaN outside [-1, 1]."""
    half = _in_float32(xp, x, _erfinv_data)
    if half is not None:
        return half
    ax = xp.abs(x)
    inside = ax < 1
    xs = xp.where(inside, x, xp.zeros_like(x))  # unused lanes stay finite
    axs = xp.abs(xs)
    w = -xp.log((1.0 - xs) * (1.0 + xs))
    central = _horner(_CENTRAL, w - 2.5)
    tail = _horner(_TAIL, xp.sqrt(xp.maximum(w, 5.0 + 0 * w)) - 3.0)
    y = xp.where(w < 5.0, central, tail) * xs
    one_minus = 1.0 - axs  # exact for |x| >= 0.5 (Sterbenz)
    sign = xp.where(xs < 0, -xp.ones_like(xs), xp.ones_like(xs))
    tails = axs > 0.5
    log_target = xp.log(xp.where(tails, one_minus, xp.ones_like(xs)))
    for _ in range(4):
        # centre: Newton on erf(y) - x; tails: Newton on log(erfc(|y|)) - log(1 - |x|),
        # nearly quadratic in |y|, so it converges where the polynomial is only a rough start
        # (|x| within 1e-8 of 1) and does not cancel as erf(y) - x would
        ya = xp.where(tails, xp.abs(y), xp.ones_like(y))
        c = _erfc_data(xp, ya)
        slope = _TWO_OVER_SQRT_PI * xp.exp(-ya * ya)
        tail_y = sign * (ya + (xp.log(c) - log_target) * c / slope)
        centre_y = y - (_erf_data(xp, y) - xs) / (_TWO_OVER_SQRT_PI * xp.exp(-y * y))
        y = xp.where(tails, tail_y, centre_y)
    y = xp.where(inside, y, xp.full_like(y, math.nan))
    inf = xp.full_like(y, math.inf)
    return xp.where(ax == 1, xp.where(x < 0, -inf, inf), y)


ERFC = defop("ErfcBackward0", jvp=ELEMENTWISE, key="core.erfc", saves=("self",),
             vjp=(lambda g, n: g * (ew.exp(-(n.self * n.self)) * -_TWO_OVER_SQRT_PI),))
ERFINV = defop("ErfinvBackward0", jvp=ELEMENTWISE, key="core.erfinv", saves=("result",),
               vjp=(lambda g, n: g * (ew.exp(n.result * n.result) * _SQRT_PI_OVER_TWO),))


def kernel_unary(name: str, rule: Any, data_fn: Callable[[Any, Any], Any],
                 doc: str) -> Callable[[Tensor], Tensor]:
    """The float unary op ``name``: a plugin's kernel for the backend when one answers (a
    kernel that declines or raises falls back), else ``data_fn(xp, array)``; recorded by
    ``rule``. The core's erf (``nn._ops``) and this family's erfc/erfinv share it."""
    def op(input: Tensor) -> Tensor:
        if not isinstance(input, Tensor):
            raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        backend = input._backend
        x = to_float_data(input)
        # a plugin's kernel for this backend, when one is registered; otherwise ours
        data = dispatch_kernel(name, backend, lambda a: data_fn(backend.xp, a), x)
        return rule.record(data, backend, (input,))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


erfc = kernel_unary("erfc", ERFC, _erfc_data,
                      "The complementary error function ``1 - erf(x)``, accurate in the "
                      "right tail.")
erfinv = kernel_unary("erfinv", ERFINV, _erfinv_data,
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


def logit(input: Tensor, eps: float | None = None) -> Tensor:
    """``log(x / (1 - x))``; with ``eps``, ``x`` is first clamped to ``[eps, 1 - eps]``
    (gradient 0 outside that range)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"logit(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if eps is not None:
        eps = float(eps)

    def forward(xp: Any, x: Any) -> Any:
        if eps is not None:
            lo, hi = xp.asarray(eps, dtype=x.dtype), xp.asarray(1.0 - eps, dtype=x.dtype)
            x = xp.where(x < lo, lo, xp.where(x > hi, hi, x))  # where(), not clip: NaN stays
        return xp.log(x / (1.0 - x))

    return LOGIT.record(unary_float_data(input, forward), input._backend, (input,), eps=eps)


XLOGY = defop("XlogyBackward0", jvp=ELEMENTWISE, key="core.xlogy", inputs=("self", "other"),
              saves=("self", "other"), vjp=(
                  # PyTorch's d/dself: log(other) everywhere except where self == 0 and
                  # other <= 0 (there 0, the subgradient of the 0 * log(0) convention)
                  lambda g, n: ew.where((n.self == 0) & (n.other <= 0), g * 0,
                                        xlogy(g, n.other)),
                  lambda g, n: g * n.self / n.other))


def xlogy(input: Any, other: Any) -> Tensor:
    """``input * log(other)``, 0 where ``input == 0`` (unless ``other`` is NaN); either may be
    a Python number."""
    backend, ad, bd, ta, tb = _operands("xlogy", input, other, floating=True)
    xp = backend.xp
    like = ad if hasattr(ad, "shape") else bd
    a = ad if hasattr(ad, "shape") else xp.asarray(ad, dtype=like.dtype)
    b = bd if hasattr(bd, "shape") else xp.asarray(bd, dtype=like.dtype)
    prod = a * xp.log(b)
    data = xp.where(xp.isnan(b), b + a, xp.where(a == 0, xp.zeros_like(prod), prod))
    return XLOGY.record(data, backend, (input, other))


FUNCTIONS: dict[str, Callable[..., Any]] = {"erfc": erfc, "erfinv": erfinv, "logit": logit,
                                            "xlogy": xlogy}
"""Exported as ``arraygrad.<name>`` (the ``Tensor`` methods of the same names are the special
plugin's)."""
