"""arraygrad.special and the gamma-family ops against PyTorch 2.13: the same values (float64,
same inputs, edges included), the same gradients, grad_fn names, errors and result dtypes."""

import math

import numpy as np
import pytest

import arraygrad as ag

torch = pytest.importorskip("torch", reason="the reference is PyTorch")

_EDGES = [0.0, -0.0, -1.0, -2.0, -2.5, 1.0, 2.0, 0.5, 1e-300, 1e300, -1e300, math.inf,
          -math.inf, math.nan]
_GRID = np.concatenate([np.linspace(-30.0, 30.0, 1201), _EDGES])
_POS = np.concatenate([np.linspace(1e-3, 30.0, 601), np.logspace(-300, 300, 61)])
_UNIT = np.concatenate([np.linspace(-0.05, 1.05, 221), [1e-300, 1 - 1e-16]])

# name -> (grid, rtol, atol): PyTorch's own accuracy bounds these (its j0/j1/y0/y1/airy_ai
# are off by up to ~1e-6 absolute, its trigamma by ~1e-10 relative, its igamma by ~1e-7
# relative for large a; ours are checked against scipy/mpmath in test_special_portable.py)
UNARY = {
    "airy_ai": (np.linspace(-20.0, 20.0, 801), 1e-6, 5e-6),
    "bessel_j0": (_GRID[np.abs(_GRID) < 1e4], 1e-6, 2e-6),
    "bessel_j1": (_GRID[np.abs(_GRID) < 1e4], 1e-6, 2e-6),
    "bessel_y0": (_GRID[np.abs(_GRID) < 1e4], 1e-6, 2e-6),
    "bessel_y1": (_GRID[np.abs(_GRID) < 1e4], 1e-6, 2e-6),
    "digamma": (_GRID, 1e-12, 1e-13), "entr": (_GRID, 1e-14, 0.0),
    # erfc: SciPy's kernel (the plugin's) flushes subnormal results to 0 below 1e-309
    "erf": (_GRID, 1e-14, 0.0), "erfc": (_GRID, 1e-13, 1e-300), "erfcx": (_GRID, 1e-13, 0.0),
    # expit is arraygrad.sigmoid, 0.5 tanh(x/2) + 0.5: absolutely, not relatively, accurate
    "erfinv": (_UNIT * 2 - 1, 1e-13, 0.0), "expit": (_GRID, 1e-14, 1e-16),
    "gammaln": (_GRID, 1e-13, 1e-13), "i0": (_GRID, 1e-14, 0.0), "i0e": (_GRID, 1e-14, 0.0),
    "i1": (_GRID, 1e-14, 0.0), "i1e": (_GRID, 1e-14, 0.0),
    "log_ndtr": (_GRID, 1e-13, 0.0), "logit": (_UNIT, 1e-14, 0.0),
    "modified_bessel_i0": (_GRID, 1e-14, 0.0), "modified_bessel_i1": (_GRID, 1e-14, 0.0),
    "modified_bessel_k0": (_GRID, 1e-13, 0.0), "modified_bessel_k1": (_GRID, 1e-13, 0.0),
    "scaled_modified_bessel_k0": (_GRID, 1e-13, 0.0),
    "scaled_modified_bessel_k1": (_GRID, 1e-13, 0.0),
    "ndtri": (_UNIT, 1e-13, 0.0), "psi": (_GRID, 1e-12, 1e-13),
    "spherical_bessel_j0": (_GRID, 1e-14, 1e-16),
}


def _pair(name, *arrays):
    ours = getattr(ag.special, name)(*[ag.tensor(a, dtype=ag.float64) for a in arrays])
    theirs = getattr(torch.special, name)(*[torch.tensor(a, dtype=torch.float64)
                                            for a in arrays])
    return ours.numpy(), theirs.numpy()


def _close(ours, theirs, rtol, atol):
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    inf = np.isinf(theirs)
    np.testing.assert_array_equal(ours[inf], theirs[inf])
    fin = np.isfinite(theirs)
    np.testing.assert_allclose(ours[fin], theirs[fin], rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_match_pytorch(name):
    grid, rtol, atol = UNARY[name]
    _close(*_pair(name, grid), rtol, atol)


def test_ndtr_matches_pytorch_where_pytorch_is_accurate():
    """PyTorch's ndtr is ``(1 + erf(x / sqrt 2)) / 2``, 0 below about -8.3; ours keeps the left
    tail (``erfc``), see docs/differences.md."""
    grid = np.concatenate([np.linspace(-5.0, 30.0, 701), [math.inf, -math.inf, math.nan]])
    _close(*_pair("ndtr", grid), 1e-10, 1e-16)
    assert ag.special.ndtr(ag.tensor([-10.0], dtype=ag.float64)).item() == \
        pytest.approx(7.619853024160527e-24, rel=1e-13)


@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_polygamma_matches_pytorch(n):
    # x > 0 (and the infinities): for x < 0 PyTorch sums the zeta series, which cancels (ours
    # reflects, checked against scipy and mpmath in test_special_portable.py)
    # (and x <= 1e30: beyond, PyTorch's zeta underflows to 0 where psi^(n)(x) ~ x^-n does not)
    grid = np.concatenate([_POS[_POS <= 1e30], [math.inf, -math.inf, math.nan]])
    ours = ag.polygamma(n, ag.tensor(grid, dtype=ag.float64)).numpy()
    theirs = torch.polygamma(n, torch.tensor(grid, dtype=torch.float64)).numpy()
    _close(ours, theirs, 1e-9, 0.0)
    # at the poles: (-1)^(n+1) inf (PyTorch's trigamma is finite but huge at x < 0)
    pole = ag.polygamma(n, ag.tensor([0.0, -0.0, -3.0], dtype=ag.float64)).tolist()
    assert pole == [(1 if n % 2 else -1) * math.inf] * 3


def test_lgamma_digamma_mvlgamma_match_pytorch():
    x = ag.tensor(_GRID, dtype=ag.float64)
    t = torch.tensor(_GRID, dtype=torch.float64)
    _close(ag.lgamma(x).numpy(), torch.lgamma(t).numpy(), 1e-13, 1e-13)
    _close(x.digamma().numpy(), t.digamma().numpy(), 1e-12, 1e-13)
    y = ag.tensor(_POS + 3, dtype=ag.float64)
    _close(ag.mvlgamma(y, p=3).numpy(), torch.mvlgamma(torch.tensor(_POS + 3), p=3).numpy(),
           1e-13, 0.0)
    assert ag.special.multigammaln(y, 2).tolist() == ag.mvlgamma(y, 2).tolist()


def test_binary_functions_match_pytorch():
    rng = np.random.default_rng(0)
    a = np.concatenate([10 ** rng.uniform(-3, 1.3, 800), [0.0, 1.0, 2.0, math.inf, -1.0]])
    x = np.concatenate([a[:800] * rng.uniform(0, 3, 800), [1.0, 0.0, math.inf, 1.0, 1.0]])
    for name in ("gammainc", "gammaincc"):
        _close(*_pair(name, a, x), 1e-7, 1e-300)
    s = np.concatenate([rng.uniform(1.0, 12.0, 400), [1.0, 0.5, 2.0, 2.0, 3.0, math.inf]])
    q = np.concatenate([rng.uniform(-6.0, 20.0, 400), [1.0, 1.0, 0.0, -1.5, math.inf, 1.0]])
    _close(*_pair("zeta", s, q), 1e-12, 0.0)
    u = rng.uniform(-2, 2, 400)
    v = np.concatenate([rng.uniform(-0.99, 3, 396), [-1.0, math.nan, -2.0, 0.0]])
    for name in ("xlogy", "xlog1py"):
        w = np.abs(v) if name == "xlogy" else v
        _close(*_pair(name, np.concatenate([u[:396], [0.0, 0.0, 1.0, 0.0]]), w), 1e-14, 0.0)


@pytest.mark.parametrize("name", [n for n in dir(torch.special) if "polynomial" in n])
def test_polynomials_match_pytorch(name):
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-1.5, 1.5, 300), [-1.0, 1.0, 0.0, 0.5]])
    n = np.concatenate([rng.integers(-2, 25, 300), [7, 8, 2, 3]]).astype(np.float64)
    ours, theirs = _pair(name, x, n)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12 * np.abs(theirs).max())
    # a number for either argument, as PyTorch
    assert getattr(ag.special, name)(0.5, ag.tensor([2, 3])).tolist() == pytest.approx(
        getattr(torch.special, name)(0.5, torch.tensor([2, 3])).tolist(), rel=1e-6)
    assert getattr(ag.special, name)(x=ag.tensor([0.25]), n=2).dtype is ag.float32


# -- gradients -------------------------------------------------------------------------

GRADS = [
    ("lgamma", lambda m, x: m.lgamma(x), (0.3, 6.0)),
    ("digamma", lambda m, x: m.digamma(x), (0.3, 6.0)),
    ("polygamma", lambda m, x: m.polygamma(2, x), (0.3, 6.0)),
    ("mvlgamma", lambda m, x: m.mvlgamma(x, p=3), (1.5, 6.0)),
    ("i0", lambda m, x: m.i0(x), (-4.0, 4.0)),
    ("i0e", lambda m, x: m.special.i0e(x), (-4.0, 4.0)),
    ("i1", lambda m, x: m.special.i1(x), (-4.0, 4.0)),
    ("i1e", lambda m, x: m.special.i1e(x), (-4.0, 4.0)),
    ("ndtr", lambda m, x: m.special.ndtr(x), (-6.0, 6.0)),
    ("log_ndtr", lambda m, x: m.special.log_ndtr(x), (-30.0, 6.0)),
    ("ndtri", lambda m, x: m.special.ndtri(x), (0.01, 0.99)),
    ("erfcx", lambda m, x: m.special.erfcx(x), (-3.0, 30.0)),
    ("entr", lambda m, x: m.special.entr(x), (0.1, 3.0)),
    ("igamma", lambda m, x: m.igamma(m.full_like(x, 2.5), x), (0.1, 6.0)),
    ("igammac", lambda m, x: m.special.gammaincc(m.full_like(x, 1.5), x), (0.1, 6.0)),
    ("zeta", lambda m, x: m.special.zeta(3.5, x), (0.3, 6.0)),
    ("xlog1py", lambda m, x: m.special.xlog1py(x, x * 2), (0.1, 3.0)),
    ("xlog1py-scalar", lambda m, x: m.special.xlog1py(2.0, x), (0.1, 3.0)),
    ("xlogy-scalar", lambda m, x: m.xlogy(x, 3.0), (0.1, 3.0)),
    ("erf", lambda m, x: m.special.erf(x), (-3.0, 3.0)),
    ("logit", lambda m, x: m.logit(x, eps=0.2), (0.05, 0.95)),
]


@pytest.mark.parametrize("name,fn,bounds", GRADS, ids=[g[0] for g in GRADS])
def test_gradients_and_nodes_match_pytorch(name, fn, bounds):
    values = np.linspace(*bounds, 13)
    x = ag.tensor(values, dtype=ag.float64, requires_grad=True)
    t = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    ours, theirs = fn(ag, x), fn(torch, t)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)
    if name not in ("logit", "ndtr"):  # PyTorch's ndtr is composite (MulBackward1)
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


def test_pytorchs_unimplemented_derivatives_raise_its_error():
    a = ag.tensor([2.0, 3.0], dtype=ag.float64, requires_grad=True)
    x = ag.tensor([0.7, 1.3], dtype=ag.float64)
    for fn, what in ((ag.igamma, "igamma: input"), (ag.igammac, "igammac: input"),
                     (ag.special.zeta, "zeta")):
        y = fn(a, x).sum()
        with pytest.raises(NotImplementedError, match=f"the derivative for '{what}' is not "
                                                      "implemented"):
            y.backward()


def test_functions_pytorch_does_not_differentiate_give_no_graph():
    x = ag.tensor([0.5, 1.5], requires_grad=True)
    for name in ("bessel_j0", "airy_ai", "modified_bessel_k1", "spherical_bessel_j0"):
        out = getattr(ag.special, name)(x)
        assert not out.requires_grad and out.grad_fn is None
        assert not getattr(torch.special, name)(torch.tensor([0.5], requires_grad=True)) \
            .requires_grad
    assert not ag.special.chebyshev_polynomial_t(x, 3).requires_grad


# -- errors, dtypes, out= ----------------------------------------------------------------

def test_errors_match_pytorch():
    x = ag.tensor([1.0, 2.0])
    cases = [(lambda m, t: m.polygamma(-1, t), RuntimeError),
             (lambda m, t: m.polygamma(1.5, t), TypeError),
             (lambda m, t: m.mvlgamma(t, p=0), RuntimeError),
             (lambda m, t: m.special.erf(0.5), TypeError),
             (lambda m, t: m.special.xlogy(1.0, 2.0), TypeError),
             (lambda m, t: m.igamma(t, 2.0), TypeError),
             (lambda m, t: m.special.gammainc(2.0, t), TypeError),
             (lambda m, t: m.lgamma([1.0]), TypeError)]
    for fn, error in cases:
        with pytest.raises(error):
            fn(torch, torch.tensor([1.0, 2.0]))
        with pytest.raises(error):
            fn(ag, x)


def test_result_dtypes_match_pytorch():
    for dtype, tdtype in ((ag.float32, torch.float32), (ag.int64, torch.int64),
                          (ag.float16, torch.float16)):
        x = ag.tensor([1, 2], dtype=dtype)
        t = torch.tensor([1, 2], dtype=tdtype)
        for name in ("lgamma", "digamma", "i0"):
            assert str(getattr(ag, name)(x).dtype).split(".")[-1] == \
                str(getattr(torch, name)(t).dtype).split(".")[-1], (name, dtype)
        if dtype is not ag.float16:  # PyTorch has no float16 CPU kernel for these
            for name in ("i1e", "ndtri", "erfcx", "bessel_j0", "log_ndtr"):
                assert str(getattr(ag.special, name)(x).dtype).split(".")[-1] == \
                    str(getattr(torch.special, name)(t).dtype).split(".")[-1], (name, dtype)
    assert ag.igamma(ag.tensor([1.0]), ag.tensor([1.0], dtype=ag.float64)).dtype is ag.float64


def test_out_and_inplace_forms():
    x = ag.tensor([0.5, 2.5], dtype=ag.float64)
    out = ag.empty(2, dtype=ag.float64)
    assert ag.special.i1e(x, out=out) is out and out.tolist() == ag.special.i1e(x).tolist()
    assert ag.special.gammaln(x, out=out) is out
    y = x.clone()
    assert y.lgamma_() is y and y.tolist() == x.lgamma().tolist()
    y = x.clone()
    assert y.polygamma_(2) is y and y.tolist() == x.polygamma(2).tolist()
    y = x.clone()
    assert ag.erf_(y) is y and y.tolist() == x.erf().tolist()
    y = x.clone() / 4
    assert ag.logit_(y, eps=0.2) is y
    y = x.clone()
    assert y.igamma_(ag.tensor(1.0, dtype=ag.float64)) is y
    assert ag.i0_(x.clone()).tolist() == x.i0().tolist()
    assert x.xlogy(2.0).tolist() == ag.xlogy(x, 2.0).tolist()
    assert x.mvlgamma(1).tolist() == pytest.approx(x.lgamma().tolist(), rel=1e-15)

