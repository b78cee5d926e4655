"""The gamma family on native arrays: ``lgamma``, ``digamma``, ``polygamma``, the Hurwitz
``zeta`` and the multivariate ``mvlgamma``, with PyTorch's values at poles and infinities.

* ``lgamma``: a Taylor series of ``lgamma(2 + z)`` around 2 (exact near the zeros at 1 and 2),
  Lanczos (g = 7) from 3, the reflection formula below 1/2.
* ``digamma``: upward recurrence to x >= 10, then the asymptotic series; reflection for x < 0;
  a Taylor series around the positive zero keeps relative accuracy there.
* ``zeta(s, q)``: ``sum_k (q + k)^-s`` up to ``q + k >= a``, then Euler-Maclaurin; also for
  negative non-integer ``q`` when ``s`` is an integer, as PyTorch (Cephes).
* ``polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)``; for x < 0 through the reflection formula
  (derivatives of ``pi cot(pi x)``), where the zeta sum would cancel.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from arraygrad.ops._special._common import guarded, horner, widened

__all__ = ["lgamma", "digamma", "polygamma", "zeta", "mvlgamma", "hurwitz_scalar"]

_BERNOULLI = [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
              Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510),
              Fraction(43867, 798), Fraction(-174611, 330), Fraction(854513, 138),
              Fraction(-236364091, 2730)]
"""B_2, B_4, ..., B_24."""

_EM = [float(b / math.factorial(2 * (j + 1))) for j, b in enumerate(_BERNOULLI)]
"""Euler-Maclaurin coefficients B_2j / (2j)!."""


def hurwitz_scalar(s: int, q: float) -> float:
    """Hurwitz zeta(s, q) for s >= 2, q > 0, in Python floats (for constant tables)."""
    a = float(max(20, s + 10))
    terms = []
    while q < a:
        terms.append(q ** -s)
        q += 1.0
    terms.append(q ** (1 - s) / (s - 1))
    terms.append(0.5 * q ** -s)
    rising = float(s) * q ** (-s - 1)  # s (s+1) ... (s+2j-2) q^(-s-2j+1)
    for j, c in enumerate(_EM):
        terms.append(c * rising)
        rising *= (s + 2 * j + 1) * (s + 2 * j + 2) / (q * q)
    return math.fsum(terms)


_EULER_GAMMA = 0.57721566490153286061

# lgamma(2 + z) = (1 - gamma) z + sum_{k>=2} (-1)^k (zeta(k) - 1) / k z^k  (|z| < 2);
# the log(1 + z) terms of the usual expansion around 1 cancel, so it is exact near z = 0.
_LGAMMA2 = [0.0, 1.0 - _EULER_GAMMA] + [(-1) ** k * hurwitz_scalar(k, 2.0) / k
                                         for k in range(2, 64)]

# The positive zero of digamma, in three parts (Boost's split), and psi's Taylor
# coefficients there: psi(x0 + d) = sum_{k>=1} (-1)^(k+1) zeta(k+1, x0) d^k.
_PSI_ROOT = (1569415565.0 / 1073741824.0, 381566830.0 / 1073741824.0 ** 2,
             0.9016312093258695918615325266959189453125e-19)
_PSI_ROOT_X0 = 1.4616321449683623412626595
_PSI_ROOT_TAYLOR = [0.0] + [(-1) ** (k + 1) * hurwitz_scalar(k + 1, _PSI_ROOT_X0)
                            for k in range(1, 26)]

# Lanczos' approximation, g = 7, n = 9 (the published coefficients)
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)
_HALF_LOG_2PI = 0.91893853320467274178

_ZETA_SHIFT_CAP = 20000  # most terms summed directly (q far below 0 needs many)


def _cot_derivative(n: int) -> list[float]:
    """P_n with d^n/dx^n cot(pi x) = pi^n P_n(cot(pi x)), as coefficients (lowest first)."""
    p = [0, 1]
    for _ in range(n):
        dp = [k * p[k] for k in range(1, len(p))] or [0]
        nxt = [0] * (len(dp) + 2)  # P_{n+1}(c) = -(1 + c^2) P_n'(c)
        for k, v in enumerate(dp):
            nxt[k] -= v
            nxt[k + 2] -= v
        p = nxt
    return [float(c) for c in p]


def _sin_pi_abs(xp: Any, x: Any) -> Any:
    """|sin(pi x)|, reduced exactly (x - round(x) has no rounding error)."""
    return xp.sin(math.pi * xp.abs(x - xp.round(x)))


def _cot_pi(xp: Any, x: Any) -> Any:
    """cot(pi x) with exact argument reduction, exactly 0 at half-integers."""
    r = x - xp.round(x)
    ar = xp.abs(r)
    near_pole = ar < 0.25
    safe = guarded(xp, near_pole, r, 0.25)
    return xp.where(near_pole, 1.0 / xp.tan(math.pi * safe),
                    xp.sign(r) * xp.tan(math.pi * (0.5 - ar)))


def _lgamma_lanczos(xp: Any, x: Any) -> Any:
    """log Gamma(x) for x >= 3."""
    x1 = x - 1.0
    a = xp.zeros_like(x) + _LANCZOS[0]
    for i, c in enumerate(_LANCZOS[1:], start=1):
        a = a + c / (x1 + float(i))
    t = x1 + (_LANCZOS_G + 0.5)
    return _HALF_LOG_2PI + (x1 + 0.5) * xp.log(t) - t + xp.log(a)


def _lgamma_positive(xp: Any, x: Any) -> Any:
    """log Gamma(x) for x >= 0.5."""
    low = x < 1.5  # lgamma(x) = lgamma(x + 1) - log(x), lgamma(x + 1) from the series
    z = xp.where(low, x - 1.0, xp.where(x < 3.0, x - 2.0, xp.zeros_like(x)))  # exact
    series = horner(z, _LGAMMA2)
    series = xp.where(low, series - xp.log1p(x - 1.0), series)
    big = guarded(xp, x >= 3.0, x, 3.0)
    return xp.where(x >= 3.0, _lgamma_lanczos(xp, big), series)


@widened
def lgamma(xp: Any, x: Any) -> Any:
    """log |Gamma(x)|: +inf at the poles 0, -1, -2, ... and at +-inf."""
    neg = x < 0.5
    finite = xp.isfinite(x)
    pos = _lgamma_positive(xp, guarded(xp, finite, xp.where(neg, 1.0 - x, x), 1.0))
    # reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x)
    refl = math.log(math.pi) - xp.log(_sin_pi_abs(xp, guarded(xp, finite, x, 0.5))) - pos
    out = xp.where(neg, refl, pos)
    # near 0, -log|x| - gamma x: pi x in the reflection would lose a subnormal x's digits
    tiny = xp.abs(x) < 1e-8
    out = xp.where(tiny, -xp.log(xp.abs(guarded(xp, tiny, x, 1.0))) - _EULER_GAMMA * x, out)
    out = xp.where(xp.isinf(x) | (x == 0), xp.full_like(x, math.inf), out)
    return xp.where(xp.isnan(x), x, out)


def _digamma_positive(xp: Any, x: Any) -> Any:
    """psi(x) for x > 0: recurrence up to 10, then the asymptotic series."""
    acc = xp.zeros_like(x)
    for _ in range(10):
        m = x < 10.0
        acc = acc - xp.where(m, 1.0 / x, xp.zeros_like(x))
        x = xp.where(m, x + 1.0, x)
    inv2 = 1.0 / (x * x)
    coefs = [float(b) / (2 * (k + 1)) for k, b in enumerate(_BERNOULLI[:8])]
    return acc + xp.log(x) - 0.5 / x - inv2 * horner(inv2, coefs)


@widened
def digamma(xp: Any, x: Any) -> Any:
    """psi(x) = d/dx log Gamma(x): NaN at -1, -2, ... and -inf, -+inf at +-0 (PyTorch's)."""
    finite = xp.isfinite(x)
    xs = guarded(xp, finite, x, 1.0)
    neg = xs < 0
    refl_x = xp.where(neg, 1.0 - xs, xs)
    pos = _digamma_positive(xp, guarded(xp, refl_x > 0, refl_x, 1.0))
    out = xp.where(neg, pos - math.pi * _cot_pi(xp, xs), pos)  # psi(1-x) - psi(x) = pi cot
    # near the positive zero the recurrence cancels: the Taylor series there
    d = ((xs - _PSI_ROOT[0]) - _PSI_ROOT[1]) - _PSI_ROOT[2]
    near = xp.abs(d) < 0.25
    out = xp.where(near, horner(guarded(xp, near, d, 0.0), _PSI_ROOT_TAYLOR), out)
    pole = (x < 0) & (x == xp.floor(x))
    out = xp.where(pole, xp.full_like(x, math.nan), out)
    out = xp.where(x == 0, -xp.copysign(xp.full_like(x, math.inf), x), out)
    out = xp.where(x == math.inf, x, out)
    return xp.where(xp.isnan(x), x, out)


@widened
def zeta(xp: Any, s: Any, q: Any) -> Any:
    """The Hurwitz zeta function ``sum_k (q + k)^-s`` (s > 1), with PyTorch's (Cephes') values:
    inf at s == 1 and at q a non-positive integer, NaN for s < 1, for negative q with
    non-integer s, and at q == +inf."""
    s, q = xp.broadcast_arrays(s, q)
    ok = (s > 1) & xp.isfinite(s) & xp.isfinite(q)
    ss = guarded(xp, ok, s, 2.0)
    qq = guarded(xp, ok, q, 1.0)
    if ss.size == 0:
        return ss
    s_top = min(float(xp.max(ss)), 2000.0)
    a = max(20.0, s_top + 10.0)
    steps = int(min(math.ceil(a - min(float(xp.min(qq)), a)), _ZETA_SHIFT_CAP))
    acc = xp.zeros_like(qq)
    for _ in range(steps):
        m = qq < a
        acc = acc + xp.where(m, qq ** -ss, xp.zeros_like(qq))
        qq = xp.where(m, qq + 1.0, qq)
    inv = 1.0 / qq
    power = qq ** -ss
    tail = qq ** (1.0 - ss) / (ss - 1.0) + 0.5 * power  # not qq * power: power may underflow
    rising = ss * power * inv
    for j, c in enumerate(_EM):
        tail = tail + c * rising
        rising = rising * ((ss + (2 * j + 1)) * (ss + (2 * j + 2))) * (inv * inv)
    out = acc + tail
    pole = (q <= 0) & (q == xp.floor(q))
    bad = (s < 1) | ((q < 0) & ~pole & (s != xp.floor(s))) | (q == math.inf)
    at_inf = xp.where((q > 0) & (q < 1), xp.full_like(q, math.inf), xp.full_like(q, math.nan))
    out = xp.where(s == math.inf, xp.where(q == 1, xp.ones_like(q), at_inf), out)
    out = xp.where(pole | (s == 1), xp.full_like(out, math.inf), out)
    out = xp.where(bad, xp.full_like(out, math.nan), out)
    return xp.where(xp.isnan(s) | xp.isnan(q), s + q, out)


@widened
def polygamma(xp: Any, n: int, x: Any) -> Any:
    """The n-th derivative of digamma, ``psi^(n)(x)``, for an integer n >= 1:
    ``(-1)^(n+1) n! zeta(n + 1, x)``, through the reflection formula for x < 0 (the zeta sum
    would cancel there); ``(-1)^(n+1) inf`` at the poles (PyTorch's)."""
    sign = 1.0 if n % 2 == 1 else -1.0
    neg = x < 0
    q = xp.where(neg, 1.0 - x, x)
    pos = sign * float(math.factorial(n)) * zeta(xp, xp.full_like(x, float(n + 1)), q)
    # differentiating psi(1 - x) - psi(x) = pi cot(pi x) n times:
    # psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x))
    cot = _cot_pi(xp, guarded(xp, neg & xp.isfinite(x), x, 0.25))
    refl = (-1.0) ** n * pos - math.pi ** (n + 1) * horner(cot, _cot_derivative(n))
    out = xp.where(neg, refl, pos)
    pole = (x <= 0) & (x == xp.floor(x))
    out = xp.where(pole, xp.full_like(x, sign * math.inf), out)
    if n == 1:  # trigamma (PyTorch's own kernel): NaN at -inf
        out = xp.where(x == -math.inf, xp.full_like(x, math.nan), out)
    # PyTorch's zeta(n + 1, inf) is NaN; trigamma's own kernel gives 0 there
    return xp.where(x == math.inf, xp.full_like(x, 0.0 if n == 1 else math.nan), out)


@widened
def mvlgamma(xp: Any, x: Any, p: int) -> Any:
    """The multivariate log-gamma ``sum_{j<p} lgamma(x - j/2) + p (p-1)/4 log(pi)``."""
    out = xp.zeros_like(x) + p * (p - 1) / 4.0 * math.log(math.pi)
    for j in range(p):
        out = out + lgamma(xp, x - 0.5 * j)
    return out
