"""``torch.special``'s standard normal functions ``ndtr``, ``log_ndtr``, ``ndtri`` and the
scaled complementary error function ``erfcx``, with PyTorch's gradients (written with these
ops, so they differentiate again). The array work is ``ops._special.normal``'s and
``ops._erf``'s, or a plugin's kernel registered under the op's name.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from arraygrad.ops import elementwise as ew
from arraygrad.ops._erf import erfcx_data
from arraygrad.ops._special import normal as _normal
from arraygrad.ops._special._common import widened
from arraygrad.ops.families._special_op import unary_op
from arraygrad.ops.rule import ELEMENTWISE, defop
from arraygrad.tensor import Tensor

__all__ = ["ndtr", "log_ndtr", "ndtri", "erfcx", "FUNCTIONS"]

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

NDTR = defop("SpecialNdtrBackward0", jvp=ELEMENTWISE, saves=("self",),
             vjp=(lambda g, n: g * (ew.exp(-0.5 * n.self * n.self) * _INV_SQRT_2PI),))
ndtr = unary_op("ndtr", NDTR, _normal.ndtr,
                "The standard normal CDF ``P(Z <= x)``, elementwise (accurate in both tails).")

# d log ndtr(x) / dx = pdf / cdf = sqrt(2/pi) / erfcx(-x / sqrt 2): no underflow in the tail
LOG_NDTR = defop("SpecialLogNdtrBackward0", jvp=ELEMENTWISE, saves=("self",),
                 vjp=(lambda g, n: g * _SQRT_2_OVER_PI / erfcx(n.self * -_SQRT_HALF),))
log_ndtr = unary_op("log_ndtr", LOG_NDTR, _normal.log_ndtr,
                    "The log of the standard normal CDF, elementwise (accurate in both tails).")

NDTRI = defop("SpecialNdtriBackward0", jvp=ELEMENTWISE, saves=("result",),
              vjp=(lambda g, n: g * (ew.exp(0.5 * n.result * n.result) * _SQRT_2PI),))
ndtri = unary_op("ndtri", NDTRI, _normal.ndtri,
                 "The standard normal quantile (the inverse of ``ndtr``), elementwise.")

ERFCX = defop("SpecialErfcxBackward0", jvp=ELEMENTWISE, saves=("self", "result"),
              vjp=(lambda g, n: g * (2 * n.self * n.result - _TWO_OVER_SQRT_PI),))
erfcx: Callable[[Tensor], Tensor] = unary_op("erfcx", ERFCX, widened(erfcx_data),
                 "The scaled complementary error function ``exp(x^2) erfc(x)``, elementwise.")

FUNCTIONS: dict[str, Callable[..., Any]] = {}
"""Nothing at ``arraygrad.<name>``: these are ``torch.special``'s only."""
