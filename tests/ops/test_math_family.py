"""Elementwise math of issue #12 (ops.families.math_unary / math_binary, round(decimals=),
div rounding modes, sign(nan)): values against analytic float64 formulas, gradcheck and
gradgradcheck, PyTorch differential tests (skipped without PyTorch), errors and in-place
methods."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

F64 = ag.float64
SETTINGS = settings(max_examples=25, deadline=None)
NAN, INF = math.nan, math.inf


def t64(values, grad=False):
    return ag.tensor(values, dtype=F64, requires_grad=grad)


# -- domains: (low, high) of |x| or x, and whether the sign is random ----------------------

UNARY = {  # name -> (low, high)
    "exp2": (-2.0, 2.0), "log2": (0.3, 3.0), "log10": (0.3, 3.0), "sinh": (-2.0, 2.0),
    "cosh": (-2.0, 2.0), "asinh": (-2.0, 2.0), "acosh": (1.2, 3.0), "atanh": (-0.8, 0.8),
    "asin": (-0.8, 0.8), "acos": (-0.8, 0.8), "atan": (-2.0, 2.0), "sinc": (0.2, 1.8),
    "square": (-2.0, 2.0), "frac": (-3.0, 3.0), "deg2rad": (-90.0, 90.0),
    "rad2deg": (-2.0, 2.0), "nan_to_num": (-2.0, 2.0),
}
ALIASES = {"arcsin": "asin", "arccos": "acos", "arctan": "atan", "arcsinh": "asinh",
           "arccosh": "acosh", "arctanh": "atanh", "fix": "trunc", "arctan2": "atan2",
           "sgn": "sign"}

NUMPY_UNARY = {
    "exp2": np.exp2, "log2": np.log2, "log10": np.log10, "sinh": np.sinh, "cosh": np.cosh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "asin": np.arcsin,
    "acos": np.arccos, "atan": np.arctan, "sinc": np.sinc, "square": np.square,
    "frac": lambda a: a - np.trunc(a), "deg2rad": np.deg2rad, "rad2deg": np.rad2deg,
    "nan_to_num": lambda a: a,
}
DERIVATIVE = {  # analytic first derivatives, float64
    "exp2": lambda a: np.exp2(a) * np.log(2), "log2": lambda a: 1 / (a * np.log(2)),
    "log10": lambda a: 1 / (a * np.log(10)), "sinh": np.cosh, "cosh": np.sinh,
    "asinh": lambda a: 1 / np.sqrt(a * a + 1), "acosh": lambda a: 1 / np.sqrt(a * a - 1),
    "atanh": lambda a: 1 / (1 - a * a), "asin": lambda a: 1 / np.sqrt(1 - a * a),
    "acos": lambda a: -1 / np.sqrt(1 - a * a), "atan": lambda a: 1 / (1 + a * a),
    "sinc": lambda a: (np.cos(np.pi * a) * np.pi * a - np.sin(np.pi * a)) / (np.pi * a * a),
    "square": lambda a: 2 * a, "frac": np.ones_like, "deg2rad": lambda a: 0 * a + np.pi / 180,
    "rad2deg": lambda a: 0 * a + 180 / np.pi, "nan_to_num": np.ones_like,
}


def _values(name, shape, seed=0):
    lo, hi = UNARY[name]
    return np.random.default_rng(seed).uniform(lo, hi, size=shape)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_values_and_gradients_match_analytic_float64(name):
    a = _values(name, (3, 4))
    x = t64(a, grad=True)
    out = getattr(ag, name)(x)
    np.testing.assert_allclose(out.detach().numpy(), NUMPY_UNARY[name](a), rtol=1e-12,
                               atol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), DERIVATIVE[name](a), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_gradcheck_and_gradgradcheck(name):
    x = t64(_values(name, (2, 3), seed=1), grad=True)
    fn = getattr(ag, name)
    assert ag.autograd.gradcheck(fn, (x,))
    assert ag.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("alias,name", sorted(ALIASES.items()))
def test_aliases_are_the_same_op(alias, name):
    assert getattr(ag, alias) is getattr(ag, name) or alias in ("fix", "sgn")
    x = t64([0.25, -0.5, 0.75])
    if alias == "arctan2":
        np.testing.assert_array_equal(ag.arctan2(x, x + 2).numpy(), ag.atan2(x, x + 2).numpy())
    else:
        np.testing.assert_array_equal(getattr(ag, alias)(x).numpy(),
                                      getattr(ag, name)(x).numpy())
        np.testing.assert_array_equal(getattr(x, alias)().numpy(), getattr(ag, name)(x).numpy())


def test_integer_inputs_compute_in_the_default_float_dtype():
    i = ag.tensor([1, 2, 4])
    for name in ("exp2", "log2", "log10", "sinh", "atan", "sinc", "deg2rad", "rad2deg"):
        assert getattr(ag, name)(i).dtype is ag.float32, name
    assert ag.square(i).dtype is ag.int64
    np.testing.assert_array_equal(ag.square(i).numpy(), [1, 4, 16])
    assert ag.copysign(i, -1).dtype is ag.float32
    assert ag.atan2(i, i).dtype is ag.float32


def test_sinc_at_zero_is_one_with_zero_gradient():
    x = t64([0.0, 0.5], grad=True)
    y = ag.sinc(x)
    np.testing.assert_allclose(y.detach().numpy(), [1.0, 2 / np.pi])
    y.sum().backward()
    assert x.grad.numpy()[0] == 0.0 and np.isfinite(x.grad.numpy()).all()


def test_sign_of_nan_is_zero_and_sgn_matches():
    x = ag.tensor([NAN, -2.0, 0.0, -0.0, INF])
    np.testing.assert_array_equal(ag.sign(x).numpy(), [0.0, -1.0, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(ag.sgn(x).numpy(), ag.sign(x).numpy())
    np.testing.assert_array_equal(ag.sign(ag.tensor([3, -1, 0])).numpy(), [1, -1, 0])


def test_signbit_nan_to_num_and_predicates():
    x = ag.tensor([-0.0, 0.0, -1.0, NAN, INF, -INF])
    np.testing.assert_array_equal(ag.signbit(x).numpy(), [True, False, True, False, False, True])
    np.testing.assert_array_equal(ag.isposinf(x).numpy(), [False] * 4 + [True, False])
    np.testing.assert_array_equal(ag.isneginf(x).numpy(), [False] * 5 + [True])
    assert ag.isreal(x).numpy().all()
    big = float(np.finfo(np.float32).max)
    np.testing.assert_array_equal(ag.nan_to_num(x).numpy(),
                                  np.array([-0.0, 0.0, -1.0, 0.0, big, -big], np.float32))
    np.testing.assert_array_equal(ag.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0).numpy(),
                                  [-0.0, 0.0, -1.0, 1.0, 2.0, -2.0])
    g = t64([1.0, NAN, INF, -INF], grad=True)
    ag.nan_to_num(g).sum().backward()
    np.testing.assert_array_equal(g.grad.numpy(), [1.0, 0.0, 0.0, 0.0])


def test_round_with_decimals():
    x = t64([1.2345, 2.5, -7.25, 1234.5], grad=True)
    np.testing.assert_allclose(ag.round(x, decimals=2).detach().numpy(),
                               [1.23, 2.5, -7.25, 1234.5])
    np.testing.assert_allclose(x.round(decimals=-1).detach().numpy(), [0.0, 0.0, -10.0, 1230.0])
    y = ag.round(x, decimals=1)
    assert type(y.grad_fn).__name__ == "RoundBackward1"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0] * 4)
    assert type(ag.round(x).grad_fn).__name__ == "RoundBackward0"
    with pytest.raises(NotImplementedError):
        ag.round(ag.tensor([15, 25]), decimals=-1)


def test_div_rounding_modes_keep_integer_dtypes():
    a, b = ag.tensor([7, -7, 6, -6]), ag.tensor([2, 2, -4, -4])
    q = ag.div(a, b, rounding_mode="trunc")
    assert q.dtype is ag.int64
    np.testing.assert_array_equal(q.numpy(), [3, -3, -1, 1])
    f = ag.div(a, b, rounding_mode="floor")
    assert f.dtype is ag.int64
    np.testing.assert_array_equal(f.numpy(), [3, -4, -2, 1])
    assert ag.div(a, 2.0, rounding_mode="trunc").dtype is ag.float32
    np.testing.assert_array_equal(a.div(2, rounding_mode="trunc").numpy(), [3, -3, 3, -3])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        ag.div(a, ag.tensor([1, 0, 1, 1]), rounding_mode="trunc")
    x = t64([7.5, -7.5], grad=True)
    y = ag.div(x, 2, rounding_mode="trunc")
    np.testing.assert_array_equal(y.detach().numpy(), [3.0, -3.0])
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


# -- binary ops -------------------------------------------------------------------------------

def _np_fmod(a, b):
    return np.fmod(a, b)


BINARY = {  # name -> (numpy forward, (d/da, d/db), kind of inputs)
    "atan2": (np.arctan2, (lambda a, b: b / (a * a + b * b), lambda a, b: -a / (a * a + b * b)),
              "away"),
    "hypot": (np.hypot, (lambda a, b: a / np.hypot(a, b), lambda a, b: b / np.hypot(a, b)),
              "away"),
    "copysign": (np.copysign, (lambda a, b: np.sign(a) * np.sign(b), lambda a, b: 0 * a * b),
                 "away"),
    "fmod": (_np_fmod, (lambda a, b: 1 + 0 * b, lambda a, b: -np.trunc(a / b)), "away"),
    "logaddexp": (np.logaddexp, (lambda a, b: 1 / (1 + np.exp(b - a)),
                                 lambda a, b: 1 / (1 + np.exp(a - b))), "normal"),
    "logaddexp2": (np.logaddexp2, (lambda a, b: 1 / (1 + np.exp2(b - a)),
                                   lambda a, b: 1 / (1 + np.exp2(a - b))), "normal"),
    "fmax": (np.fmax, (lambda a, b: (a >= b) + 0.0 * b, lambda a, b: (a < b) + 0.0 * a),
             "normal"),
    "fmin": (np.fmin, (lambda a, b: (a <= b) + 0.0 * b, lambda a, b: (a > b) + 0.0 * a),
             "normal"),
    "float_power": (np.float_power, (lambda a, b: b * a ** (b - 1),
                                     lambda a, b: a ** b * np.log(a)), "positive"),
}


def _arr(rng, shape, kind):
    if kind == "positive":
        return rng.uniform(0.5, 1.5, size=shape)
    if kind == "away":
        return rng.uniform(0.4, 1.6, size=shape) * rng.choice([-1.0, 1.0], size=shape)
    return rng.standard_normal(size=shape)


def _sum_to(g, shape):
    lead = g.ndim - len(shape)
    g = g.sum(axis=tuple(range(lead))) if lead else g
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    return g.sum(axis=axes, keepdims=True).reshape(shape) if axes else g.reshape(shape)


@pytest.mark.parametrize("name", sorted(BINARY))
@SETTINGS
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
       seed=st.integers(0, 2 ** 16))
def test_binary_values_and_broadcast_gradients_match_analytic(name, shapes, seed):
    fwd, (da, db), kind = BINARY[name]
    rng = np.random.default_rng(seed)
    a, b = (_arr(rng, s, kind) for s in shapes.input_shapes)
    x, y = t64(a, grad=True), t64(b, grad=True)
    out = getattr(ag, name)(x, y)
    np.testing.assert_allclose(out.detach().numpy(), fwd(a, b), rtol=1e-12, atol=1e-12)
    out.sum().backward()
    ab, bb = np.broadcast_arrays(a, b)
    np.testing.assert_allclose(x.grad.numpy(), _sum_to(da(ab, bb), a.shape), rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), _sum_to(db(ab, bb), b.shape), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_gradcheck_and_gradgradcheck(name):
    rng = np.random.default_rng(3)
    kind = BINARY[name][2]
    x, y = t64(_arr(rng, (2, 3), kind), grad=True), t64(_arr(rng, (3,), kind), grad=True)
    fn = getattr(ag, name)
    assert ag.autograd.gradcheck(fn, (x, y))
    assert ag.autograd.gradgradcheck(fn, (x, y))


@pytest.mark.parametrize("fn", [
    lambda a, b, c: ag.lerp(a, b, 0.3),
    lambda a, b, c: ag.lerp(a, b, c),
    lambda a, b, c: ag.addcmul(a, b, c, value=0.5),
    lambda a, b, c: ag.addcdiv(a, b, c, value=-2.0),
    lambda a, b, c: ag.copysign(a, -1.0) + ag.fmod(b, 0.7),
], ids=["lerp-scalar", "lerp-tensor", "addcmul", "addcdiv", "scalar-others"])
def test_ternary_gradcheck_and_gradgradcheck(fn):
    rng = np.random.default_rng(4)
    a = t64(_arr(rng, (2, 3), "away"), grad=True)
    b = t64(_arr(rng, (3,), "away"), grad=True)
    c = t64(_arr(rng, (2, 1), "away"), grad=True)
    assert ag.autograd.gradcheck(fn, (a, b, c))
    assert ag.autograd.gradgradcheck(fn, (a, b, c))


def test_lerp_addcmul_addcdiv_values():
    a, b, w = t64([1.0, -2.0]), t64([3.0, 5.0]), t64([0.25, 1.0])
    np.testing.assert_allclose(ag.lerp(a, b, 0.25).numpy(), [1.5, -0.25])
    np.testing.assert_array_equal(ag.lerp(a, b, w).numpy(), [1.5, 5.0])  # weight 1: end exactly
    np.testing.assert_allclose(ag.addcmul(a, a, b, value=2).numpy(), [7.0, -22.0])
    np.testing.assert_allclose(a.addcdiv(a, b, value=3).numpy(), [2.0, -3.2])


def test_fmax_fmin_ignore_nan_and_fmod_keeps_the_dividend_sign():
    a, b = ag.tensor([NAN, 1.0, NAN, 2.0]), ag.tensor([1.0, NAN, NAN, 3.0])
    np.testing.assert_array_equal(ag.fmax(a, b).numpy(), [1.0, 1.0, NAN, 3.0])
    np.testing.assert_array_equal(ag.fmin(a, b).numpy(), [1.0, 1.0, NAN, 2.0])
    np.testing.assert_array_equal(ag.fmax(ag.tensor([1, 5]), ag.tensor([3, 2])).numpy(), [3, 5])
    np.testing.assert_array_equal(ag.fmod(ag.tensor([5, -5, 5, -5]), ag.tensor([3, 3, -3, -3]))
                                  .numpy(), [2, -2, 2, -2])
    np.testing.assert_array_equal(ag.fmod(ag.tensor([5.5, -5.5, 1e-20]), 2.0).numpy(),
                                  np.fmod(np.array([5.5, -5.5, 1e-20], np.float32), 2.0))


def test_logaddexp_of_infinities():
    a = ag.tensor([INF, -INF, -INF, 1.0])
    b = ag.tensor([INF, -INF, 2.0, -INF])
    np.testing.assert_array_equal(ag.logaddexp(a, b).numpy(), [INF, -INF, 2.0, 1.0])
    np.testing.assert_array_equal(ag.logaddexp2(a, b).numpy(), [INF, -INF, 2.0, 1.0])
    np.testing.assert_allclose(ag.logaddexp(ag.tensor([1000.0]), ag.tensor([1000.0])).numpy(),
                               [1000.0 + math.log(2)])


def test_heaviside_values_and_its_backward_raises():
    x = ag.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    y = ag.heaviside(x, ag.tensor([0.5]))
    np.testing.assert_array_equal(y.detach().numpy(), [0.0, 0.5, 1.0])
    with pytest.raises(RuntimeError, match="heaviside is not implemented"):
        y.sum().backward()


def test_isclose_allclose_equal():
    a = ag.tensor([1.0, NAN, INF, 1.0, -INF])
    b = ag.tensor([1.0 + 1e-6, NAN, INF, 1.1, INF])
    np.testing.assert_array_equal(ag.isclose(a, b).numpy(), [True, False, True, False, False])
    np.testing.assert_array_equal(ag.isclose(a, b, equal_nan=True).numpy(),
                                  [True, True, True, False, False])
    assert ag.allclose(a[:1], b[:1]) is True and ag.allclose(a, b) is False
    assert a.allclose(a, equal_nan=True) is True
    assert ag.equal(ag.tensor([1, 2]), ag.tensor([1, 2])) is True
    assert ag.equal(ag.tensor([1, 2]), ag.tensor([1])) is False
    assert ag.tensor([1.0]).equal(ag.tensor([2.0])) is False
    np.testing.assert_array_equal(ag.isclose(ag.tensor([1, 2]), ag.tensor([1, 3])).numpy(),
                                  [True, False])


def test_clamp_min_max():
    x = t64([-1.0, 0.5, 2.0], grad=True)
    np.testing.assert_array_equal(ag.clamp_min(x, 0.0).detach().numpy(), [0.0, 0.5, 2.0])
    np.testing.assert_array_equal(x.clamp_max(1.0).detach().numpy(), [-1.0, 0.5, 1.0])
    np.testing.assert_array_equal(ag.clamp_min(x, t64([0.0, 0.0, 3.0])).detach().numpy(),
                                  [0.0, 0.5, 3.0])


# -- errors: PyTorch's classes, nothing changed ---------------------------------------------

@pytest.mark.parametrize("call,error,match", [
    (lambda: ag.frac(ag.tensor([1])), NotImplementedError, "frac"),
    (lambda: ag.hypot(ag.tensor([3]), ag.tensor([4])), NotImplementedError, "hypot"),
    (lambda: ag.logaddexp(ag.tensor([3]), ag.tensor([4])), NotImplementedError, "logaddexp"),
    (lambda: ag.atan2(ag.tensor([1.0]), 1.0), TypeError, "atan2"),
    (lambda: ag.heaviside(ag.tensor([1.0]), ag.tensor([1.0], dtype=F64)), RuntimeError,
     "different dtypes"),
    (lambda: ag.lerp(ag.tensor([1.0]), ag.tensor([1.0], dtype=F64), 0.5), RuntimeError,
     "for `end`"),
    (lambda: ag.addcdiv(ag.tensor([1]), ag.tensor([1]), ag.tensor([1])), RuntimeError,
     "Integer division with addcdiv"),
    (lambda: ag.isclose(ag.tensor([1.0]), ag.tensor([1.0], dtype=F64)), RuntimeError,
     "Float did not match Double"),
    (lambda: ag.fmod(ag.tensor([5]), 0), RuntimeError, "ZeroDivisionError"),
    (lambda: ag.hypot(ag.ones(2, 3), ag.ones(4)), RuntimeError, "hypot"),
    (lambda: ag.addcmul(ag.ones(2, 3), ag.ones(4), ag.ones(3)), RuntimeError, "addcmul"),
])
def test_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_inplace_methods_compute_and_fail_without_change():
    x = t64([0.25, -0.5])
    x.sinh_()
    np.testing.assert_allclose(x.numpy(), np.sinh([0.25, -0.5]))
    y = t64([1.0, -2.0])
    y.lerp_(t64([3.0, 2.0]), 0.5)
    np.testing.assert_array_equal(y.numpy(), [2.0, 0.0])
    z = t64([1.0, 2.0])
    z.addcmul_(z, z, value=2)
    np.testing.assert_array_equal(z.numpy(), [3.0, 10.0])
    i = ag.tensor([1, 2])
    with pytest.raises(RuntimeError):
        i.exp2_()  # a float result cannot be written into an integer tensor
    np.testing.assert_array_equal(i.numpy(), [1, 2])
    w = ag.tensor([1.5, 2.5])
    with pytest.raises(RuntimeError):
        w.float_power_(2)  # float64 result into a float32 tensor, as PyTorch
    np.testing.assert_array_equal(w.numpy(), [1.5, 2.5])


# -- PyTorch differential ---------------------------------------------------------------------

def _both(values, dtype="float64"):
    a = np.asarray(values, dtype=dtype)
    return ag.tensor(a), torch.tensor(a)


def _same(ours, theirs):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    tol = 1e-12 if ours.dtype is F64 else 1e-6  # float32: libm differences in the last bit
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol, atol=tol,
                               equal_nan=True)


EDGE = [NAN, INF, -INF, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-300, 7.0]


@needs_torch
@pytest.mark.parametrize("name", sorted(set(UNARY) | {"sgn", "signbit", "isposinf", "isneginf",
                                                     "isreal", "fix", "sign"}))
def test_unary_edge_values_match_pytorch(name):
    a, t = _both(EDGE)
    with np.errstate(all="ignore"):
        _same(getattr(ag, name)(a), getattr(torch, name)(t))
    if name not in ("frac",):
        ai, ti = _both([0, 1, -3, 4], "int64")
        _same(getattr(ag, name)(ai), getattr(torch, name)(ti))


@needs_torch
@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_edge_values_match_pytorch(name):
    grid = np.array(EDGE)
    a, t = _both(np.repeat(grid, len(grid)))
    b, u = _both(np.tile(grid, len(grid)))
    with np.errstate(all="ignore"):
        _same(getattr(ag, name)(a, b), getattr(torch, name)(t, u))


@needs_torch
@pytest.mark.parametrize("name", ["fmod", "fmax", "fmin", "copysign", "float_power"])
def test_binary_integer_values_match_pytorch(name):
    a, t = _both([5, -5, 7, -7, 0, 3], "int64")
    b, u = _both([3, 3, -2, -2, 4, 3], "int64")
    _same(getattr(ag, name)(a, b), getattr(torch, name)(t, u))


@needs_torch
@SETTINGS
@given(shapes=mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3),
       seed=st.integers(0, 2 ** 16),
       op=st.sampled_from(["lerp", "lerp-tensor", "addcmul", "addcdiv", "atan2", "hypot",
                           "logaddexp", "logaddexp2", "fmod", "copysign", "fmax", "fmin"]))
def test_forward_and_gradients_match_pytorch(shapes, seed, op):
    rng = np.random.default_rng(seed)
    arrays = [_arr(rng, s, "away") for s in shapes.input_shapes]
    ours = [t64(x, grad=True) for x in arrays]
    theirs = [torch.tensor(x, requires_grad=True) for x in arrays]

    def call(lib, a, b, c):
        if op == "lerp":
            return lib.lerp(a, b, 0.3)
        if op == "lerp-tensor":
            return lib.lerp(a, b, c)
        if op in ("addcmul", "addcdiv"):
            return getattr(lib, op)(a, b, c, value=0.7)
        return getattr(lib, op)(a, b) * c

    o, t = call(ag, *ours), call(torch, *theirs)
    np.testing.assert_allclose(o.detach().numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert type(o.grad_fn).__name__ == type(t.grad_fn).__name__ or op not in (
        "lerp", "lerp-tensor", "addcmul", "addcdiv")
    o.sum().backward()
    t.sum().backward()
    for x, y in zip(ours, theirs):
        gx = x.grad.numpy() if x.grad is not None else np.zeros(x.shape)
        gy = y.grad.numpy() if y.grad is not None else np.zeros(tuple(y.shape))
        np.testing.assert_allclose(gx, gy, rtol=1e-10, atol=1e-12)


@needs_torch
def test_rounding_division_and_predicates_match_pytorch():
    a, t = _both([7, -7, 6, -6, 0, 9], "int64")
    b, u = _both([2, 2, -4, -4, 3, -2], "int64")
    for mode in ("trunc", "floor"):
        _same(ag.div(a, b, rounding_mode=mode), torch.div(t, u, rounding_mode=mode))
        _same(ag.div(a, 2.0, rounding_mode=mode), torch.div(t, 2.0, rounding_mode=mode))
    x, y = _both([1.2345, 2.5, -7.25, 1234.5, -0.5, 0.125])
    for d in (-2, -1, 0, 1, 2, 3):
        _same(ag.round(x, decimals=d), torch.round(y, decimals=d))
    x, y = _both([NAN, INF, -INF, 1.0, 1.0 + 1e-9, 2.0])
    x2, y2 = _both([NAN, INF, INF, 1.0, 1.0, 2.1])
    for equal_nan in (False, True):
        np.testing.assert_array_equal(ag.isclose(x, x2, equal_nan=equal_nan).numpy(),
                                      torch.isclose(y, y2, equal_nan=equal_nan).numpy())
    _same(ag.nan_to_num(x), torch.nan_to_num(y))
    _same(ag.nan_to_num(x, 1.0, 2.0, -3.0), torch.nan_to_num(y, 1.0, 2.0, -3.0))
    h, hv = _both([-1.0, 0.0, 2.0, NAN])
    _same(ag.heaviside(h, ag.tensor([0.5], dtype=F64)),
          torch.heaviside(hv, torch.tensor([0.5], dtype=torch.float64)))


@needs_torch
@pytest.mark.parametrize("name", ["sign", "sgn", "frac", "sinc", "square", "nan_to_num",
                                  "exp2", "deg2rad", "rad2deg", "log2", "acosh", "atanh"])
def test_node_names_match_pytorch(name):
    x = t64([0.3, -0.7], grad=True)
    y = torch.tensor([0.3, -0.7], dtype=torch.float64, requires_grad=True)
    assert type(getattr(ag, name)(x).grad_fn).__name__ == \
        type(getattr(torch, name)(y).grad_fn).__name__


def test_inplace_forms_of_core_rounding_and_reciprocals():
    x = t64([1.26, -2.5, 4.0])
    x.round_(decimals=1)
    np.testing.assert_allclose(x.numpy(), [1.3, -2.5, 4.0])
    x.sign_()
    np.testing.assert_array_equal(x.numpy(), [1.0, -1.0, 1.0])
    y = t64([4.0, 0.25])
    y.rsqrt_()
    np.testing.assert_allclose(y.numpy(), [0.5, 2.0])
    y.reciprocal_()
    np.testing.assert_allclose(y.numpy(), [2.0, 0.5])
    i = ag.tensor([7, -7])
    i.div_(2, rounding_mode="trunc")
    assert i.dtype is ag.int64
    np.testing.assert_array_equal(i.numpy(), [3, -3])
