"""The differentiable erf behind GELU: accuracy against math.erf, gradients, dtypes."""

import math

import numpy as np
from nn_helpers import arr, t64

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn._ops import erf, log_sigmoid


def test_erf_float64_accuracy_over_all_ranges():
    rng = np.random.default_rng(0)
    xs = np.concatenate([rng.uniform(-0.5, 0.5, 2000), rng.uniform(-4.5, 4.5, 4000),
                         rng.uniform(-30, 30, 2000),
                         [0.0, 0.46875, -0.46875, 4.0, -4.0, 26.0, 27.0, 1e300, -1e300]])
    out = arr(erf(t64(xs)))
    ref = np.array([math.erf(v) for v in xs])
    rel = np.abs(out - ref) / np.maximum(np.abs(ref), 1e-300)
    assert rel.max() < 1e-13
    assert erf(t64([0.0])).item() == 0.0


def test_erf_float32():
    xs = np.linspace(-6, 6, 1001)
    out = erf(ag.tensor(xs.tolist(), dtype=ag.float32))
    assert out.dtype is ag.float32
    ref = np.array([math.erf(v) for v in xs])
    assert np.abs(arr(out) - ref).max() < 1e-6


def test_erf_gradients_and_double_backward():
    x = t64([-2.0, -0.3, 0.0, 0.4, 1.7], requires_grad=True)
    erf(x).sum().backward()
    np.testing.assert_allclose(arr(x.grad), 2 / math.sqrt(math.pi) * np.exp(-arr(x) ** 2),
                               rtol=1e-14)
    assert gradcheck(erf, (t64([-1.2, 0.1, 2.2], requires_grad=True),))
    assert gradgradcheck(erf, (t64([-1.2, 0.1, 2.2], requires_grad=True),))


def test_log_sigmoid_stable_with_gradients():
    x = t64([-800.0, -3.0, 0.0, 2.0, 800.0], requires_grad=True)
    out = log_sigmoid(x)
    v = arr(x)
    expected = np.where(v > 0, -np.log1p(np.exp(-np.abs(v))), v - np.log1p(np.exp(-np.abs(v))))
    np.testing.assert_allclose(arr(out), expected, rtol=1e-14)
    out.sum().backward()
    np.testing.assert_allclose(arr(x.grad), 1 / (1 + np.exp(np.clip(v, -700, 700))), rtol=1e-14,
                               atol=1e-300)
    assert gradgradcheck(log_sigmoid, (t64([-1.0, 0.0, 3.0], requires_grad=True),))
