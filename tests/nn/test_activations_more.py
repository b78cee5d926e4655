"""The rest of PyTorch's activations: values against hand formulas, gradients at the kinks,
gradcheck/gradgradcheck in float64, in-place forms, modules, errors, and PyTorch where installed."""

import math
import warnings

import numpy as np
import pytest
from nn_helpers import F64, arr, gradcheck_module, t64

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn import functional as F

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

rng = np.random.default_rng(7)
SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
KINKS = [-6.0, -3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0, 6.0, -0.7, 0.3, 2.2, -4.1, 7.5]


def _softplus(x):
    return np.logaddexp(0.0, x)


# name -> (call, numpy formula)
FORMULAS = {
    "hardtanh": (lambda x: F.hardtanh(x, -1.5, 2.0), lambda x: np.clip(x, -1.5, 2.0)),
    "relu6": (F.relu6, lambda x: np.clip(x, 0.0, 6.0)),
    "selu": (F.selu, lambda x: SELU_S * np.where(x > 0, x, SELU_A * np.expm1(np.minimum(x, 0)))),
    "celu": (lambda x: F.celu(x, 0.7),
             lambda x: np.maximum(x, 0) + np.minimum(0, 0.7 * np.expm1(np.minimum(x, 0) / 0.7))),
    "mish": (F.mish, lambda x: x * np.tanh(_softplus(x))),
    "hardswish": (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "hardsigmoid": (F.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    "softsign": (F.softsign, lambda x: x / (1 + np.abs(x))),
    "tanhshrink": (F.tanhshrink, lambda x: x - np.tanh(x)),
    "threshold": (lambda x: F.threshold(x, 0.5, -2.0), lambda x: np.where(x > 0.5, x, -2.0)),
    "hardshrink": (lambda x: F.hardshrink(x, 0.5), lambda x: np.where(np.abs(x) > 0.5, x, 0.0)),
    "softshrink": (lambda x: F.softshrink(x, 0.5),
                   lambda x: np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0.0))),
    "rrelu_eval": (F.rrelu, lambda x: np.where(x >= 0, x, x * (1 / 8 + 1 / 3) / 2)),
}

# the derivative PyTorch gives at and around each kink (checked against torch below)
DERIVATIVES = {
    "hardtanh": lambda x: ((x > -1.5) & (x < 2.0)).astype(float),
    "relu6": lambda x: ((x > 0) & (x < 6)).astype(float),
    "hardswish": lambda x: np.where(x <= -3, 0.0, np.where(x >= 3, 1.0, x / 3 + 0.5)),
    "hardsigmoid": lambda x: np.where((x > -3) & (x < 3), 1 / 6, 0.0),
    "threshold": lambda x: (x > 0.5).astype(float),
    "hardshrink": lambda x: (np.abs(x) > 0.5).astype(float),
    "softshrink": lambda x: (np.abs(x) > 0.5).astype(float),
    "selu": lambda x: np.where(x > 0, SELU_S, SELU_S * SELU_A * np.exp(np.minimum(x, 0))),
    "celu": lambda x: np.where(x > 0, 1.0, np.exp(np.minimum(x, 0) / 0.7)),
    "rrelu_eval": lambda x: np.where(x > 0, 1.0, (1 / 8 + 1 / 3) / 2),
}


@pytest.mark.parametrize("name", sorted(FORMULAS))
def test_values_match_the_formula(name):
    fn, ref = FORMULAS[name]
    x = np.concatenate([np.array(KINKS), rng.standard_normal(20) * 4])
    np.testing.assert_allclose(arr(fn(t64(x))), ref(x), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", sorted(DERIVATIVES))
def test_gradient_at_the_kinks_is_pytorchs(name):
    x = t64(KINKS, requires_grad=True)
    (g,) = ag.autograd.grad(FORMULAS[name][0](x).sum(), x)
    np.testing.assert_allclose(arr(g), DERIVATIVES[name](np.array(KINKS)), rtol=1e-12)


SMOOTH = ["selu", "celu", "mish", "softsign", "tanhshrink", "hardswish", "hardsigmoid",
          "hardtanh", "relu6", "threshold", "hardshrink", "softshrink", "rrelu_eval"]


@pytest.mark.parametrize("name", SMOOTH)
def test_gradcheck_and_gradgradcheck_away_from_kinks(name):
    # magnitudes in (0.7, 1.3) + offsets: no value within 0.1 of a kink
    x = np.array([-5.0, -2.2, -1.2, -0.8, 0.75, 1.2, 2.4, 4.5, 6.8, -3.6])
    t = t64(x, requires_grad=True)
    fn = FORMULAS[name][0]
    assert gradcheck(fn, (t,))
    assert gradgradcheck(fn, (t,))


def test_softmin_glu_prelu_gradcheck():
    x = t64(rng.standard_normal((3, 4)), requires_grad=True)
    assert gradgradcheck(lambda a: F.softmin(a, dim=1), (x,))
    assert gradgradcheck(lambda a: F.glu(a, 1), (x,))
    w = t64([0.2, -0.3, 0.5], requires_grad=True)
    x3 = t64(rng.standard_normal((2, 3, 2)) + 0.05, requires_grad=True)
    assert gradgradcheck(F.prelu, (x3, w))


def test_softmin_glu_prelu_values():
    x = rng.standard_normal((3, 4))
    e = np.exp(-x)
    np.testing.assert_allclose(arr(F.softmin(t64(x), dim=1)), e / e.sum(1, keepdims=True))
    np.testing.assert_allclose(arr(F.glu(t64(x), 1)), x[:, :2] / (1 + np.exp(-x[:, 2:])))
    xt = x.T  # (4, 3): halves along dim 0
    np.testing.assert_allclose(arr(F.glu(t64(xt), 0)), xt[:2] / (1 + np.exp(-xt[2:])))
    x3 = rng.standard_normal((2, 3, 5))
    w = np.array([0.1, 0.2, -0.4])
    np.testing.assert_allclose(arr(F.prelu(t64(x3), t64(w))),
                               np.where(x3 > 0, x3, w[None, :, None] * x3))
    np.testing.assert_allclose(arr(F.prelu(t64(x3), t64([0.3]))), np.where(x3 > 0, x3, 0.3 * x3))
    x1 = rng.standard_normal(4)
    np.testing.assert_allclose(arr(F.prelu(t64(x1), t64([0.3]))), np.where(x1 > 0, x1, 0.3 * x1))


def test_softmin_without_dim_warns_and_picks_pytorchs_dim():
    x = t64(rng.standard_normal((2, 3)))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        out = F.softmin(x)
    np.testing.assert_allclose(arr(out), arr(F.softmin(x, 1)))


def test_softmax2d_is_softmax_over_channels():
    x = t64(rng.standard_normal((2, 3, 4, 5)))
    np.testing.assert_allclose(arr(nn.Softmax2d()(x)), arr(F.softmax(x, 1)))
    np.testing.assert_allclose(arr(nn.Softmax2d()(x[0])), arr(F.softmax(x[0], 0)))
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D"):
        nn.Softmax2d()(x[0, 0])


def test_rrelu_training_draws_slopes_in_range_and_gradient_is_the_slope():
    ag.manual_seed(3)
    x = t64(-np.abs(rng.standard_normal(400)) - 0.01, requires_grad=True)
    out = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = arr(out) / arr(x)
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert slopes.std() > 0.03  # really random, not the mean
    (g,) = ag.autograd.grad(out.sum(), x)
    np.testing.assert_allclose(arr(g), slopes, rtol=1e-12)
    pos = t64([0.5, 2.0])
    np.testing.assert_allclose(arr(F.rrelu(pos, training=True)), [0.5, 2.0])
    m = nn.RReLU(0.1, 0.3)
    m.eval()
    np.testing.assert_allclose(arr(m(t64([-1.0, 1.0]))), [-0.2, 1.0])


def test_inplace_variants_write_into_the_input_and_keep_gradients():
    cases = [
        (F.relu_, F.relu, ()), (F.elu_, F.elu, (0.5,)), (F.hardtanh_, F.hardtanh, (-0.5, 0.5)),
        (F.leaky_relu_, F.leaky_relu, (0.2,)), (F.threshold_, F.threshold, (0.1, 3.0)),
        (F.celu_, F.celu, (2.0,)), (F.selu_, F.selu, ()), (F.rrelu_, F.rrelu, (0.1, 0.3)),
    ]
    base = rng.standard_normal(6)
    for inplace_fn, fn, args in cases:
        leaf = t64(base, requires_grad=True)
        y = leaf * 1.0
        out = inplace_fn(y, *args)
        assert out is y
        expected = fn(t64(base), *args)
        np.testing.assert_allclose(arr(y), arr(expected), rtol=1e-12)
        (g,) = ag.autograd.grad(out.sum(), leaf)
        leaf2 = t64(base, requires_grad=True)
        (g2,) = ag.autograd.grad(fn(leaf2, *args).sum(), leaf2)
        np.testing.assert_allclose(arr(g), arr(g2), rtol=1e-12)
    for fn in (F.mish, F.hardswish, F.hardsigmoid, F.relu6, F.selu, F.celu):
        y = t64(base)
        assert fn(y, inplace=True) is y
        np.testing.assert_allclose(arr(y), arr(fn(t64(base))))
    with pytest.raises(RuntimeError, match="leaf Variable"):
        F.hardtanh_(t64(base, requires_grad=True))


def test_errors():
    x = t64(rng.standard_normal((2, 3, 4)))
    with pytest.raises(RuntimeError, match="parameter numbers = 4 and channel size = 3"):
        F.prelu(x, t64([1.0] * 4))
    with pytest.raises(RuntimeError, match="scalar or 1D tensor, but got: ndim = 2"):
        F.prelu(x, t64([[1.0]]))
    with pytest.raises(RuntimeError, match="Halving dimension must be even, but dimension 1 is size 3"):
        F.glu(x, 1)
    with pytest.raises(RuntimeError, match="glu does not support scalars"):
        F.glu(t64(1.0))
    with pytest.raises(IndexError):
        F.glu(x, 3)
    with pytest.raises(RuntimeError, match="lambda must be in range"):
        F.softshrink(x, -0.5)
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal"):
        F.rrelu(x, 0.5, 0.1)
    with pytest.raises(ValueError, match="min_val cannot be greater than max_val"):
        F.hardtanh(x, 2.0, 1.0)
    with pytest.raises(AssertionError, match="must be greater than min_val"):
        nn.Hardtanh(1.0, 1.0)
    with pytest.raises(RuntimeError, match="alpha cannot be 0 for CELU"):
        F.celu(x, 0.0)
    before = arr(x)
    with pytest.raises(RuntimeError):  # nothing changes on error
        F.glu(x, 1)
    np.testing.assert_array_equal(arr(x), before)


def test_modules_attributes_repr_and_prelu_parameter():
    assert repr(nn.Hardtanh(-2, 3, True)) == "Hardtanh(min_val=-2, max_val=3, inplace=True)"
    assert repr(nn.ReLU6()) == "ReLU6()" and nn.ReLU6().max_val == 6.0
    assert repr(nn.SELU(True)) == "SELU(inplace=True)"
    assert repr(nn.CELU(2.0, True)) == "CELU(alpha=2.0, inplace=True)"
    assert repr(nn.Mish()) == "Mish()" and repr(nn.Hardswish(True)) == "Hardswish()"
    assert repr(nn.Softmin(1)) == "Softmin(dim=1)"
    assert repr(nn.Threshold(0.1, 20)) == "Threshold(threshold=0.1, value=20)"
    assert repr(nn.PReLU(3)) == "PReLU(num_parameters=3)"
    assert repr(nn.RReLU()) == "RReLU(lower=0.125, upper=0.3333333333333333)"
    assert repr(nn.GLU()) == "GLU(dim=-1)"
    assert repr(nn.Hardshrink()) == "Hardshrink(0.5)" and repr(nn.Softshrink(0.3)) == "Softshrink(0.3)"
    with pytest.warns(FutureWarning, match="min_value"):
        assert nn.Hardtanh(min_value=-3.0).min_val == -3.0
    p = nn.PReLU(3, init=0.1)
    assert list(p.state_dict()) == ["weight"] and p.weight.shape == (3,)
    np.testing.assert_allclose(arr(p.weight), [0.1] * 3, rtol=1e-6)
    assert nn.PReLU(dtype=ag.float64).weight.dtype is F64
    gradcheck_module(nn.PReLU(2), t64(rng.standard_normal((3, 2)) + 0.05))
    x = t64(rng.standard_normal((2, 4)))
    for mod, fn in [(nn.SELU(), F.selu), (nn.Mish(), F.mish), (nn.Softsign(), F.softsign),
                    (nn.Tanhshrink(), F.tanhshrink), (nn.Hardsigmoid(), F.hardsigmoid),
                    (nn.GLU(), F.glu), (nn.Hardshrink(), F.hardshrink),
                    (nn.Softshrink(), F.softshrink), (nn.ReLU6(), F.relu6)]:
        np.testing.assert_array_equal(arr(mod(x)), arr(fn(x)))


# -- against PyTorch ------------------------------------------------------------------------------

TORCH_CALLS = [
    ("hardtanh", lambda m, x: m.hardtanh(x, -0.5, 0.8)), ("relu6", lambda m, x: m.relu6(x)),
    ("selu", lambda m, x: m.selu(x)), ("celu", lambda m, x: m.celu(x, 1.3)),
    ("mish", lambda m, x: m.mish(x)), ("hardswish", lambda m, x: m.hardswish(x)),
    ("hardsigmoid", lambda m, x: m.hardsigmoid(x)), ("softsign", lambda m, x: m.softsign(x)),
    ("tanhshrink", lambda m, x: m.tanhshrink(x)), ("softmin", lambda m, x: m.softmin(x, dim=1)),
    ("threshold", lambda m, x: m.threshold(x, 0.5, -1.0)),
    ("hardshrink", lambda m, x: m.hardshrink(x, 0.5)),
    ("softshrink", lambda m, x: m.softshrink(x, 0.5)), ("glu", lambda m, x: m.glu(x, 1)),
    ("rrelu", lambda m, x: m.rrelu(x, 0.2, 0.4)), ("logsigmoid", lambda m, x: m.logsigmoid(x)),
    ("elu", lambda m, x: m.elu(x, 0.5)),
]


@needs_torch
@pytest.mark.parametrize("name,call", TORCH_CALLS, ids=[n for n, _ in TORCH_CALLS])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_against_pytorch_values_and_gradients(name, call, dtype):
    # random values plus every kink (exactly representable in float32)
    x = np.concatenate([rng.standard_normal(60) * 4, KINKS, [0.8, -0.5, 0.5, -0.8]])
    x = x.reshape(13, 6).astype(dtype)
    g = rng.standard_normal((13, 6 if name != "glu" else 3)).astype(dtype)
    tx = torch.tensor(x, requires_grad=True)
    ours = ag.tensor(x, requires_grad=True)
    tout, out = call(torch.nn.functional, tx), call(F, ours)
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(arr(out), tout.detach().numpy(), rtol=tol, atol=tol)
    (tg,) = torch.autograd.grad(tout, tx, torch.tensor(g))
    (og,) = ag.autograd.grad(out, ours, ag.tensor(g))
    # PyTorch's celu and hardsigmoid backward round a coefficient (1/alpha, 1/6) to float32
    # even in float64; ours are exact (checked against the formulas above)
    gtol = 1e-6 if name in ("celu", "hardsigmoid") else tol
    np.testing.assert_allclose(arr(og), tg.numpy(), rtol=gtol, atol=gtol)


@needs_torch
def test_prelu_state_dict_from_pytorch_gives_pytorchs_outputs():
    tm = torch.nn.PReLU(4, init=0.3)
    with torch.no_grad():
        tm.weight.copy_(torch.tensor([0.1, -0.2, 0.3, 0.9]))
    m = nn.PReLU(4)
    m.load_state_dict({k: ag.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    x = rng.standard_normal((2, 4, 3)).astype("float32")
    np.testing.assert_allclose(arr(m(ag.tensor(x))), tm(torch.tensor(x)).detach().numpy(),
                               rtol=1e-6)
    for ours, theirs in [(nn.PReLU(), torch.nn.PReLU()), (nn.RReLU(), torch.nn.RReLU()),
                         (nn.Hardtanh(), torch.nn.Hardtanh()), (nn.CELU(), torch.nn.CELU()),
                         (nn.Threshold(0.1, 20, True), torch.nn.Threshold(0.1, 20, True)),
                         (nn.Hardswish(True), torch.nn.Hardswish(True)),
                         (nn.Softmin(), torch.nn.Softmin()), (nn.Softshrink(), torch.nn.Softshrink())]:
        assert repr(ours) == repr(theirs)


def test_module_inplace_forms_return_the_input():
    y = t64(rng.standard_normal(5))
    for mod in (nn.Hardtanh(inplace=True), nn.ReLU6(True), nn.SELU(True), nn.CELU(inplace=True),
                nn.Mish(True), nn.Hardswish(True), nn.Hardsigmoid(True),
                nn.Threshold(0.0, 1.0, True), nn.RReLU(inplace=True)):
        assert mod(y) is y
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.Softmin(0)(y)
    assert math.isfinite(float(F.mish(t64([1000.0]))))
