"""Values of arraygrad-special against scipy.special: the kernel path and the portable path.

The portable path is forced by calling ``arraygrad_special.portable`` directly
with the NumPy namespace, so it is checked even where SciPy kernels exist. erf
is the core's op (``arraygrad.special.erf``): its portable path is run with the
plugin's SciPy kernel set aside.
"""

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.plugins import registry
from arraygrad_special import ops, portable

sc = pytest.importorskip("scipy.special")
xp = pytest.importorskip("array_api_compat.numpy")


def erf(xp_, a):
    """The core's erf on its own portable code, as ``portable.*`` are called: the kernel
    the plugin registers for it on NumPy (SciPy's) is set aside for the call."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delitem(registry._state.kernels, ("erf", "numpy"), raising=False)
        return ag.special.erf(ag.from_numpy(np.asarray(a))).numpy()

_POS = np.concatenate([np.linspace(1e-3, 30.0, 20001), np.logspace(-300, 300, 601)])
_NEG = np.linspace(-20.5, -1e-3, 10001)
_X = np.linspace(-30.0, 30.0, 20001)
_U = np.concatenate([np.linspace(-1.0, 1.0, 20001), 1 - np.logspace(-16, -1, 200),
                     -1 + np.logspace(-16, -1, 200), np.logspace(-300, -1, 200)])
_B = np.concatenate([np.linspace(-700.0, 700.0, 14001), np.linspace(-25.0, 25.0, 10001)])
_L = np.concatenate([np.linspace(0.0, 1.0, 10001), np.logspace(-300, -1, 200),
                     1 - np.logspace(-16, -1, 100)])

# (name, portable call, scipy reference, grid, rtol, atol). The atol covers points next to
# a zero of the function (lgamma's zeros at 1, 2 and below 0, digamma's zeros), where
# relative error is not meaningful: there both scipy and the portable code are off by
# ~1e-15 absolute (the reflection formula subtracts two numbers of size ~|lgamma(1 - x)|).
PORTABLE = [
    ("erf", erf, sc.erf, _X, 1e-15, 0.0),
    ("erfc", portable.erfc, sc.erfc, _X, 1e-13, 0.0),
    ("erfinv", portable.erfinv, sc.erfinv, _U, 4e-15, 0.0),
    ("lgamma+", portable.lgamma, sc.gammaln, _POS, 4e-15, 2e-16),
    ("lgamma-", portable.lgamma, sc.gammaln, _NEG, 4e-15, 3e-14),
    ("digamma+", portable.digamma, sc.psi, _POS, 4e-15, 0.0),
    ("digamma-", portable.digamma, sc.psi, _NEG, 4e-15, 2e-15),
    ("i0", portable.i0, sc.i0, _B, 4e-15, 0.0),
    ("i1", portable.i1, sc.i1, _B, 4e-15, 0.0),
    ("logit", portable.logit, sc.logit, _L, 1e-15, 0.0),
    ("expit", portable.expit, sc.expit, np.linspace(-700.0, 700.0, 20001), 1e-15, 0.0),
] + [
    (f"polygamma{n}{s}", lambda xp_, a, n=n: portable.polygamma(xp_, n, a),
     lambda a, n=n: sc.polygamma(n, a), grid, 4e-15, atol)
    for n in (1, 2, 3, 4, 7) for s, grid, atol in (("+", _POS, 0.0), ("-", _NEG, 0.0))
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


def max_relative_error(actual, expected, atol=0.0):
    """The largest of ``relative_errors``."""
    return float(relative_errors(actual, expected, atol).max(initial=0.0))


def _mpmath_value(name, x):
    """The exact value (mpmath, 40 digits) of the function ``name`` of PORTABLE at ``x``."""
    import mpmath

    mpmath.mp.dps = 40
    x = mpmath.mpf(float(x))
    base = name.rstrip("+-")
    if base == "lgamma":
        return mpmath.log(abs(mpmath.gamma(x)))
    if base == "digamma":
        return mpmath.digamma(x)
    if base.startswith("polygamma"):
        return mpmath.polygamma(int(base[len("polygamma"):]), x)
    raise KeyError(name)


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


def test_portable_xlogy_matches_scipy():
    x, y = np.meshgrid(np.linspace(-3, 3, 121), np.concatenate([[0.0, np.nan, np.inf],
                                                               np.linspace(1e-3, 5, 120)]))
    with np.errstate(all="ignore"):
        assert max_relative_error(portable.xlogy(xp, x, y), sc.xlogy(x, y)) <= 1e-15


@pytest.mark.parametrize("fn", [erf, portable.erfc, portable.erfinv, portable.lgamma,
                                portable.digamma, portable.i0, portable.i1, portable.logit,
                                portable.expit])
def test_portable_special_points(fn):
    pts = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, np.inf, -np.inf, np.nan])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = getattr(sc, {"lgamma": "gammaln", "digamma": "psi"}.get(fn.__name__,
                                                                       fn.__name__))(pts)
        assert max_relative_error(fn(xp, pts), ref) <= 1e-15


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_portable_keeps_narrow_dtypes(dtype):
    a = np.linspace(0.1, 3.0, 50).astype(dtype)
    for fn, ref in [(erf, sc.erf), (portable.lgamma, sc.gammaln),
                    (portable.digamma, sc.psi), (portable.i0, sc.i0)]:
        with np.errstate(all="ignore"):
            out = fn(xp, a)
        assert out.dtype == a.dtype
        tol = 1e-6 if dtype == "float32" else 2e-3
        np.testing.assert_allclose(out.astype(np.float64), ref(a.astype(np.float64)),
                                   rtol=tol * 4, atol=tol)


def test_portable_polygamma_rejects_negative_n():
    with pytest.raises(ValueError, match="negative n"):
        portable.polygamma(xp, -1, np.ones(2))


# -- through arraygrad (kernel path on NumPy when SciPy is installed) ------------------------

def _t(values, dtype=ag.float64):
    return ag.tensor(values, dtype=dtype)


OPS = [
    ("erf", ops.erf, sc.erf, [-2.0, -0.3, 0.0, 0.7, 3.0]),
    ("erfc", ops.erfc, sc.erfc, [-2.0, -0.3, 0.0, 0.7, 3.0, 10.0]),
    ("erfinv", ops.erfinv, sc.erfinv, [-0.99, -0.3, 0.0, 0.5, 0.999999]),
    ("lgamma", ops.lgamma, sc.gammaln, [-2.5, 0.1, 1.0, 2.5, 40.0]),
    ("gammaln", ops.gammaln, sc.gammaln, [0.3, 7.5]),
    ("digamma", ops.digamma, sc.psi, [-2.5, 0.1, 1.0, 2.5, 40.0]),
    ("i0", ops.i0, sc.i0, [-3.0, 0.0, 0.5, 30.0]),
    ("i1", ops.i1, sc.i1, [-3.0, 0.0, 0.5, 30.0]),
    ("logit", ops.logit, sc.logit, [0.01, 0.3, 0.5, 0.99]),
    ("expit", ops.expit, sc.expit, [-40.0, -1.0, 0.0, 2.0]),
]


@pytest.mark.parametrize("name,fn,ref,values", OPS, ids=[o[0] for o in OPS])
def test_op_matches_scipy(name, fn, ref, values):
    out = fn(_t(values))
    assert out.dtype is ag.float64
    np.testing.assert_allclose(out.numpy(), ref(np.array(values)), rtol=1e-14, atol=0)


@pytest.mark.parametrize("n", [0, 1, 2, 5])
def test_polygamma_matches_scipy(n):
    v = [-1.5, 0.25, 1.0, 3.5, 20.0]
    np.testing.assert_allclose(ops.polygamma(n, _t(v)).numpy(), sc.polygamma(n, np.array(v)),
                               rtol=1e-14)
    np.testing.assert_allclose(_t(v).polygamma(n).numpy(), sc.polygamma(n, np.array(v)),
                               rtol=1e-14)


def test_xlogy_values_scalars_and_broadcast():
    x = _t([[0.0, 1.5, -2.0]])
    y = _t([[0.0], [2.0]])
    np.testing.assert_allclose(ops.xlogy(x, y).numpy(), sc.xlogy(x.numpy(), y.numpy()))
    np.testing.assert_allclose(ops.xlogy(x, 3).numpy(), sc.xlogy(x.numpy(), 3.0))
    np.testing.assert_allclose(ops.xlogy(2, y).numpy(), sc.xlogy(2.0, y.numpy()))
    assert ops.xlogy(_t([0.0]), _t([math.nan])).isnan().item()  # nan stays nan
    assert ops.xlogy(x, 3).dtype is ag.float64


def test_logit_eps_clamps():
    x = _t([0.0, 0.1, 0.5, 1.0])
    np.testing.assert_allclose(ops.logit(x, eps=0.2).numpy(),
                               sc.logit(np.clip(x.numpy(), 0.2, 0.8)))
    assert ops.logit(_t([math.nan]), eps=0.2).isnan().item()


def test_float32_stays_float32_and_ints_become_float():
    x32 = _t([0.5, 1.5], ag.float32)
    for fn in (ops.erf, ops.erfinv, ops.lgamma, ops.digamma, ops.i0, ops.i1, ops.logit):
        assert fn(x32 / 2).dtype is ag.float32
    assert ops.polygamma(2, x32).dtype is ag.float32
    ints = ag.tensor([1, 2, 3])
    out = ops.lgamma(ints)
    assert out.dtype is ag.get_default_dtype()
    np.testing.assert_allclose(out.numpy(), sc.gammaln([1.0, 2.0, 3.0]), atol=1e-6)


def test_zero_dim_input():
    out = ops.erf(ag.tensor(0.5, dtype=ag.float64))
    assert out.shape == () and abs(out.item() - sc.erf(0.5)) < 1e-16


def test_errors_match_pytorch():
    with pytest.raises(RuntimeError, match="does not support negative n"):
        ops.polygamma(-1, _t([1.0]))
    with pytest.raises(TypeError, match="must be int"):
        ops.polygamma(1.5, _t([1.0]))
    with pytest.raises(TypeError, match="must be Tensor"):
        ops.erf(0.5)
    with pytest.raises(TypeError):
        ops.xlogy(1.0, 2.0)
