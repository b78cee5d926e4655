"""BCE's log clamp and gradient, and the Huber-type losses' gradient at infinite and NaN
differences, as PyTorch (hand-computed references; PyTorch itself where installed)."""

import math

import numpy as np
import pytest
from nn_helpers import arr

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn import functional as F

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

INF, NAN = math.inf, math.nan


@pytest.mark.parametrize("dtype", [ag.float32, ag.float64])
def test_bce_log_is_clamped_at_minus_100(dtype):
    # a probability of 0 for a positive target (and 1 for a negative one) costs exactly 100
    x = ag.tensor([0.0, 1.0, 0.5], dtype=dtype, requires_grad=True)
    t = ag.tensor([1.0, 0.0, 0.25], dtype=dtype)
    loss = F.binary_cross_entropy(x, t, reduction="none")
    np.testing.assert_allclose(arr(loss), [100.0, 100.0, math.log(2)], rtol=1e-6)
    assert type(loss.grad_fn).__name__ == "BinaryCrossEntropyBackward0"
    assert float(F.binary_cross_entropy(x, t, reduction="sum")) == pytest.approx(200 + math.log(2))


def test_bce_gradient_is_finite_at_0_and_1():
    # (x - t) / max(x (1 - x), 1e-12): +-1e12 at the ends, not NaN
    x = ag.tensor([0.0, 1.0, 0.5, 1e-30, 1.0], dtype=ag.float64, requires_grad=True)
    t = ag.tensor([1.0, 0.0, 0.25, 1.0, 1.0], dtype=ag.float64, requires_grad=True)
    F.binary_cross_entropy(x, t, reduction="sum").backward()
    np.testing.assert_allclose(arr(x.grad), [-1e12, 1e12, 0.25 / 0.25, -1e12, 0.0], rtol=1e-12)
    # the target's gradient is log(1 - x) - log(x), unclamped
    assert arr(t.grad)[0] == INF and arr(t.grad)[1] == -INF
    assert arr(t.grad)[2] == 0.0 and arr(t.grad)[3] == pytest.approx(-math.log(1e-30))


def test_bce_weighted_mean_and_gradchecks():
    rng = np.random.default_rng(0)
    x = ag.tensor(rng.uniform(0.1, 0.9, (3, 4)), requires_grad=True)
    t = ag.tensor(rng.uniform(0, 1, (3, 4)), requires_grad=True)
    w = ag.tensor(rng.uniform(0.5, 2, (4,)))
    xn, tn, wn = arr(x), arr(t), arr(w)
    expect = (-(tn * np.log(xn) + (1 - tn) * np.log(1 - xn)) * wn).mean()
    assert float(F.binary_cross_entropy(x, t, w)) == pytest.approx(expect, rel=1e-12)
    assert gradcheck(lambda a, b: F.binary_cross_entropy(a, b, w), (x, t))
    assert gradgradcheck(lambda a, b: F.binary_cross_entropy(a, b, w), (x, t))


def test_bce_checks_first():
    x = ag.tensor([0.5, 1.5], requires_grad=True)
    with pytest.raises(RuntimeError, match="between 0 and 1"):
        F.binary_cross_entropy(x, ag.tensor([0.0, 1.0]))
    with pytest.raises(ValueError, match="target size"):
        F.binary_cross_entropy(x, ag.tensor([0.0]))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        F.binary_cross_entropy(ag.tensor([0.5]), ag.tensor([0.0]), reduction="avg")


VALUES = [INF, -INF, NAN, 0.0, 0.5, 3.0, -2.5]


def _slopes(bound, scale):
    out = []
    for d in VALUES:
        c = d if math.isnan(d) else min(max(d, -bound), bound)
        out.append(c / bound if scale else c)
    return out


@pytest.mark.parametrize("name, kw, bound, scale", [
    ("smooth_l1_loss", {"beta": 1.0}, 1.0, True),
    ("smooth_l1_loss", {"beta": 0.5}, 0.5, True),
    ("huber_loss", {"delta": 2.0}, 2.0, False),
])
def test_huber_type_gradient_is_the_clipped_slope(name, kw, bound, scale):
    x = ag.tensor(VALUES, dtype=ag.float64, requires_grad=True)
    y = ag.zeros(len(VALUES), dtype=ag.float64, requires_grad=True)
    getattr(F, name)(x, y, reduction="sum", **kw).backward()
    expect = _slopes(bound, scale)
    np.testing.assert_allclose(arr(x.grad), expect)  # inf -> +-1 (or +-delta), NaN -> NaN
    np.testing.assert_allclose(arr(y.grad), [-v for v in expect])


@pytest.mark.parametrize("name, kw", [("smooth_l1_loss", {"beta": 0.7}),
                                      ("huber_loss", {"delta": 0.7})])
def test_huber_type_gradchecks_with_broadcasting(name, kw):
    rng = np.random.default_rng(1)
    x = ag.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    y = ag.tensor(rng.standard_normal((4,)), requires_grad=True)
    fn = lambda a, b: getattr(F, name)(a, b, reduction="none", **kw)  # noqa: E731
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(fn, (x, y))
        assert gradgradcheck(fn, (x, y))


@needs_torch
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name, kw", [("smooth_l1_loss", {"beta": 1.0}),
                                      ("smooth_l1_loss", {"beta": 0.0}),
                                      ("huber_loss", {"delta": 2.0})])
def test_huber_type_against_torch_at_nonfinite(name, kw, reduction):
    tx = torch.tensor(VALUES, dtype=torch.float64, requires_grad=True)
    ty = torch.zeros(len(VALUES), dtype=torch.float64, requires_grad=True)
    tl = getattr(torch.nn.functional, name)(tx, ty, reduction=reduction, **kw)
    tl.sum().backward()
    x = ag.tensor(VALUES, dtype=ag.float64, requires_grad=True)
    y = ag.zeros(len(VALUES), dtype=ag.float64, requires_grad=True)
    out = getattr(F, name)(x, y, reduction=reduction, **kw)
    out.sum().backward()
    np.testing.assert_allclose(arr(out), tl.detach().numpy())
    np.testing.assert_allclose(arr(x.grad), tx.grad.numpy())
    np.testing.assert_allclose(arr(y.grad), ty.grad.numpy())


@needs_torch
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_bce_against_torch(reduction):
    xs = [0.0, 1.0, 0.5, 1e-30, 1.0, 0.999]
    ts = [1.0, 0.0, 0.3, 1.0, 1.0, 0.2]
    for dt, tdt in ((ag.float32, torch.float32), (ag.float64, torch.float64)):
        tx = torch.tensor(xs, dtype=tdt, requires_grad=True)
        tl = torch.nn.functional.binary_cross_entropy(tx, torch.tensor(ts, dtype=tdt),
                                                      reduction=reduction)
        tl.sum().backward()
        x = ag.tensor(xs, dtype=dt, requires_grad=True)
        out = F.binary_cross_entropy(x, ag.tensor(ts, dtype=dt), reduction=reduction)
        out.sum().backward()
        np.testing.assert_allclose(arr(out), tl.detach().double().numpy(), rtol=1e-6)
        np.testing.assert_allclose(arr(x.grad), tx.grad.double().numpy(), rtol=1e-6)
