"""The portable special functions (``arraygrad.ops._special``, run on every backend) against
scipy.special on dense grids, in float64; where they disagree, mpmath arbitrates (scipy is
then the inaccurate one). The NumPy namespace is used directly, so no kernel is involved."""

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.ops import _erf
from arraygrad.ops._special import airy, bessel, gamma, incomplete_gamma, normal
from arraygrad.ops._special.polynomials import POLYNOMIALS

sc = pytest.importorskip("scipy.special", reason="the reference values are scipy's")
xp = ag.zeros(1)._backend.xp  # the NumPy backend's namespace

_POS = np.concatenate([np.linspace(1e-3, 30.0, 20001), np.logspace(-300, 300, 601)])
_NEG = np.linspace(-20.5, -1e-3, 10001)
_X = np.linspace(-30.0, 30.0, 20001)
_WIDE = np.concatenate([np.linspace(-60.0, 60.0, 24001), np.logspace(-10, 3, 1000),
                        -np.logspace(-10, 3, 1000)])
_U = np.concatenate([np.linspace(-1.0, 1.0, 20001), 1 - np.logspace(-16, -1, 200),
                     -1 + np.logspace(-16, -1, 200), np.logspace(-300, -1, 200)])
_P = np.concatenate([np.linspace(0.0, 1.0, 10001), np.logspace(-320, -1, 2000),
                     1 - np.logspace(-16, -1, 500)])
_B = np.concatenate([np.linspace(-700.0, 700.0, 14001), np.linspace(-25.0, 25.0, 10001)])

# (name, portable call, scipy reference, grid, rtol, atol). The atol covers points next to a
# zero of the function, where relative error is not meaningful (the reflection formulas, the
# Bessel functions' oscillations), and the Bessel/Airy phases at large |x|, whose rounding
# grows with |x|.
PORTABLE = [
    ("erfc", _erf.erfc_data, sc.erfc, _X, 1e-13, 0.0),
    ("erfinv", _erf.erfinv_data, sc.erfinv, _U, 4e-15, 0.0),
    ("erfcx", _erf.erfcx_data, sc.erfcx, np.concatenate([np.linspace(-26, 40, 6601),
                                                          np.logspace(1, 300, 300)]), 2e-15, 0),
    ("lgamma+", gamma.lgamma, sc.gammaln, _POS, 4e-15, 2e-16),
    ("lgamma-", gamma.lgamma, sc.gammaln, _NEG, 4e-15, 3e-14),
    ("digamma+", gamma.digamma, sc.psi, _POS, 4e-15, 0.0),
    ("digamma-", gamma.digamma, sc.psi, _NEG, 4e-15, 2e-15),
    ("i0", bessel.i0, sc.i0, _B, 4e-15, 0.0),
    ("i1", bessel.i1, sc.i1, _B, 4e-15, 0.0),
    ("i0e", bessel.i0e, sc.i0e, _B, 4e-15, 0.0),
    ("i1e", bessel.i1e, sc.i1e, _B, 4e-15, 0.0),
    ("k0", bessel.k0, sc.k0, _POS, 4e-15, 0.0),
    ("k1", bessel.k1, sc.k1, _POS, 4e-15, 0.0),
    ("k0e", bessel.k0e, sc.k0e, _POS, 4e-15, 0.0),
    ("k1e", bessel.k1e, sc.k1e, _POS, 4e-15, 0.0),
    ("j0", bessel.j0, sc.j0, _WIDE, 1e-13, 2e-16),
    ("j1", bessel.j1, sc.j1, _WIDE, 1e-13, 2e-16),
    ("y0", bessel.y0, sc.y0, _POS[:20001], 1e-13, 2e-16),
    ("y1", bessel.y1, sc.y1, _POS[:20001], 1e-13, 2e-16),
    ("spherical_j0", bessel.spherical_j0, lambda x: sc.spherical_jn(0, x), _WIDE, 4e-16, 0.0),
    # exp(-zeta) (x > 2) and the phase zeta (x < -3) carry zeta's rounding, ~1e-16 zeta
    ("airy_ai", airy.airy_ai, lambda x: sc.airy(x)[0], np.linspace(-60.0, 100.0, 16001),
     3e-13, 2e-14),
    ("ndtr", normal.ndtr, sc.ndtr, np.linspace(-37.0, 40.0, 7701), 1e-13, 0.0),
    ("log_ndtr", normal.log_ndtr, sc.log_ndtr, np.linspace(-1e3, 30.0, 10301), 1e-13, 1e-300),
    ("ndtri", normal.ndtri, sc.ndtri, _P, 2e-15, 0.0),
] + [
    (f"polygamma{n}{s}", lambda xp_, a, n=n: gamma.polygamma(xp_, n, a),
     lambda a, n=n: sc.polygamma(n, a), grid, 4e-15, 0.0)
    for n in (1, 2, 3, 4, 7) for s, grid in (("+", _POS), ("-", _NEG))
]


def relative_errors(actual, expected, atol=0.0):
    """``max(|a - e| - atol, 0) / |e|`` elementwise (0 where ``e`` is not finite and normal).

    Non-finite references must be matched exactly (same infinities, nan where nan).
    """
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape
    np.testing.assert_array_equal(np.isnan(actual), np.isnan(expected))
    inf = np.isinf(expected)
    np.testing.assert_array_equal(actual[inf], expected[inf])
    ok = np.isfinite(expected) & (np.abs(expected) > np.finfo(np.float64).tiny)
    with np.errstate(all="ignore"):  # inf - inf and friends, masked out by ``ok``
        err = np.maximum(np.abs(actual - expected) - atol, 0.0)
        return np.where(ok, err / np.abs(expected), 0.0)


def _mpmath_value(name, x):
    """The exact value (mpmath, 40 digits) of the function ``name`` of PORTABLE at ``x``."""
    import mpmath

    mpmath.mp.dps = 40
    x = mpmath.mpf(float(x))
    base = name.rstrip("+-")
    table = {"lgamma": lambda: mpmath.log(abs(mpmath.gamma(x))), "digamma": lambda: mpmath.digamma(x),
             "j0": lambda: mpmath.besselj(0, x), "j1": lambda: mpmath.besselj(1, x),
             "y0": lambda: mpmath.bessely(0, x), "y1": lambda: mpmath.bessely(1, x),
             "airy_ai": lambda: mpmath.airyai(x), "ndtr": lambda: mpmath.ncdf(x),
             "log_ndtr": lambda: mpmath.log(mpmath.ncdf(x)),
             "erfcx": lambda: mpmath.exp(x * x) * mpmath.erfc(x),
             "k0": lambda: mpmath.besselk(0, x), "k1": lambda: mpmath.besselk(1, x),
             "k0e": lambda: mpmath.exp(x) * mpmath.besselk(0, x),
             "k1e": lambda: mpmath.exp(x) * mpmath.besselk(1, x)}
    if base.startswith("polygamma"):
        return mpmath.polygamma(int(base[len("polygamma"):]), x)
    return table[base]()


@pytest.mark.parametrize("name,fn,ref,grid,rtol,atol", PORTABLE, ids=[p[0] for p in PORTABLE])
def test_portable_matches_scipy(name, fn, ref, grid, rtol, atol):
    """Within ``rtol`` of scipy; where not, scipy is the inaccurate one (checked with mpmath)."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = fn(xp, grid), ref(grid)
    errs = relative_errors(got, want, atol)
    disputed = np.nonzero(errs > rtol)[0]
    if disputed.size == 0:
        return
    pytest.importorskip("mpmath", reason="arbitrating a disagreement with scipy needs mpmath")
    assert disputed.size < 200, f"{disputed.size} points differ from scipy"
    for i in disputed:
        exact = float(_mpmath_value(name, grid[i]))
        assert abs(got[i] - exact) <= rtol * abs(exact) + atol, (grid[i], got[i], exact)


def _pairs(seed):
    rng = np.random.default_rng(seed)
    a = np.concatenate([10 ** rng.uniform(-3, 2, 3000), 10 ** rng.uniform(-8, 5, 1000)])
    x = np.concatenate([a[:3000] * rng.uniform(0, 3, 3000), 10 ** rng.uniform(-8, 5, 1000)])
    return a, x


def test_incomplete_gamma_matches_scipy():
    a, x = _pairs(1)
    p, q = incomplete_gamma.igamma_pair(xp, a, x)
    # both P and Q keep relative accuracy, each in its own tail (down to 1e-300)
    assert relative_errors(p, sc.gammainc(a, x)).max() < 2e-12
    assert relative_errors(q, sc.gammaincc(a, x)).max() < 2e-12


def test_incomplete_gamma_small_a_tail_against_mpmath():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    for a, x in [(1e-10, 0.5), (1e-5, 1.2), (0.3, 1e-8), (0.9, 1.5), (5e-3, 0.01)]:
        p, q = incomplete_gamma.igamma_pair(xp, np.array([a]), np.array([x]))
        exact_q = mpmath.gammainc(a, x, mpmath.inf, regularized=True)
        exact_p = mpmath.gammainc(a, 0, x, regularized=True)
        assert abs(q[0] - float(exact_q)) <= 1e-14 * float(exact_q), (a, x)
        assert abs(p[0] - float(exact_p)) <= 1e-14 * float(exact_p), (a, x)


def test_zeta_matches_scipy():
    rng = np.random.default_rng(2)
    s = np.concatenate([rng.uniform(1.001, 30, 2000), np.arange(2.0, 40.0)])
    q = np.concatenate([rng.uniform(1e-3, 50, 2000), rng.uniform(-8, 8, 38)])
    q[2000:] = np.where(q[2000:] == np.floor(q[2000:]), q[2000:] + 0.5, q[2000:])
    with np.errstate(all="ignore"):
        assert relative_errors(gamma.zeta(xp, s, q), sc.zeta(s, q)).max() < 1e-13


def test_mvlgamma_matches_scipy():
    x = np.linspace(2.6, 40.0, 500)
    for p in (1, 2, 3, 5):
        assert relative_errors(gamma.mvlgamma(xp, x, p),
                               np.array([sc.multigammaln(v, p) for v in x])).max() < 1e-13


@pytest.mark.parametrize("name", sorted(POLYNOMIALS))
def test_polynomials_match_scipy(name):
    rng = np.random.default_rng(3)
    x = rng.uniform(-2.0, 2.0, 400)
    n = rng.integers(0, 30, 400).astype(np.float64)
    base = name.replace("shifted_", "")
    ref = {"chebyshev_polynomial_t": sc.eval_chebyt, "chebyshev_polynomial_u": sc.eval_chebyu,
           "hermite_polynomial_h": sc.eval_hermite, "hermite_polynomial_he": sc.eval_hermitenorm,
           "laguerre_polynomial_l": sc.eval_laguerre, "legendre_polynomial_p": sc.eval_legendre,
           # V_n(x) = U_n(x) - U_(n-1)(x), W_n(x) = U_n(x) + U_(n-1)(x)
           "chebyshev_polynomial_v": lambda k, v: sc.eval_chebyu(k, v) - sc.eval_chebyu(k - 1, v),
           "chebyshev_polynomial_w": lambda k, v: sc.eval_chebyu(k, v) + sc.eval_chebyu(k - 1, v),
           }[base]
    arg = 2 * x - 1 if name.startswith("shifted_") else x
    want = np.where(n == 0, 1.0, ref(n.astype(np.int64), arg))
    got = POLYNOMIALS[name](xp, x, n)
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-11 * np.abs(want).max())


def test_polynomial_degree_is_truncated_and_negative_gives_zero():
    x = np.array([0.5, 0.5, 0.5, 0.5, 0.5])
    n = np.array([2.7, -1.0, np.nan, np.inf, 0.0])
    out = POLYNOMIALS["chebyshev_polynomial_t"](xp, x, n)
    assert out.tolist() == [-0.5, 0.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_portable_keeps_narrow_dtypes(dtype):
    a = np.linspace(0.1, 3.0, 50).astype(dtype)
    for fn, ref in [(gamma.lgamma, sc.gammaln), (gamma.digamma, sc.psi), (bessel.i0, sc.i0),
                    (bessel.k1, sc.k1), (normal.ndtr, sc.ndtr), (airy.airy_ai,
                                                                 lambda v: sc.airy(v)[0])]:
        out = fn(xp, a)
        assert out.dtype == a.dtype
        tol = 1e-6 if dtype == "float32" else 2e-3
        np.testing.assert_allclose(out.astype(np.float64), ref(a.astype(np.float64)),
                                   rtol=tol * 4, atol=tol)


def test_no_floating_point_warnings():
    """Every branch runs on every lane: the unused lanes' overflows stay silent."""
    pts = np.array([0.0, -0.0, -1.0, -2.5, 1e-320, 1e300, np.inf, -np.inf, np.nan])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fn in (gamma.lgamma, gamma.digamma, bessel.i0e, bessel.k0, bessel.y1, bessel.j0,
                   airy.airy_ai, normal.log_ndtr, normal.ndtri):
            fn(xp, pts)
        gamma.zeta(xp, pts + 3, pts)
        incomplete_gamma.igamma_pair(xp, np.abs(pts), pts)
        assert math.isnan(gamma.polygamma(xp, 3, pts)[-1])
