"""Differentiable primitives ``nn.functional`` needs that Tensor ops cannot express well.

``erf``: W. J. Cody's rational Chebyshev approximations (``ops._erf``, shared with
the core's ``erfc``), accurate to about 1e-16 relative in float64.

``log_sigmoid``: ``min(x, 0) - log1p(exp(-|x|))``, which never overflows; its
backward ``sigmoid(-x)`` has no kink at 0 (composing ``abs`` would give the
wrong gradient there).

Backwards are Tensor ops, so double backward works.
"""

from __future__ import annotations

import math

from arraygrad.ops import elementwise as ew
from arraygrad.ops._erf import erf_data as _erf_data
from arraygrad.ops.casting import to_float_data
from arraygrad.ops.families.math_special import kernel_unary
from arraygrad.ops.rule import ELEMENTWISE, defop
from arraygrad.tensor import Tensor


__all__ = ["erf", "log_sigmoid"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

ERF = defop("ErfBackward0", jvp=ELEMENTWISE, saves=("self",),
            vjp=(lambda g, n: g * (ew.exp(-(n.self * n.self)) * _TWO_OVER_SQRT_PI),))


erf = kernel_unary(
    "erf", ERF, _erf_data,
    "The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``, elementwise (a plugin's "
    "faster kernel, e.g. arraygrad-special's SciPy/cupyx one, when registered).")
erf.__module__ = __name__  # the core's erf lives here (the special plugin checks its origin)


# sigmoid(-x), not a composition through abs: no kink at 0
LOG_SIGMOID = defop("LogSigmoidBackward0", jvp=ELEMENTWISE, saves=("self",),
                    vjp=(lambda g, n: g * ew.sigmoid(-n.self),))


def log_sigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))`` computed without overflow."""
    backend = input._backend
    xp = backend.xp
    x = to_float_data(input)
    data = xp.minimum(x, xp.zeros_like(x)) - xp.log1p(xp.exp(-xp.abs(x)))
    return LOG_SIGMOID.record(data, backend, (input,))
