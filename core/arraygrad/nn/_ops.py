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
from arraygrad.ops.rule import defop
from arraygrad.plugins.registry import dispatch_kernel
from arraygrad.tensor import Tensor


__all__ = ["erf", "log_sigmoid"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

ERF = defop("ErfBackward0", saves=("self",),
            vjp=(lambda g, n: g * (ew.exp(-(n.self * n.self)) * _TWO_OVER_SQRT_PI),))


def erf(input: Tensor) -> Tensor:
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``, elementwise."""
    if not isinstance(input, Tensor):
        raise TypeError(f"erf(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    backend = input._backend
    x = to_float_data(input)
    # a plugin may register a faster erf kernel for this backend (arraygrad-special: SciPy,
    # cupyx); one that declines (returns NotImplemented) or raises defers to Cody's
    data = dispatch_kernel("erf", backend, lambda a: _erf_data(backend.xp, a), x)
    return ERF.record(data, backend, (input,))


# sigmoid(-x), not a composition through abs: no kink at 0
LOG_SIGMOID = defop("LogSigmoidBackward0", saves=("self",),
                    vjp=(lambda g, n: g * ew.sigmoid(-n.self),))


def log_sigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))`` computed without overflow."""
    backend = input._backend
    xp = backend.xp
    x = to_float_data(input)
    data = xp.minimum(x, xp.zeros_like(x)) - xp.log1p(xp.exp(-xp.abs(x)))
    return LOG_SIGMOID.record(data, backend, (input,))
