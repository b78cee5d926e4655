"""Portable special functions: pure Array API code, for any backend.

Every function here takes the backend's namespace ``xp`` and native floating
arrays, and returns a native array of the same dtype. Nothing but ``xp`` is
used, so these run on any backend arraygrad can drive; the per-backend
kernels (SciPy, CuPy) are only a faster, sometimes more accurate, shortcut.

Accuracy targets float64 (about 1e-15 relative for most arguments; see the
plugin's README for measured errors); float32 inputs are computed in float32
and float16 inputs in float32 (then cast back), since the polynomial
coefficients and the intermediate ranges do not fit float16.

The algorithms:

* ``erfc``: Cephes' rational approximations (|x| < 1: 1 - erf; |x| >= 1:
  erfc), with ``exp(-x*x)`` split so its rounding does not grow with x. (``erf``
  itself is the core's op, ``arraygrad.special.erf``; the erf rational here is
  only a building block of erfc and erfinv.)
* ``erfinv``: Giles' approximation, then two Halley steps on the erf (or, in
  the tails, erfc) residual.
* ``lgamma``: a Taylor series of ``lgamma(2 + z)`` around 2 (exact near the
  zeros at 1 and 2), Lanczos (g = 7) from 3, reflection below 0.5.
* ``digamma``: reflection, upward recurrence to x >= 10, asymptotic series;
  a Taylor series around the positive zero keeps relative accuracy there.
* ``polygamma(n, x)``: ``(-1)**(n+1) n! zeta(n+1, x)`` with the Hurwitz zeta by
  recurrence plus Euler-Maclaurin; reflection (derivatives of cot) for x < 0.
* ``i0``/``i1``: power series for |x| <= 20, Hankel asymptotic series beyond.
* ``xlogy``, ``logit``, ``expit``: direct formulas, arranged to avoid
  cancellation.
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["erfc", "erfinv", "lgamma", "digamma", "polygamma", "i0", "i1", "xlogy",
           "logit", "expit"]

# -- constants computed once, in Python, at import ----------------------------------------

_BERNOULLI = [Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30),
              Fraction(5, 66), Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510),
              Fraction(43867, 798), Fraction(-174611, 330), Fraction(854513, 138),
              Fraction(-236364091, 2730)]
"""B_2, B_4, ..., B_24."""

_EM = [float(b / math.factorial(2 * (j + 1))) for j, b in enumerate(_BERNOULLI)]
"""Euler-Maclaurin coefficients B_2j / (2j)!."""


def _hurwitz_scalar(s: int, q: float) -> float:
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
_LGAMMA2 = [0.0, 1.0 - _EULER_GAMMA] + [(-1) ** k * _hurwitz_scalar(k, 2.0) / k
                                         for k in range(2, 64)]

# The positive zero of digamma, in three parts (Boost's split), and psi's Taylor
# coefficients there: psi(x0 + d) = sum_{k>=1} (-1)^(k+1) zeta(k+1, x0) d^k.
_PSI_ROOT = (1569415565.0 / 1073741824.0, 381566830.0 / 1073741824.0 ** 2,
             0.9016312093258695918615325266959189453125e-19)
_PSI_ROOT_X0 = 1.4616321449683623412626595
_PSI_ROOT_TAYLOR = [0.0] + [(-1) ** (k + 1) * _hurwitz_scalar(k + 1, _PSI_ROOT_X0)
                            for k in range(1, 26)]

_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)

_HALF_LOG_2PI = 0.91893853320467274178
_TWO_OVER_SQRT_PI = 1.1283791670955125739

# Cephes ndtr.c: erf on |x| <= 1 (T/U), erfc on 1 <= x < 8 (P/Q) and x >= 8 (R/S).
_ERF_T = (9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
          7.00332514112805075473E3, 5.55923013010394962768E4)
_ERF_U = (1.0, 3.35617141647503099647E1, 5.21357949780152679795E2, 4.59432382970980127987E3,
          2.26290000613890934246E4, 4.92673942608635921086E4)
_ERFC_P = (2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
           4.86371970985681366614E1, 1.96520832956077098242E2, 5.26445194995477358631E2,
           9.34528527171957607540E2, 1.02755188689515710272E3, 5.57535335369399327526E2)
_ERFC_Q = (1.0, 1.32281951154744992508E1, 8.67072140885989742329E1, 3.54937778887819891062E2,
           9.75708501743205489753E2, 1.82390916687909736289E3, 2.24633760818710981792E3,
           1.65666309194161350182E3, 5.57535340817727675546E2)
_ERFC_R = (5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
           6.16021097993053585195E0, 7.40974269950448939160E0, 2.97886665372100240670E0)
_ERFC_S = (1.0, 2.26052863220117276590E0, 9.39603524938001434673E0, 1.20489539808096656605E1,
           1.70814450747565897222E1, 9.60896809063285878198E0, 3.36907645100081516050E0)

# Giles (2010), "Approximating the erfinv function": the single-precision version,
# used only as the starting point of the Halley iteration.
_GILES_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06,
                  0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
_GILES_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844,
               0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)

# i0/i1 power series in t = x^2/4: I0 = sum t^k/(k!)^2, I1 = x/2 sum t^k/(k!(k+1)!).
_I0_SERIES = [1.0 / math.factorial(k) ** 2 for k in range(42)]
_I1_SERIES = [1.0 / (math.factorial(k) * math.factorial(k + 1)) for k in range(42)]


def _hankel(nu: int, n: int) -> list:
    """Coefficients c_k of I_nu(x) ~ e^x / sqrt(2 pi x) sum_k c_k x^-k (Hankel, large x)."""
    mu = 4 * nu * nu
    out, c = [1.0], Fraction(1)
    for k in range(1, n):
        c *= Fraction(-(mu - (2 * k - 1) ** 2), 8 * k)
        out.append(float(c))
    return out


_I0_ASYMP = _hankel(0, 30)
_I1_ASYMP = _hankel(1, 30)
_BESSEL_SERIES_MAX = 20.0


def _cot_derivative_polys(nmax: int) -> list:
    """P_n with d^n/dx^n cot(pi x) = pi^n P_n(cot(pi x)), as coefficient lists (low first)."""
    polys = [[0, 1]]
    for _ in range(nmax):
        p = polys[-1]
        dp = [k * p[k] for k in range(1, len(p))] or [0]
        # P_{n+1}(c) = -(1 + c^2) P_n'(c)
        nxt = [0] * (len(dp) + 2)
        for k, v in enumerate(dp):
            nxt[k] -= v
            nxt[k + 2] -= v
        polys.append(nxt)
    return polys


# -- helpers -------------------------------------------------------------------------------

def _poly(xp, x, coefs):
    """Horner evaluation of ``coefs`` (highest power first) at ``x``."""
    p = xp.zeros_like(x) + coefs[0]
    for c in coefs[1:]:
        p = p * x + c
    return p


def _poly_low(xp, x, coefs):
    """Horner evaluation of ``coefs`` (lowest power first) at ``x``."""
    return _poly(xp, x, coefs[::-1])


def _work(xp, x):
    """``x`` in the dtype the formulas run in (float16 is too narrow for them)."""
    # float16 is not in the Array API standard: ask only namespaces that have it
    f16 = getattr(xp, "float16", None)
    if f16 is not None and x.dtype == f16:
        return xp.astype(x, xp.float32)
    return x


def _done(xp, out, like):
    """``out`` cast back to ``like``'s dtype."""
    return out if out.dtype == like.dtype else xp.astype(out, like.dtype)


def _sin_pi_abs(xp, x):
    """|sin(pi x)|, reduced exactly (x - round(x) has no rounding error)."""
    return xp.sin(math.pi * xp.abs(x - xp.round(x)))


def _cot_pi(xp, x):
    """cot(pi x) with exact argument reduction, exactly 0 at half-integers.

    With r = x - round(x) in [-1/2, 1/2] (exact): near the poles (|r| < 1/4)
    1 / tan(pi r); else sign(r) tan(pi (1/2 - |r|)), where 1/2 - |r| is exact and
    tan(0) = 0 at half-integers (1 / tan(pi / 2) is not).
    """
    r = x - xp.round(x)
    ar = xp.abs(r)
    near_pole = ar < 0.25
    safe = xp.where(near_pole, r, xp.full_like(r, 0.25))
    return xp.where(near_pole, 1.0 / xp.tan(math.pi * safe),
                    xp.sign(r) * xp.tan(math.pi * (0.5 - ar)))


# -- erfc, erfinv ---------------------------------------------------------------------------

def _exp_minus_x2(xp, x):
    """exp(-x*x) for x >= 0, without the rounding of x*x being amplified (Cephes expx2)."""
    m = xp.floor(x * 128.0 + 0.5) / 128.0
    f = x - m
    return xp.exp(-(m * m)) * xp.exp(-(2.0 * m * f + f * f))


def _erfc_large(xp, ax):
    """erfc(ax) for ax >= 1 (values for smaller ax are computed but unused)."""
    ax = xp.minimum(ax, 40.0)  # erfc(40) underflows anyway; keeps the rationals finite
    z = _exp_minus_x2(xp, ax)
    mid = z * _poly(xp, ax, _ERFC_P) / _poly(xp, ax, _ERFC_Q)
    far = z * _poly(xp, ax, _ERFC_R) / _poly(xp, ax, _ERFC_S)
    return xp.where(ax < 8.0, mid, far)


def _erf_small(xp, x):
    """erf(x) for |x| <= 1."""
    z = x * x
    return x * _poly(xp, z, _ERF_T) / _poly(xp, z, _ERF_U)


def erfc(xp, x):
    """The complementary error function 1 - erf(x), accurate where it is tiny."""
    w = _work(xp, x)
    ax = xp.abs(w)
    small = 1.0 - _erf_small(xp, xp.where(ax < 1.0, w, xp.zeros_like(w)))
    tail = _erfc_large(xp, ax)
    large = xp.where(w < 0, 2.0 - tail, tail)
    return _done(xp, xp.where(ax < 1.0, small, large), x)


def erfinv(xp, x):
    """The inverse error function on [-1, 1] (±inf at ±1, nan outside)."""
    w = _work(xp, x)
    ax = xp.abs(w)
    inside = ax < 1.0
    a = xp.where(inside, ax, xp.zeros_like(ax))  # keeps the iteration finite at and beyond 1
    lw = -xp.log((1.0 - a) * (1.0 + a))
    central = _poly(xp, lw - 2.5, _GILES_CENTRAL)
    tail = _poly(xp, xp.sqrt(lw) - 3.0, _GILES_TAIL)
    y = xp.where(lw < 5.0, central, tail) * a
    tail_side = a > 0.5
    # 1 - a is exact for a >= 0.5, so the tail residual keeps relative accuracy
    log_one_minus_a = xp.log(xp.where(tail_side, 1.0 - a, xp.ones_like(a)))
    for _ in range(4):
        slope = _TWO_OVER_SQRT_PI * _exp_minus_x2(xp, y)  # d erf / dy
        # centre: Halley on erf(y) - a (cubic from Giles' ~1e-7 start); a <= 1/2 there, so
        # y < 1/2 and erf(y) is the |y| <= 1 rational (tail lanes' values are discarded)
        d = (_erf_small(xp, y) - a) / slope
        central_step = d / (1.0 + y * d)
        # tails: Newton on log(erfc(y)) - log(1 - a), which is nearly quadratic in y, so
        # it converges fast even where Giles' polynomial is extrapolated (1 - a < 1e-7)
        c = erfc(xp, xp.where(tail_side, y, xp.zeros_like(y)))
        tail_step = -(xp.log(c) - log_one_minus_a) * c / slope
        y = y - xp.where(tail_side, tail_step, central_step)
    y = xp.where(ax == 1.0, xp.full_like(y, math.inf), y)
    y = xp.where(ax > 1.0, xp.full_like(y, math.nan), y)
    y = xp.where(xp.isnan(w), w, y)
    return _done(xp, xp.where(w < 0, -y, y), x)


# -- gamma family --------------------------------------------------------------------------

def _lgamma_lanczos(xp, x):
    """log Gamma(x) for x >= 3 (Lanczos, g = 7)."""
    x1 = x - 1.0
    a = xp.zeros_like(x) + _LANCZOS[0]
    for i, c in enumerate(_LANCZOS[1:], start=1):
        a = a + c / (x1 + float(i))
    t = x1 + (_LANCZOS_G + 0.5)
    return _HALF_LOG_2PI + (x1 + 0.5) * xp.log(t) - t + xp.log(a)


def _lgamma_positive(xp, x):
    """log Gamma(x) for x >= 0.5."""
    # [0.5, 1.5): lgamma(x) = lgamma(x + 1) - log(x), with lgamma(x + 1) from the series
    low = x < 1.5
    # z = (x + 1) - 2 or x - 2, formed so it is exact (x + 1 would round)
    z = xp.where(low, x - 1.0, xp.where(x < 3.0, x - 2.0, xp.zeros_like(x)))
    series = _poly_low(xp, z, _LGAMMA2)
    # log(x) near x = 1 is log1p of an exact difference
    series = xp.where(low, series - xp.log1p(x - 1.0), series)
    big = xp.where(x >= 3.0, x, xp.full_like(x, 3.0))
    return xp.where(x >= 3.0, _lgamma_lanczos(xp, big), series)


def lgamma(xp, x):
    """log |Gamma(x)| (inf at the poles 0, -1, -2, ...)."""
    w = _work(xp, x)
    neg = w < 0.5
    pos = _lgamma_positive(xp, xp.where(neg, 1.0 - w, w))
    # reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x)
    refl = math.log(math.pi) - xp.log(_sin_pi_abs(xp, w)) - pos
    out = xp.where(neg, refl, pos)
    # +inf at +-inf; scipy.special.gammaln(-inf) is -inf and the reference is scipy
    out = xp.where(xp.isinf(w), w, out)
    out = xp.where(xp.isnan(w), w, out)
    return _done(xp, out, x)


def _digamma_positive(xp, x):
    """psi(x) for x > 0: recurrence up to 10, then the asymptotic series."""
    acc = xp.zeros_like(x)
    for _ in range(10):
        m = x < 10.0
        acc = acc - xp.where(m, 1.0 / x, xp.zeros_like(x))
        x = xp.where(m, x + 1.0, x)
    inv2 = 1.0 / (x * x)
    # sum_k B_2k / (2k x^2k), k = 1..8
    coefs = [float(b) / (2 * (k + 1)) for k, b in enumerate(_BERNOULLI[:8])]
    tail = inv2 * _poly_low(xp, inv2, coefs)
    return acc + xp.log(x) - 0.5 / x - tail


def digamma(xp, x):
    """The digamma function psi(x) = d/dx log Gamma(x) (nan at 0, -1, -2, ...; -inf at -0)."""
    w = _work(xp, x)
    neg = w < 0
    refl_x = xp.where(neg, 1.0 - w, w)
    pos = _digamma_positive(xp, xp.where(refl_x > 0, refl_x, xp.ones_like(w)))
    # psi(1 - x) - psi(x) = pi cot(pi x)
    refl = pos - math.pi * _cot_pi(xp, w)
    out = xp.where(neg, refl, pos)
    # near the positive zero the recurrence cancels: use the Taylor series there
    d = ((w - _PSI_ROOT[0]) - _PSI_ROOT[1]) - _PSI_ROOT[2]
    near = xp.abs(d) < 0.25
    out = xp.where(near, _poly_low(xp, xp.where(near, d, xp.zeros_like(d)), _PSI_ROOT_TAYLOR),
                   out)
    pole = (w <= 0) & (w == xp.floor(w))
    out = xp.where(pole, xp.full_like(w, math.nan), out)
    # scipy: psi(+0) = -inf, psi(-0) = +inf
    out = xp.where(w == 0, xp.copysign(xp.full_like(w, math.inf), -w), out)
    out = xp.where(w == math.inf, w, out)
    out = xp.where(xp.isnan(w), w, out)
    return _done(xp, out, x)


def _hurwitz(xp, s: int, q):
    """Hurwitz zeta(s, q) for integer s >= 2 and q > 0 (recurrence + Euler-Maclaurin)."""
    a = float(max(20, s + 10))
    acc = xp.zeros_like(q)
    for _ in range(int(a)):
        m = q < a
        acc = acc + xp.where(m, q ** float(-s), xp.zeros_like(q))
        q = xp.where(m, q + 1.0, q)
    inv = 1.0 / q
    qs = q ** float(-s)
    tail = q ** float(1 - s) / (s - 1) + 0.5 * qs  # not q * qs: qs may underflow alone
    rising = float(s) * qs * inv
    for j, c in enumerate(_EM):
        tail = tail + c * rising
        rising = rising * ((s + 2 * j + 1) * (s + 2 * j + 2)) * (inv * inv)
    return acc + tail


def polygamma(xp, n: int, x):
    """The n-th derivative of digamma, psi^(n)(x), for integer n >= 0."""
    n = int(n)
    if n < 0:
        raise ValueError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return digamma(xp, x)
    w = _work(xp, x)
    neg = w < 0
    q = xp.where(neg, 1.0 - w, w)
    sign = -1.0 if n % 2 == 0 else 1.0
    pos = sign * float(math.factorial(n)) * _hurwitz(xp, n + 1, q)
    # differentiating psi(1 - x) - psi(x) = pi cot(pi x) n times:
    # psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x))
    cot = _cot_pi(xp, xp.where(neg, w, xp.full_like(w, 0.25)))
    poly = _poly_low(xp, cot, [float(c) for c in _cot_derivative_polys(n)[n]])
    refl = (-1.0) ** n * pos - math.pi ** (n + 1) * poly
    out = xp.where(neg, refl, pos)
    pole = (w <= 0) & (w == xp.floor(w))
    # scipy: (-1)^(n+1) n! * zeta(n+1, pole) with zeta = +inf there
    out = xp.where(pole, xp.full_like(w, sign * math.inf), out)
    return _done(xp, out, x)


# -- modified Bessel functions -------------------------------------------------------------

def _bessel(xp, x, series, asymp, odd: bool):
    ax = xp.abs(x)
    small = ax <= _BESSEL_SERIES_MAX
    xs = xp.where(small, ax, xp.zeros_like(ax))
    t = xs * xs * 0.25
    s = _poly_low(xp, t, series)
    if odd:
        s = s * (0.5 * xs)
    xl = xp.where(small, xp.full_like(ax, 2.0 * _BESSEL_SERIES_MAX), ax)
    h = _poly_low(xp, 1.0 / xl, asymp)
    # e^x / sqrt(2 pi x) as e^(x/2) * (e^(x/2) h / sqrt(...)): finite wherever the result is
    half = xp.exp(0.5 * xl)
    large = half * (half * h / xp.sqrt(2.0 * math.pi * xl))
    out = xp.where(small, s, large)
    if odd:
        out = xp.where(x < 0, -out, out)
    return out


def i0(xp, x):
    """The modified Bessel function of the first kind, order 0."""
    w = _work(xp, x)
    return _done(xp, _bessel(xp, w, _I0_SERIES, _I0_ASYMP, odd=False), x)


def i1(xp, x):
    """The modified Bessel function of the first kind, order 1."""
    w = _work(xp, x)
    return _done(xp, _bessel(xp, w, _I1_SERIES, _I1_ASYMP, odd=True), x)


# -- logs and logistic ---------------------------------------------------------------------

def xlogy(xp, x, y):
    """``x * log(y)``, and 0 where ``x == 0`` unless ``y`` is nan."""
    out = x * xp.log(y)
    zero = (x == 0) & ~xp.isnan(y)
    return xp.where(zero, xp.zeros_like(out), out)


def logit(xp, x):
    """``log(x / (1 - x))``; near 1/2 as ``log1p((2x - 1) / (1 - x))``, which does not cancel."""
    w = _work(xp, x)
    mid = (w > 0.25) & (w < 0.75)
    direct = xp.log(w / (1.0 - w))
    near_half = xp.log1p((2.0 * w - 1.0) / (1.0 - w))  # 2x - 1 and 1 - x are exact here
    return _done(xp, xp.where(mid, near_half, direct), x)


def expit(xp, x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``, relatively accurate in both tails."""
    w = _work(xp, x)
    e = xp.exp(-xp.abs(w))  # never overflows
    pos = 1.0 / (1.0 + e)
    out = xp.where(w >= 0, pos, e * pos)  # e / (1 + e) for x < 0: no cancellation
    out = xp.where(xp.isnan(w), w, out)
    return _done(xp, out, x)
