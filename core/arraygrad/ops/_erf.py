"""Cody's erf and erfc on native arrays (W. J. Cody's rational Chebyshev approximations,
netlib ``specfun`` CALERF), accurate to about 1e-16 relative in float64, in three ranges:
``|x| <= 0.46875``, ``<= 4``, and the asymptotic tail. Written only with Array API functions
so every backend runs them; the scaled ``erfcx`` is Cody's rational part. The ops are
``nn._ops.erf`` (the core's erf, also gelu's), ``ops.families.math_special.erfc`` and
``special.erfcx``; this is their one implementation.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["erf_data", "erfc_data", "erfcx_data", "erfinv_data", "in_float32"]

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
_XBIG = 27.3  # erfc(x) underflows float64 (below its subnormals) beyond this
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


def _erfc_ratio(xp: Any, y: Any) -> tuple[Any, Any]:
    """``(y', R)`` with ``erfc(y') = exp(-y'^2) R`` for ``y >= 0.46875``: ``y'`` is ``y`` clipped to
    the range of its formula (the middle range's [0.46875, 4], the tail's [4, inf)), ``R`` the
    rational part (the scaled erfc ``erfcx(y')``)."""
    # middle range: erfc(y) = exp(-y^2) * R(y)
    ym = xp.clip(y, _THRESH, 4.0)
    num, den = _C[8] * ym, ym
    for i in range(7):
        num, den = (num + _C[i]) * ym, (den + _D[i]) * ym
    mid = (num + _C[7]) / (den + _D[7])
    # tail: erfc(y) = exp(-y^2) / y * (1/sqrt(pi) + R(1/y^2) / y^2)
    yt = xp.maximum(y, xp.full_like(y, 4.0))
    inv = 1.0 / (yt * yt)
    num, den = _P[5] * inv, inv
    for i in range(4):
        num, den = (num + _P[i]) * inv, (den + _Q[i]) * inv
    tail = (_ONE_OVER_SQRT_PI - inv * (num + _P[4]) / (den + _Q[4])) / yt
    return xp.where(y <= 4.0, ym, yt), xp.where(y <= 4.0, mid, tail)


def _erfc_large(xp: Any, y: Any) -> Any:
    """erfc(y) for ``y = |x| >= 0.46875`` (values for smaller y are computed but unused)."""
    yl, ratio = _erfc_ratio(xp, xp.minimum(y, _XBIG))
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


def erfcx_data(xp: Any, x: Any) -> Any:
    """The scaled complementary error function ``exp(x^2) erfc(x)`` of a native floating array:
    Cody's rational part itself for ``x >= 0.46875`` (no exp: finite for every x, ``1/(sqrt(pi)
    x)`` in the far tail), ``2 exp(x^2) - erfcx(-x)`` for negative x (inf below about -26.6)."""
    half = in_float32(xp, x, erfcx_data)
    if half is not None:
        return half
    y = xp.abs(x)
    _, ratio = _erfc_ratio(xp, y)
    small = y <= _THRESH
    ys = xp.where(small, y, xp.zeros_like(y))
    near = xp.exp(ys * ys) * (1.0 - _erf_small(xp, ys))
    positive = xp.where(small, near, ratio)
    xn = xp.where(x < 0, x, xp.zeros_like(x))
    return xp.where(x < 0, 2.0 * xp.exp(xn * xn) - positive, positive)


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


def erfinv_data(xp: Any, x: Any) -> Any:
    """erfinv of a native floating array: +-inf at +-1, NaN outside [-1, 1]."""
    half = in_float32(xp, x, erfinv_data)
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
        c = erfc_data(xp, ya)
        slope = _TWO_OVER_SQRT_PI * xp.exp(-ya * ya)
        tail_y = sign * (ya + (xp.log(c) - log_target) * c / slope)
        centre_y = y - (erf_data(xp, y) - xs) / (_TWO_OVER_SQRT_PI * xp.exp(-y * y))
        y = xp.where(tails, tail_y, centre_y)
    y = xp.where(inside, y, xp.full_like(y, math.nan))
    inf = xp.full_like(y, math.inf)
    return xp.where(ax == 1, xp.where(x < 0, -inf, inf), y)
