"""The regularized incomplete gamma functions on native arrays: ``igamma`` (P, lower) and
``igammac`` (Q, upper), ``P + Q = 1``, with PyTorch's values on the domain's edges.

Each lane takes one of three methods, and each answers the smaller of P and Q directly (the
other is its complement, so neither cancels):

* ``x < a + 1``: the power series ``P = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a+1)..(a+n))``;
* ``a < 1`` and ``x < a + 1`` also: Q by ``-expm1(a log x - lgamma(1 + a)) + ...`` (the small-a
  form, exact where Q is tiny and P = 1 - Q would not be);
* ``x >= a + 1``: Legendre's continued fraction for Q (modified Lentz).

The prefactor ``x^a e^-x / Gamma(a)`` is computed through Stirling's series for a >= 10, as
``exp(a (log1p(u) - u))`` with ``u = (x - a) / a``, so its exponent does not cancel.
Series and fraction iterate until every lane has converged (both take about sqrt(a) steps
where x is near a).
"""

from __future__ import annotations

import math
from typing import Any

from arraygrad.ops._special._common import guarded, horner, widened
from arraygrad.ops._special.gamma import _LGAMMA2, lgamma

__all__ = ["igamma", "igammac", "igamma_pair"]

_EPS = 1.1102230246251565e-16  # float64's half ulp of 1
_CHUNK = 16  # iterations between convergence checks
_MAX_STEPS = 200000
_TINY = 1e-300
# Stirling's series of lgamma(a) - ((a - 1/2) log a - a + log(2 pi)/2), in 1/a
_STIRLING = (1.0 / 12, -1.0 / 360, 1.0 / 1260, -1.0 / 1680, 1.0 / 1188, -691.0 / 360360,
             1.0 / 156)


def _prefactor(xp: Any, a: Any, x: Any) -> Any:
    """``x^a e^-x / Gamma(a)`` for a > 0, x > 0."""
    direct = xp.exp(a * xp.log(x) - x - lgamma(xp, a))
    big = a >= 10.0
    ab = guarded(xp, big, a, 10.0)
    xx = guarded(xp, big, x, 10.0)
    u = (xx - ab) / ab
    inv = 1.0 / ab
    corr = inv * horner(inv * inv, _STIRLING)
    # log(x / a) as log1p(u) near u = 0, where it is exact; directly elsewhere, where 1 + u
    # would round away x / a's digits
    log_ratio = xp.where(xp.abs(u) < 0.5, xp.log1p(u), xp.log(xx / ab))
    stirling = xp.sqrt(ab / (2.0 * math.pi)) * xp.exp(ab * (log_ratio - u) - corr)
    return xp.where(big, stirling, direct)


def _until_converged(xp: Any, step: Any, state: tuple[Any, ...], active: Any) -> tuple[Any, ...]:
    """Iterate ``step(state, n) -> (new state, converged mask)`` for n = 1, 2, ..., freezing
    each lane once it has converged, until every ``active`` lane has (checked every few steps)."""
    done = ~active
    n = 0
    while n < _MAX_STEPS:
        for _ in range(_CHUNK):
            n += 1
            *new, converged = step(state, n)
            state = tuple(xp.where(done, old, fresh) for old, fresh in zip(state, new))
            done = done | converged
        if bool(xp.all(done)):
            break
    return state


def _series_p(xp: Any, a: Any, x: Any, fac: Any, active: Any) -> Any:
    """P by the power series (lanes with x < a + 1)."""
    def step(state: tuple[Any, ...], n: int) -> tuple[Any, ...]:
        term, total = state
        term = term * x / (a + float(n))
        total = total + term
        return term, total, xp.abs(term) <= _EPS * xp.abs(total)

    one = xp.ones_like(a)
    _, total = _until_converged(xp, step, (one, one), active)
    return fac / a * total


def _fraction_q(xp: Any, a: Any, x: Any, fac: Any, active: Any) -> Any:
    """Q by Legendre's continued fraction (lanes with x >= a + 1), modified Lentz."""
    b0 = x + 1.0 - a

    def step(state: tuple[Any, ...], n: int) -> tuple[Any, ...]:
        b, c, d, h = state
        an = -float(n) * (float(n) - a)
        b = b + 2.0
        d = an * d + b
        d = xp.where(xp.abs(d) < _TINY, xp.full_like(d, _TINY), d)
        c = b + an / c
        c = xp.where(xp.abs(c) < _TINY, xp.full_like(c, _TINY), c)
        d = 1.0 / d
        delta = d * c
        return b, c, d, h * delta, xp.abs(delta - 1.0) <= _EPS

    d0 = 1.0 / guarded(xp, xp.abs(b0) >= _TINY, b0, _TINY)
    _, _, _, h = _until_converged(xp, step, (b0, xp.full_like(a, 1.0 / _TINY), d0, d0), active)
    return fac * h


def _small_a_q(xp: Any, a: Any, x: Any) -> Any:
    """Q for a < 1, x < 2: ``1 - x^a / Gamma(1 + a) (1 + a sum_{n>=1} (-x)^n / (n! (a+n)))``,
    arranged so that nothing cancels when Q is tiny."""
    lgamma1p = horner(a, _LGAMMA2) - xp.log1p(a)  # lgamma(1 + a) with no rounding of 1 + a
    log_power = a * xp.log(x) - lgamma1p
    total = xp.zeros_like(x)
    term = xp.ones_like(x)
    for n in range(1, 40):
        term = -term * x / float(n)
        total = total + term / (a + float(n))
    return -xp.expm1(log_power) - xp.exp(log_power) * a * total


@widened
def igamma_pair(xp: Any, a: Any, x: Any) -> tuple[Any, Any]:
    """``(P(a, x), Q(a, x))``: the regularized lower and upper incomplete gamma functions."""
    a, x = xp.broadcast_arrays(a, x)
    inner = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
    aa = guarded(xp, inner, a, 1.0)
    xx = guarded(xp, inner, x, 1.0)
    fac = _prefactor(xp, aa, xx)
    series = inner & (xx < aa + 1.0)
    fraction = inner & ~series
    p_series = _series_p(xp, aa, guarded(xp, series, xx, 0.5), fac, series) if \
        bool(xp.any(series)) else xp.zeros_like(aa)
    q_fraction = _fraction_q(xp, aa, guarded(xp, fraction, xx, 2.0), fac, fraction) if \
        bool(xp.any(fraction)) else xp.zeros_like(aa)
    small = series & (aa < 1.0)
    q_small = _small_a_q(xp, guarded(xp, small, aa, 0.5), guarded(xp, small, xx, 0.5))
    # per lane, the directly computed one of P and Q, the other its complement
    p = xp.where(series, p_series, 1.0 - q_fraction)
    q = xp.where(series, xp.where(small, q_small, 1.0 - p_series), q_fraction)
    p = xp.where(small & (q_small < 0.5), 1.0 - q_small, p)
    # PyTorch's edges: NaN for a < 0 or x < 0; at a == 0, P = 1 (x > 0); at x == 0, P = 0;
    # a == inf: P = 0 (NaN if x is inf too); x == inf: P = 1
    nan = xp.full_like(p, math.nan)
    zero, one = xp.zeros_like(p), xp.ones_like(p)
    edges = [((a < 0) | (x < 0), nan, nan),
             (a == 0, xp.where(x > 0, one, nan), xp.where(x > 0, zero, nan)),
             (x == 0, zero, one),
             (a == math.inf, xp.where(x == math.inf, nan, zero), xp.where(x == math.inf, nan, one)),
             (x == math.inf, one, zero)]
    for mask, p_edge, q_edge in reversed(edges):  # the first edge that applies wins
        p = xp.where(mask, p_edge, p)
        q = xp.where(mask, q_edge, q)
    missing = xp.isnan(a) | xp.isnan(x)
    return xp.where(missing, a + x, p), xp.where(missing, a + x, q)


def igamma(xp: Any, a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    return igamma_pair(xp, a, x)[0]


def igammac(xp: Any, a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return igamma_pair(xp, a, x)[1]
