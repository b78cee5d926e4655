"""The standard normal distribution's functions on native arrays: ``ndtr`` (its CDF),
``log_ndtr`` and ``ndtri`` (the quantile), built on Cody's erfc and its scaled form ``erfcx``
(``ops._erf``), so every tail keeps relative accuracy:

* ``ndtr(x) = erfc(-x / sqrt 2) / 2`` (PyTorch's ``(1 + erf(x / sqrt 2)) / 2`` is 0 below -8.3);
* ``log_ndtr(x) = log(erfcx(-x / sqrt 2) / 2) - x^2 / 2`` for x < -1, ``log1p(-ndtr(-x))`` above;
* ``ndtri(p)``: ``-sqrt 2 erfinv(1 - 2p)`` for p in [1/4, 3/4] (1 - 2p is exact there); in the
  tails, Abramowitz & Stegun 26.2.23 as a start, then Newton on ``log_ndtr(y) = log p``.
"""

from __future__ import annotations

import math
from typing import Any

from arraygrad.ops._erf import erfc_data, erfcx_data, erfinv_data
from arraygrad.ops._special._common import guarded, widened

__all__ = ["ndtr", "log_ndtr", "ndtri"]

_SQRT_HALF = math.sqrt(0.5)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_NEWTON_STEPS = 4


@widened
def ndtr(xp: Any, x: Any) -> Any:
    """The standard normal CDF ``P(Z <= x)``."""
    return 0.5 * erfc_data(xp, -x * _SQRT_HALF)


def _log_ndtr_left(xp: Any, y: Any) -> Any:
    """``log ndtr(y)`` for y < 0, through erfcx: no underflow however far the tail."""
    return xp.log(0.5 * erfcx_data(xp, -y * _SQRT_HALF)) - 0.5 * y * y


@widened
def log_ndtr(xp: Any, x: Any) -> Any:
    """``log`` of the standard normal CDF, accurate in both tails."""
    low = x < -1.0
    left = _log_ndtr_left(xp, guarded(xp, low, x, -1.0))
    right = xp.log1p(-0.5 * erfc_data(xp, guarded(xp, ~low, x, 0.0) * _SQRT_HALF))
    return xp.where(low, left, right)


@widened
def ndtri(xp: Any, p: Any) -> Any:
    """The standard normal quantile: ``ndtri(ndtr(x)) = x``; -inf at 0, inf at 1, NaN outside."""
    upper = p > 0.5
    r = xp.where(upper, 1.0 - p, p)  # exact for p >= 1/2
    central = r >= 0.25
    inside = (r > 0) & ~central
    # the central half: erfinv of an exact argument
    z_central = -math.sqrt(2.0) * erfinv_data(xp, 1.0 - 2.0 * guarded(xp, central, r, 0.5))
    # the tails: a 4.5e-4 start, then Newton on log ndtr(y) - log r (log ndtr is nearly
    # quadratic in y there, so Newton converges fast)
    rt = guarded(xp, inside, r, 0.1)
    t = xp.sqrt(-2.0 * xp.log(rt))
    y = -(t - (2.515517 + t * (0.802853 + t * 0.010328))
          / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
    log_r = xp.log(rt)
    for _ in range(_NEWTON_STEPS):
        y = xp.minimum(y, xp.full_like(y, -0.5))
        slope = _SQRT_2_OVER_PI / erfcx_data(xp, -y * _SQRT_HALF)  # d log ndtr / dy
        y = y - (_log_ndtr_left(xp, y) - log_r) / slope
    z = xp.where(central, z_central, y)
    z = xp.where(r == 0, xp.full_like(z, -math.inf), z)
    z = xp.where(upper, -z, z)
    return xp.where((p < 0) | (p > 1) | xp.isnan(p), xp.full_like(z, math.nan), z)

