"""Cody's erf and erfc on native arrays (W. J. Cody's rational Chebyshev approximations,
netlib ``specfun`` CALERF), accurate to about 1e-16 relative in float64, in three ranges:
``|x| <= 0.46875``, ``<= 4``, and the asymptotic tail. Written only with Array API functions
so every backend runs them. The ops are ``nn._ops.erf`` (the core's erf, also gelu's) and
``ops.families.math_special.erfc``; this is their one implementation.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["erf_data", "erfc_data", "in_float32"]

_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
      3.20937758913846947e03, 1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
      2.84423683343917062e03)
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
      2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
      2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
      1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
      3.43936767414372164e03, 1.23033935480374942e03)
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
      1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1,
      6.05183413124413191e-2, 2.33520497626869185e-3)
_THRESH = 0.46875
_XBIG = 26.543  # erfc(x) underflows float64 beyond this: erf is exactly 1
_ONE_OVER_SQRT_PI = 1.0 / math.sqrt(math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _erf_small(xp: Any, x: Any) -> Any:
    """erf(x) for ``|x| <= 0.46875``: ``x * R(x^2)`` (the argument is clamped so unused lanes
    stay finite)."""
    ys = xp.minimum(xp.abs(x), _THRESH)
    ysq = ys * ys
    num, den = _A[4] * ysq, ysq
    for i in range(3):
        num, den = (num + _A[i]) * ysq, (den + _B[i]) * ysq
    return x * (num + _A[3]) / (den + _B[3])


def _erfc_large(xp: Any, y: Any) -> Any:
    """erfc(y) for ``y = |x| >= 0.46875`` (values for smaller y are computed but unused)."""
    # middle range: erfc(y) = exp(-y^2) * R(y)
    ym = xp.clip(y, _THRESH, 4.0)
    num, den = _C[8] * ym, ym
    for i in range(7):
        num, den = (num + _C[i]) * ym, (den + _D[i]) * ym
    mid = (num + _C[7]) / (den + _D[7])
    # tail: erfc(y) = exp(-y^2) / y * (1/sqrt(pi) + R(1/y^2) / y^2)
    yt = xp.clip(y, 4.0, _XBIG)
    inv = 1.0 / (yt * yt)
    num, den = _P[5] * inv, inv
    for i in range(4):
        num, den = (num + _P[i]) * inv, (den + _Q[i]) * inv
    tail = (_ONE_OVER_SQRT_PI - inv * (num + _P[4]) / (den + _Q[4])) / yt
    yl = xp.where(y <= 4.0, ym, yt)
    ratio = xp.where(y <= 4.0, mid, tail)
    # exp(-y^2) split as exp(-a^2) * exp(-(y-a)(y+a)) with a = trunc(16 y)/16, as Cody does,
    # so the rounding error of y^2 is not amplified
    a = xp.trunc(yl * 16.0) / 16.0
    erfc = xp.exp(-a * a) * xp.exp(-(yl - a) * (yl + a)) * ratio
    return xp.where(y >= _XBIG, xp.zeros_like(erfc), erfc)


def in_float32(xp: Any, x: Any, fn: Any) -> Any:
    """``fn(xp, x)``, run in float32 for float16 input (the coefficients overflow float16:
    a NaN for every input), else None."""
    f16 = getattr(xp, "float16", None)  # not in the Array API standard: only where it exists
    if f16 is not None and x.dtype == f16:
        return xp.astype(fn(xp, xp.astype(x, xp.float32)), f16)
    return None


def erf_data(xp: Any, x: Any) -> Any:
    """erf of a native floating array (all three ranges computed, then selected)."""
    half = in_float32(xp, x, erf_data)
    if half is not None:
        return half
    y = xp.abs(x)
    big = (0.5 - _erfc_large(xp, y)) + 0.5
    big = xp.where(x < 0, -big, big)
    return xp.where(y <= _THRESH, _erf_small(xp, x), big)


def erfc_data(xp: Any, x: Any) -> Any:
    """erfc of a native floating array: ``1 - erf`` near 0, Cody's erfc elsewhere (no
    cancellation in the right tail; ``2 - erfc(|x|)`` on the left)."""
    half = in_float32(xp, x, erfc_data)
    if half is not None:
        return half
    y = xp.abs(x)
    large = _erfc_large(xp, y)
    large = xp.where(x < 0, 2.0 - large, large)
    return xp.where(y <= _THRESH, 1.0 - _erf_small(xp, x), large)
