"""Bessel functions on native arrays, with PyTorch's values at 0, infinities and negative
arguments.

* ``I0``, ``I1`` (and the scaled ``exp(-|x|) I``): their power series, whose terms are all
  positive, for |x| <= 20; Hankel's asymptotic series beyond (its error there is below 1e-17).
* ``K0``, ``K1`` (and ``exp(x) K``): for x <= 2 the entire part left after the logarithmic
  singularity is taken out, as a Chebyshev series in x^2; beyond, ``exp(x) sqrt(x) K`` as a
  Chebyshev series in 2/x.
* ``J0``, ``J1``, ``Y0``, ``Y1``: for |x| <= 8 Chebyshev series in x^2 (for Y, after the
  logarithmic part); beyond, Hankel's modulus/phase form ``sqrt(2/(pi x)) (P cos - Q sin)``
  with P and Q Chebyshev series in (8/x)^2.

The Chebyshev series are ``_fits``' (tools/special_fits.py: mpmath fits, error below 1e-16).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from arraygrad.ops._special import _fits
from arraygrad.ops._special._common import chebyshev, guarded, horner, widened

__all__ = ["i0", "i1", "i0e", "i1e", "k0", "k1", "k0e", "k1e", "j0", "j1", "y0", "y1",
           "spherical_j0"]

# power series in t = x^2/4: I0 = sum t^k / (k!)^2, I1 = x/2 sum t^k / (k! (k+1)!)
_I0_SERIES = [1.0 / math.factorial(k) ** 2 for k in range(42)]
_I1_SERIES = [1.0 / (math.factorial(k) * math.factorial(k + 1)) for k in range(42)]
_SERIES_MAX = 20.0


def _hankel(nu: int, n: int) -> list[float]:
    """c_k of ``I_nu(x) ~ e^x / sqrt(2 pi x) sum_k c_k x^-k`` (Hankel, large x)."""
    mu = 4 * nu * nu
    out, c = [1.0], Fraction(1)
    for k in range(1, n):
        c *= Fraction(-(mu - (2 * k - 1) ** 2), 8 * k)
        out.append(float(c))
    return out


_I0_ASYMP = _hankel(0, 30)
_I1_ASYMP = _hankel(1, 30)
_TWO_OVER_PI = 2.0 / math.pi
_SQRT_HALF = math.sqrt(0.5)


def _modified_i(xp: Any, x: Any, odd: bool, scaled: bool) -> Any:
    """I0 (``odd=False``) or I1 of x, times ``exp(-|x|)`` when ``scaled``."""
    ax = xp.abs(x)
    small = ax <= _SERIES_MAX
    xs = guarded(xp, small, ax, 0.0)
    s = horner(xs * xs * 0.25, _I1_SERIES if odd else _I0_SERIES)
    if odd:
        s = s * (0.5 * xs)
    if scaled:
        s = s * xp.exp(-xs)
    xl = guarded(xp, ~small, ax, 2.0 * _SERIES_MAX)
    h = horner(1.0 / xl, _I1_ASYMP if odd else _I0_ASYMP) / xp.sqrt(2.0 * math.pi * xl)
    if not scaled:
        half = xp.exp(0.5 * xl)  # e^x as (e^(x/2))^2: finite wherever the result is
        h = half * (half * h)
    out = xp.where(small, s, h)
    if odd:
        out = xp.where(x < 0, -out, out)
    return xp.where(xp.isnan(x), x, out)


@widened
def i0(xp: Any, x: Any) -> Any:
    """The modified Bessel function of the first kind, order 0."""
    return _modified_i(xp, x, odd=False, scaled=False)


@widened
def i1(xp: Any, x: Any) -> Any:
    """The modified Bessel function of the first kind, order 1."""
    return _modified_i(xp, x, odd=True, scaled=False)


@widened
def i0e(xp: Any, x: Any) -> Any:
    """``exp(-|x|) I0(x)``."""
    return _modified_i(xp, x, odd=False, scaled=True)


@widened
def i1e(xp: Any, x: Any) -> Any:
    """``exp(-|x|) I1(x)``."""
    return _modified_i(xp, x, odd=True, scaled=True)


def _modified_k(xp: Any, x: Any, order: int, scaled: bool) -> Any:
    """K0 or K1 of x (times ``exp(x)`` when ``scaled``): NaN for x < 0, inf at 0, 0 at inf."""
    small = (x > 0) & (x <= 2.0)
    xs = guarded(xp, small, x, 1.0)
    w = 0.5 * xs * xs - 1.0
    log_half = xp.log(0.5 * xs)
    if order == 0:
        near = chebyshev(w, _fits.K0_SMALL) - log_half * _modified_i(xp, xs, False, False)
    else:
        near = xs * chebyshev(w, _fits.K1_SMALL) + log_half * _modified_i(xp, xs, True, False) \
            + 1.0 / xs
    if scaled:
        near = near * xp.exp(xs)
    xl = guarded(xp, x > 2.0, x, 4.0)
    far = chebyshev(4.0 / xl - 1.0, _fits.K0_LARGE if order == 0 else _fits.K1_LARGE) \
        / xp.sqrt(xl)
    if not scaled:
        far = far * xp.exp(-xl)
    out = xp.where(small, near, far)
    out = xp.where(x == 0, xp.full_like(x, math.inf), out)
    out = xp.where(x == math.inf, xp.zeros_like(x), out)
    return xp.where((x < 0) | xp.isnan(x), xp.full_like(x, math.nan), out)


@widened
def k0(xp: Any, x: Any) -> Any:
    """The modified Bessel function of the second kind, order 0."""
    return _modified_k(xp, x, 0, scaled=False)


@widened
def k1(xp: Any, x: Any) -> Any:
    """The modified Bessel function of the second kind, order 1."""
    return _modified_k(xp, x, 1, scaled=False)


@widened
def k0e(xp: Any, x: Any) -> Any:
    """``exp(x) K0(x)``."""
    return _modified_k(xp, x, 0, scaled=True)


@widened
def k1e(xp: Any, x: Any) -> Any:
    """``exp(x) K1(x)``."""
    return _modified_k(xp, x, 1, scaled=True)


def _hankel_form(xp: Any, ax: Any, order: int) -> tuple[Any, Any]:
    """``(J, Y)`` of the given order for ax > 8: ``A (P cos - Q sin)`` and ``A (P sin + Q cos)``
    at the phase ``ax - (2 order + 1) pi / 4``, ``A = sqrt(2 / (pi ax))``."""
    t = 8.0 / ax
    w = 2.0 * t * t - 1.0
    p = chebyshev(w, _fits.P0_LARGE if order == 0 else _fits.P1_LARGE)
    q = t * chebyshev(w, _fits.Q0_LARGE if order == 0 else _fits.Q1_LARGE)
    c, s = xp.cos(ax), xp.sin(ax)
    # cos and sin of x - pi/4 (order 0) or x - 3 pi/4 (order 1), without rounding pi/4 into x
    if order == 0:
        cos_phase, sin_phase = (c + s) * _SQRT_HALF, (s - c) * _SQRT_HALF
    else:
        cos_phase, sin_phase = (s - c) * _SQRT_HALF, -(s + c) * _SQRT_HALF
    amplitude = xp.sqrt(_TWO_OVER_PI / ax)
    return (amplitude * (p * cos_phase - q * sin_phase),
            amplitude * (p * sin_phase + q * cos_phase))


def _bessel_j(xp: Any, x: Any, order: int) -> Any:
    ax = xp.abs(x)
    small = ax <= 8.0
    xs = guarded(xp, small, ax, 0.0)
    w = xs * xs / 32.0 - 1.0
    near = chebyshev(w, _fits.J0_SMALL) if order == 0 else xs * chebyshev(w, _fits.J1_SMALL)
    far, _ = _hankel_form(xp, guarded(xp, ~small, ax, 16.0), order)
    out = xp.where(small, near, far)
    if order == 1:
        out = xp.where(x < 0, -out, out)
    return xp.where(xp.isnan(x), x, out)


def _bessel_y(xp: Any, x: Any, order: int) -> Any:
    small = x <= 8.0
    xs = guarded(xp, small & (x > 0), x, 1.0)
    w = xs * xs / 32.0 - 1.0
    log_x = xp.log(xs)
    if order == 0:
        near = chebyshev(w, _fits.Y0_SMALL) + _TWO_OVER_PI * log_x * _bessel_j(xp, xs, 0)
    else:
        near = xs * chebyshev(w, _fits.Y1_SMALL) + _TWO_OVER_PI * (
            _bessel_j(xp, xs, 1) * log_x - 1.0 / xs)
    _, far = _hankel_form(xp, guarded(xp, ~small, x, 16.0), order)
    out = xp.where(small, near, far)
    out = xp.where(x == 0, xp.full_like(x, -math.inf), out)
    return xp.where((x < 0) | xp.isnan(x), xp.full_like(x, math.nan), out)


@widened
def j0(xp: Any, x: Any) -> Any:
    """The Bessel function of the first kind, order 0 (NaN at +-inf, as PyTorch)."""
    return _bessel_j(xp, x, 0)


@widened
def j1(xp: Any, x: Any) -> Any:
    """The Bessel function of the first kind, order 1 (NaN at +-inf, as PyTorch)."""
    return _bessel_j(xp, x, 1)


@widened
def y0(xp: Any, x: Any) -> Any:
    """The Bessel function of the second kind, order 0: -inf at 0, NaN for x < 0 and at inf."""
    return _bessel_y(xp, x, 0)


@widened
def y1(xp: Any, x: Any) -> Any:
    """The Bessel function of the second kind, order 1: -inf at 0, NaN for x < 0 and at inf."""
    return _bessel_y(xp, x, 1)


@widened
def spherical_j0(xp: Any, x: Any) -> Any:
    """The spherical Bessel function of the first kind, order 0: ``sin(x) / x`` (1 at 0, 0 at
    +-inf)."""
    zero = x == 0
    out = xp.sin(x) / guarded(xp, ~zero, x, 1.0)
    out = xp.where(zero, xp.ones_like(x), out)
    return xp.where(xp.isinf(x), xp.zeros_like(x), out)
