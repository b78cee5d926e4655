"""Implicit reparameterisation gradients on native arrays: how a Gamma or a Beta sample moves
when its shape parameter does, with the uniform (the CDF value) held fixed:
``dx/da = -(dF/da)(x; a) / f(x; a)``, F the CDF and f the density.

PyTorch computes these (``_standard_gamma_grad``, ``_dirichlet_grad``) with fitted
approximations; here the CDF's parameter derivative is summed from its series, term by term:

* Gamma: ``P(a, x) = sum_n e^-x x^(a+n) / Gamma(a+n+1)``, whose terms' a-derivatives are
  ``log x - psi(a+n+1)`` times the term;
* Beta, in its first parameter (a Dirichlet component's marginal, the other concentrations
  held fixed): ``I_y(p, q) = y^p (1-y)^q / (p B(p, q)) sum_n (p+q)_n / (p+1)_n y^n``, whose
  terms' p- and q-derivatives are ``log y + psi(p+q+n) - psi(p+1+n)`` and
  ``log(1-y) - psi(q) + psi(p+q+n)`` times the term, evaluated on the side of the mean where
  the series converges fast (``I_x(a, b) = 1 - I_(1-x)(b, a)``).

Both are exact to float64 rounding where the sample is not in a far tail (F or 1 - F above
about 1e-10, i.e. every sample but about one in 1e10).
"""

from __future__ import annotations

import math
from typing import Any

from arraygrad.ops._special._common import guarded, widened
from arraygrad.ops._special.gamma import digamma, lgamma

__all__ = ["gamma_grad", "beta_grad"]

_EPS = 1.1102230246251565e-16
_CHUNK = 16
_MAX_STEPS = 100000


def _sum_series(xp: Any, step: Any, state: tuple[Any, ...]) -> tuple[Any, ...]:
    """Iterate ``step(state, n) -> (state, done)`` for n = 1, 2, ..., freezing each lane once
    done, until all are (checked every few steps)."""
    done = xp.zeros(state[0].shape, dtype=xp.bool)
    n = 0
    while n < _MAX_STEPS:
        for _ in range(_CHUNK):
            n += 1
            *new, finished = step(state, n)
            state = tuple(xp.where(done, old, fresh) for old, fresh in zip(state, new))
            done = done | finished
        if bool(xp.all(done)):
            break
    return state


@widened
def gamma_grad(xp: Any, a: Any, x: Any) -> Any:
    """``dx/da`` of a standard Gamma(a) sample ``x`` (implicit reparameterisation)."""
    a, x = xp.broadcast_arrays(a, x)
    ok = (a > 0) & (x > 0) & xp.isfinite(a) & xp.isfinite(x)
    a = guarded(xp, ok, a, 1.0)
    x = guarded(xp, ok, x, 1.0)
    log_x = xp.log(x)
    # term_0 = e^-x x^a / Gamma(a + 1); its a-derivative factor log x - psi(a + 1)
    log_term = a * log_x - x - lgamma(xp, a + 1.0)
    term = xp.exp(log_term)
    psi = digamma(xp, a + 1.0)
    total = term * (log_x - psi)

    def step(state: tuple[Any, ...], n: int) -> tuple[Any, ...]:
        term, psi, total = state
        psi = psi + 1.0 / (a + float(n))  # psi(a + n + 1)
        term = term * x / (a + float(n))
        piece = term * (log_x - psi)
        total = total + piece
        # the terms grow until n ~ x - a, then fall geometrically
        converged = (float(n) > x - a) & (xp.abs(piece) <= _EPS * xp.abs(total))
        return term, psi, total, converged

    _, _, dcdf = _sum_series(xp, step, (term, psi, total))
    density = xp.exp((a - 1.0) * log_x - x - lgamma(xp, a))
    out = -dcdf / density
    return xp.where(ok, out, xp.full_like(out, math.nan))


def _beta_directional(xp: Any, y: Any, p: Any, q: Any, dp: Any, dq: Any) -> Any:
    """``(dp d/dp + dq d/dq) I_y(p, q)`` by the series (fast for y below the mean); ``dp`` and
    ``dq`` are arrays (per lane)."""
    log_y, log_1my = xp.log(y), xp.log1p(-y)
    log_pre = (p * log_y + q * log_1my - xp.log(p)
               - (lgamma(xp, p) + lgamma(xp, q) - lgamma(xp, p + q)))
    term = xp.exp(log_pre)
    psi_pq = digamma(xp, p + q)  # psi(p + q + n)
    psi_p1 = digamma(xp, p + 1.0)  # psi(p + 1 + n)
    psi_q = digamma(xp, q)
    factor = dp * (log_y + psi_pq - psi_p1) + dq * (log_1my - psi_q + psi_pq)
    total = term * factor

    def step(state: tuple[Any, ...], n: int) -> tuple[Any, ...]:
        term, psi_pq, psi_p1, total = state
        k = float(n - 1)
        term = term * y * (p + q + k) / (p + 1.0 + k)
        psi_pq = psi_pq + 1.0 / (p + q + k)
        psi_p1 = psi_p1 + 1.0 / (p + 1.0 + k)
        piece = term * (dp * (log_y + psi_pq - psi_p1) + dq * (log_1my - psi_q + psi_pq))
        total = total + piece
        return term, psi_pq, psi_p1, total, xp.abs(piece) <= _EPS * xp.abs(total)

    return _sum_series(xp, step, (term, psi_pq, psi_p1, total))[3]


@widened
def beta_grad(xp: Any, x: Any, a: Any, total: Any) -> Any:
    """PyTorch's ``_dirichlet_grad``: for a Dirichlet sample's component x (its marginal a
    Beta(a, total - a)), ``dx/da`` with the other concentrations held fixed, divided by
    ``1 - x`` -- so that ``dx_j/da_i = g_i (delta_ij - x_j)`` for the whole sample."""
    x, a, total = xp.broadcast_arrays(x, a, total)
    b = total - a
    ok = (a > 0) & (b > 0) & (x > 0) & (x < 1)
    a = guarded(xp, ok, a, 1.0)
    b = guarded(xp, ok, b, 1.0)
    x = guarded(xp, ok, x, 0.5)
    left = x <= a / (a + b)
    # d/da I_x(a, b) at fixed b; on the right, I_x(a, b) = 1 - I_(1-x)(b, a), whose
    # a-derivative is -d/dq I_(1-x)(p = b, q = a)
    y = xp.where(left, x, 1.0 - x)
    p = xp.where(left, a, b)
    q = xp.where(left, b, a)
    one, zero = xp.ones_like(x), xp.zeros_like(x)
    dcdf = _beta_directional(xp, y, p, q, xp.where(left, one, zero), xp.where(left, zero, -one))
    log_density = ((a - 1.0) * xp.log(x) + (b - 1.0) * xp.log1p(-x)
                   - (lgamma(xp, a) + lgamma(xp, b) - lgamma(xp, a + b)))
    out = -dcdf / (xp.exp(log_density) * (1.0 - x))
    return xp.where(ok, out, xp.full_like(out, math.nan))
