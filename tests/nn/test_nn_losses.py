"""Losses (functional and modules): values against float64 formulas, reductions, gradcheck."""

import math
import warnings

import numpy as np
import pytest
from nn_helpers import arr, t64

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck
from arraygrad.nn import functional as F

rng = np.random.default_rng(7)
X = rng.standard_normal((4, 5))
Y = rng.standard_normal((4, 5))
TARGET = np.array([0, 2, 4, 2])
W = rng.random(5) + 0.5


def reduce_np(v, reduction):
    return {"none": v, "sum": v.sum(), "mean": v.mean()}[reduction]


def log_softmax_np(x, axis=1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def check(fn, *inputs):
    leaves = tuple(t.detach().requires_grad_(t.is_floating_point()) for t in inputs)
    assert gradcheck(fn, leaves)


# -- regression losses ---------------------------------------------------------------------

REGRESSION = [
    ("MSELoss", {}, lambda d: d ** 2),
    ("L1Loss", {}, np.abs),
    ("SmoothL1Loss", {"beta": 0.5},
     lambda d: np.where(np.abs(d) < 0.5, 0.5 * d ** 2 / 0.5, np.abs(d) - 0.25)),
    ("HuberLoss", {"delta": 0.7},
     lambda d: np.where(np.abs(d) < 0.7, 0.5 * d ** 2, 0.7 * (np.abs(d) - 0.35))),
]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name, kwargs, formula", REGRESSION, ids=[r[0] for r in REGRESSION])
def test_regression_losses(name, kwargs, formula, reduction):
    loss = getattr(nn, name)(reduction=reduction, **kwargs)
    out = loss(t64(X), t64(Y))
    np.testing.assert_allclose(arr(out), reduce_np(formula(X - Y), reduction), rtol=1e-12)
    check(lambda a, b: loss(a, b), t64(X), t64(Y))
    assert repr(loss) == f"{name}()"


def test_smooth_l1_beta_zero_is_l1_and_bad_reduction():
    np.testing.assert_allclose(arr(F.smooth_l1_loss(t64(X), t64(Y), beta=0.0)),
                               np.abs(X - Y).mean(), rtol=1e-12)
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.mse_loss(t64(X), t64(Y), reduction="foo")


def test_size_mismatch_warns_and_legacy_args():
    with pytest.warns(UserWarning, match="different to the input size"):
        F.mse_loss(t64(X), t64(Y[:1]))
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        loss = nn.MSELoss(size_average=False)
    assert loss.reduction == "sum"


# -- classification ------------------------------------------------------------------------

def _nll_ref(logp, target, weight, ignore_index, reduction):
    w = np.ones(logp.shape[1]) if weight is None else weight
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    wt = w[safe] * valid
    losses = -logp[np.arange(len(target)), safe] * wt
    if reduction == "mean":
        return losses.sum() / wt.sum()
    return reduce_np(losses, reduction)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_cross_entropy_and_nll_class_indices(reduction, weighted, ignore_index):
    weight = t64(W) if weighted else None
    target = ag.tensor(TARGET.tolist())
    ce = nn.CrossEntropyLoss(weight=weight, ignore_index=ignore_index, reduction=reduction)
    expected = _nll_ref(log_softmax_np(X), TARGET, W if weighted else None, ignore_index,
                        reduction)
    np.testing.assert_allclose(arr(ce(t64(X), target)), expected, rtol=1e-12)
    nll = nn.NLLLoss(weight=weight, ignore_index=ignore_index, reduction=reduction)
    np.testing.assert_allclose(arr(nll(t64(log_softmax_np(X)), target)), expected, rtol=1e-12)
    check(lambda a: ce(a, target), t64(X))
    check(lambda a: nll(a, target), t64(X))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_label_smoothing(reduction):
    eps, ignore = 0.2, 2
    target = ag.tensor(TARGET.tolist())
    out = F.cross_entropy(t64(X), target, weight=t64(W), ignore_index=ignore,
                          label_smoothing=eps, reduction=reduction)
    logp = log_softmax_np(X)
    valid = TARGET != ignore
    nll = _nll_ref(logp, TARGET, W, ignore, reduction)
    smooth = -(logp * W).sum(1) * valid
    if reduction == "mean":
        smooth = smooth.sum() / (W[np.where(valid, TARGET, 0)] * valid).sum()
    else:
        smooth = reduce_np(smooth, reduction)
    np.testing.assert_allclose(arr(out), (1 - eps) * nll + eps / 5 * smooth, rtol=1e-12)
    check(lambda a: F.cross_entropy(a, target, weight=t64(W), ignore_index=ignore,
                                    label_smoothing=eps, reduction=reduction), t64(X))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_probability_targets(reduction):
    p = rng.random((4, 5))
    p /= p.sum(1, keepdims=True)
    out = F.cross_entropy(t64(X), t64(p), weight=t64(W), reduction=reduction,
                          label_smoothing=0.1)
    q = p * 0.9 + 0.1 / 5
    per = -(log_softmax_np(X) * q * W).sum(1)
    expected = per.sum() / 4 if reduction == "mean" else reduce_np(per, reduction)
    np.testing.assert_allclose(arr(out), expected, rtol=1e-12)
    check(lambda a, t: F.cross_entropy(a, t, reduction=reduction), t64(X), t64(p))


def test_cross_entropy_spatial_and_unbatched():
    x = rng.standard_normal((2, 3, 4))
    t = np.array([[0, 1, 2, 1], [2, 2, 0, 1]])
    out = F.cross_entropy(t64(x), ag.tensor(t.tolist()), reduction="none")
    logp = log_softmax_np(x)
    expected = -np.take_along_axis(logp, t[:, None, :], 1)[:, 0, :]
    np.testing.assert_allclose(arr(out), expected, rtol=1e-12)
    one = F.cross_entropy(t64(X[0]), ag.tensor(3))
    np.testing.assert_allclose(one.item(), -log_softmax_np(X[:1])[0, 3], rtol=1e-12)


def test_nll_errors():
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        F.nll_loss(t64(X), ag.tensor([0, 1, 5, 2]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(4\) to match target batch_size \(3\)"):
        F.nll_loss(t64(X), ag.tensor([0, 1, 2]))


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_all_ignored_mean_is_nan():
    out = F.cross_entropy(t64(X[:2]), ag.tensor([-100, -100]))
    assert math.isnan(out.item())


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce(reduction):
    p = rng.random((4, 5)) * 0.9 + 0.05
    t = rng.random((4, 5))
    loss = nn.BCELoss(weight=t64(W), reduction=reduction)
    out = loss(t64(p), t64(t))
    expected = reduce_np(-(t * np.log(p) + (1 - t) * np.log(1 - p)) * W, reduction)
    np.testing.assert_allclose(arr(out), expected, rtol=1e-12)
    check(lambda a, b: loss(a, b), t64(p), t64(t))


def test_bce_clamps_log_and_checks_range():
    out = F.binary_cross_entropy(t64([0., 1.]), t64([1., 0.]), reduction="none")
    assert arr(out).tolist() == [100., 100.]
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(t64([1.5]), t64([1.]))


def test_bce_refuses_nan_as_outside_the_range():
    # as PyTorch's kernel, which checks 0 <= x <= 1 per element: NaN fails it (the check read
    # the extremes, and a NaN extreme hid any other entry out of range)
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(t64([math.nan, 0.5]), t64([0.5, 0.5]))
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(t64([0.5, 0.5]), t64([math.nan, 2.0]))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_bce_with_logits_pos_weight(reduction):
    t = (rng.random((4, 5)) > 0.5).astype(float)
    pw = rng.random(5) + 0.5
    loss = nn.BCEWithLogitsLoss(weight=t64(W), pos_weight=t64(pw), reduction=reduction)
    out = loss(t64(X), t64(t))
    sig = 1 / (1 + np.exp(-X))
    expected = -(pw * t * np.log(sig) + (1 - t) * np.log(1 - sig)) * W
    np.testing.assert_allclose(arr(out), reduce_np(expected, reduction), rtol=1e-10)
    check(lambda a, b: loss(a, b), t64(X), t64(t))
    assert [n for n, _ in loss.named_buffers()] == ["weight", "pos_weight"]


def test_bce_with_logits_is_stable_and_smooth_at_zero():
    x = t64([-1000., 0., 1000.], requires_grad=True)
    out = F.binary_cross_entropy_with_logits(x, t64([1., 1., 0.]), reduction="none")
    np.testing.assert_allclose(arr(out), [1000., math.log(2), 1000.])
    out.sum().backward()
    np.testing.assert_allclose(arr(x.grad), [-1., -0.5, 1.])


@pytest.mark.parametrize("reduction", ["mean", "sum", "none", "batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    logq = log_softmax_np(X)
    p = np.exp(log_softmax_np(Y))
    p[0, 0] = 0.0  # 0 * log 0 counts as 0
    target = np.log(np.where(p > 0, p, 1e-300)) if log_target else p
    loss = nn.KLDivLoss(reduction=reduction, log_target=log_target)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = loss(t64(logq), t64(target))
    pointwise = np.where(p > 0, p * (np.log(np.where(p > 0, p, 1)) - logq), 0.0)
    if log_target:
        pointwise = np.exp(target) * (target - logq)
    expected = pointwise.sum() / 4 if reduction == "batchmean" else reduce_np(pointwise, reduction)
    np.testing.assert_allclose(arr(out), expected, rtol=1e-10, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda a, b: loss(a, b), t64(logq), t64(np.exp(log_softmax_np(Y))
                                                      if not log_target else log_softmax_np(Y)))


def test_kl_div_mean_warns():
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F.kl_div(t64(X), t64(np.abs(Y)))


# -- other functionals ------------------------------------------------------------------------

def test_one_hot():
    out = F.one_hot(ag.tensor([0, 2, 1]))
    assert out.dtype is ag.int64 and out.tolist() == [[1, 0, 0], [0, 0, 1], [0, 1, 0]]
    assert F.one_hot(ag.tensor([[1]]), num_classes=4).tolist() == [[[0, 1, 0, 0]]]
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor"):
        F.one_hot(ag.tensor([1.]))
    with pytest.raises(RuntimeError, match="Class values must be smaller than num_classes"):
        F.one_hot(ag.tensor([3]), 2)


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_modes(mode):
    x = rng.standard_normal((2, 3, 4))
    out = F.pad(t64(x), (2, 1, 1, 2), mode=mode)
    np_mode = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
               "circular": "wrap"}[mode]
    expected = np.pad(x, ((0, 0), (1, 2), (2, 1)), mode=np_mode)
    np.testing.assert_allclose(arr(out), expected)
    check(lambda a: F.pad(a, (2, 1, 1, 2), mode=mode), t64(x))


def test_pad_constant_value_and_crop():
    x = rng.standard_normal((3, 4))
    out = F.pad(t64(x), (-1, 2), value=7.0)
    expected = np.concatenate([x[:, 1:], np.full((3, 2), 7.0)], axis=1)
    np.testing.assert_allclose(arr(out), expected)
    check(lambda a: F.pad(a, (1, -2, 0, 1)), t64(x))
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(t64(x), (1,))


def test_functional_forms_match_modules():
    x = t64(X)
    assert arr(F.relu(x)).tolist() == arr(nn.ReLU()(x)).tolist()
    np.testing.assert_allclose(arr(F.softmax(x, dim=1)).sum(1), np.ones(4))
    np.testing.assert_allclose(arr(F.log_softmax(x, 1)), log_softmax_np(X), rtol=1e-12)
    np.testing.assert_allclose(arr(F.linear(x, t64(Y))), X @ Y.T, rtol=1e-12)
    assert F.sigmoid(x).shape == F.tanh(x).shape == (4, 5)


def test_conv_names_come_from_the_conv_family_and_unknown_names_raise_attribute_error():
    from arraygrad.nn._functional import conv

    for name in conv.__all__:
        assert getattr(F, name) is getattr(conv, name), name
    with pytest.raises(AttributeError, match="no attribute 'not_a_function'"):
        F.not_a_function


def test_cross_entropy_of_an_empty_batch_is_nan_for_mean_and_zero_for_sum():
    """As in PyTorch. The one-hot fast path divided a Python float by a zero count."""
    x = ag.zeros(0, 5, requires_grad=True)
    y = ag.zeros(0, dtype=ag.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = ag.nn.functional.cross_entropy(x, y)
        total = ag.nn.functional.cross_entropy(x, y, reduction="sum")
        assert math.isnan(mean.item()) and total.item() == 0.0
        total.backward()
    assert x.grad.shape == (0, 5)
