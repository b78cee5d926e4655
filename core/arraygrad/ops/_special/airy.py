"""The Airy function ``Ai`` on native arrays: its Maclaurin series on [-3, 2]; beyond, the
exponentially small (x > 2) and the oscillating (x < -3) asymptotic forms, whose slowly varying
parts are Chebyshev series in ``zeta^-1`` (``_fits``, tools/special_fits.py). NaN at +-inf,
as PyTorch."""

from __future__ import annotations

import math
from typing import Any

from arraygrad.ops._special import _fits
from arraygrad.ops._special._common import chebyshev, guarded, widened

__all__ = ["airy_ai"]

_AI0 = 0.355028053887817239260063186004  # Ai(0)
_AIP0 = 0.258819403792806798405183560189  # -Ai'(0)
_SERIES_TERMS = 40
_SQRT_PI = math.sqrt(math.pi)
_SQRT_HALF = math.sqrt(0.5)


def _maclaurin(xp: Any, x: Any) -> Any:
    """``Ai(0) f(x) + Ai'(0) g(x)``, f and g the two power series in x^3 (|x| small)."""
    cube = x * x * x
    f_term, g_term = xp.ones_like(x), x
    f, g = f_term, g_term
    for k in range(_SERIES_TERMS):
        f_term = f_term * cube / float((3 * k + 2) * (3 * k + 3))
        g_term = g_term * cube / float((3 * k + 3) * (3 * k + 4))
        f, g = f + f_term, g + g_term
    return _AI0 * f - _AIP0 * g


@widened
def airy_ai(xp: Any, x: Any) -> Any:
    """The Airy function of the first kind, ``Ai(x)``."""
    middle = (x >= -_fits.AIRY_NEG) & (x <= _fits.AIRY_POS)
    near = _maclaurin(xp, guarded(xp, middle, x, 0.0))
    # x > 2: Ai = F(t) exp(-zeta) / (2 sqrt(pi) x^(1/4)), t = (2 / x)^(3/2)
    xp_pos = guarded(xp, x > _fits.AIRY_POS, x, 2.0 * _fits.AIRY_POS)
    root = xp.sqrt(xp_pos)
    zeta = 2.0 / 3.0 * xp_pos * root
    t = (_fits.AIRY_POS / xp_pos) ** 1.5
    right = chebyshev(2.0 * t - 1.0, _fits.AI_POS) * xp.exp(-zeta) / (2.0 * _SQRT_PI
                                                                     * xp.sqrt(root))
    # x < -3: Ai = (f sin(zeta + pi/4) - g cos(zeta + pi/4)) / (sqrt(pi) |x|^(1/4))
    xn = guarded(xp, x < -_fits.AIRY_NEG, -x, 2.0 * _fits.AIRY_NEG)
    root = xp.sqrt(xn)
    zeta = 2.0 / 3.0 * xn * root
    t = (_fits.AIRY_NEG / xn) ** 1.5
    f = chebyshev(2.0 * t - 1.0, _fits.AI_NEG_F)
    g = t * chebyshev(2.0 * t - 1.0, _fits.AI_NEG_G)
    s, c = xp.sin(zeta), xp.cos(zeta)
    left = (f * (s + c) - g * (c - s)) * _SQRT_HALF / (_SQRT_PI * xp.sqrt(root))
    out = xp.where(middle, near, xp.where(x > 0, right, left))
    return xp.where(xp.isinf(x) | xp.isnan(x), xp.full_like(x, math.nan), out)
