"""The margin, ranking, embedding and likelihood losses (functional and modules): values
against hand-computed float64 references, gradcheck/gradgradcheck, PyTorch's errors, and
values and gradients against PyTorch where installed (hypothesis over shapes and reductions)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from nn_helpers import arr

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn import functional as F

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

REDUCTIONS = ["none", "mean", "sum"]
rng = np.random.default_rng(11)
X = rng.standard_normal((5, 4))
Y = rng.standard_normal((5, 4))
Z = rng.standard_normal((5, 4))
PM = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
CLS = np.array([0, 3, 1, 2, 3])
ML = np.array([[0, 2, -1, 1], [3, -1, 0, 0], [1, 1, 2, -1], [-1, 0, 0, 0], [0, 1, 2, 3]])
W = rng.random(4) + 0.5


def t(a, grad=False):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        return ag.tensor(a, dtype=ag.float64, requires_grad=grad)
    return ag.tensor(a)


def red(v, reduction):
    return {"none": v, "sum": np.sum(v), "mean": np.mean(v)}[reduction]


# -- hand-computed references (float64 NumPy) ----------------------------------------------

def ref_cosine_embedding(a, b, y, margin):
    cos = (a * b).sum(1) / np.sqrt(((a * a).sum(1) + 1e-12) * ((b * b).sum(1) + 1e-12))
    return np.where(y == 1, 1 - cos, 0) + np.where(y == -1, np.maximum(cos - margin, 0), 0)


def ref_multi_margin(x, y, p, margin, w):
    out = []
    for row, k in zip(x, y):
        s = 0.0
        for i in range(len(row)):
            if i != k:
                z = max(0.0, margin - row[k] + row[i]) ** p
                s += z * (1.0 if w is None else w[k])
        out.append(s / len(row))
    return np.array(out)


def ref_multilabel_margin(x, y):
    out = []
    for row, tg in zip(x, y):
        listed = []
        for v in tg:
            if v < 0:
                break
            listed.append(v)
        s = sum(max(0.0, 1 - (row[j] - row[i])) for j in listed for i in range(len(row))
                if i not in listed)
        out.append(s / len(row))
    return np.array(out)


def ref_pdist(a, b, p, eps=1e-6):
    d = np.abs(a - b + eps)
    return d.sum(-1) if p == 1 else (d ** p).sum(-1) ** (1 / p)


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


CASES = [
    ("cosine_embedding_loss", lambda r: F.cosine_embedding_loss(t(X), t(Y), t(PM), 0.2,
                                                                 reduction=r),
     lambda r: red(ref_cosine_embedding(X, Y, PM, 0.2), r)),
    ("margin_ranking_loss", lambda r: F.margin_ranking_loss(t(X[:, 0]), t(Y[:, 0]), t(PM), 0.3,
                                                             reduction=r),
     lambda r: red(np.maximum(0, -PM * (X[:, 0] - Y[:, 0]) + 0.3), r)),
    ("hinge_embedding_loss", lambda r: F.hinge_embedding_loss(t(X), t(np.sign(Y)), 0.5,
                                                               reduction=r),
     lambda r: red(np.where(np.sign(Y) == 1, X, np.maximum(0, 0.5 - X)), r)),
    ("soft_margin_loss", lambda r: F.soft_margin_loss(t(X), t(np.sign(Y)), reduction=r),
     lambda r: red(np.log1p(np.exp(-X * np.sign(Y))), r)),
    ("multilabel_soft_margin_loss",
     lambda r: F.multilabel_soft_margin_loss(t(X), t((Y > 0) * 1.0), t(W), reduction=r),
     lambda r: red(-(((Y > 0) * np.log(_sigmoid(X)) + (Y <= 0) * np.log(_sigmoid(-X))) * W)
                   .mean(1), r)),
    ("multilabel_margin_loss", lambda r: F.multilabel_margin_loss(t(X), t(ML), reduction=r),
     lambda r: red(ref_multilabel_margin(X, ML), r)),
    ("multi_margin_loss p=1", lambda r: F.multi_margin_loss(t(X), t(CLS), reduction=r),
     lambda r: red(ref_multi_margin(X, CLS, 1, 1.0, None), r)),
    ("multi_margin_loss p=2 w", lambda r: F.multi_margin_loss(t(X), t(CLS), 2, 0.6, t(W),
                                                              reduction=r),
     lambda r: red(ref_multi_margin(X, CLS, 2, 0.6, W), r)),
    ("triplet_margin_loss", lambda r: F.triplet_margin_loss(t(X), t(Y), t(Z), 0.7, 3,
                                                             reduction=r),
     lambda r: red(np.maximum(0, 0.7 + ref_pdist(X, Y, 3) - ref_pdist(X, Z, 3)), r)),
    ("triplet_margin_loss swap", lambda r: F.triplet_margin_loss(t(X), t(Y), t(Z), swap=True,
                                                                  reduction=r),
     lambda r: red(np.maximum(0, 1 + ref_pdist(X, Y, 2) - np.minimum(ref_pdist(X, Z, 2),
                                                                     ref_pdist(Y, Z, 2))), r)),
    ("triplet_margin_with_distance_loss",
     lambda r: F.triplet_margin_with_distance_loss(
         t(X), t(Y), t(Z), distance_function=lambda a, b: (a - b).abs().sum(-1), margin=2.0,
         reduction=r),
     lambda r: red(np.maximum(0, 2 + np.abs(X - Y).sum(1) - np.abs(X - Z).sum(1)), r)),
    ("gaussian_nll_loss", lambda r: F.gaussian_nll_loss(t(X), t(Y), t(W[None, :]), full=True,
                                                         reduction=r),
     lambda r: red(0.5 * (np.log(W) + (X - Y) ** 2 / W) + 0.5 * math.log(2 * math.pi), r)),
    ("poisson_nll_loss", lambda r: F.poisson_nll_loss(t(X), t(np.abs(Y) * 3), reduction=r),
     lambda r: red(np.exp(X) - np.abs(Y) * 3 * X, r)),
    ("poisson_nll_loss full", lambda r: F.poisson_nll_loss(
        t(np.abs(X)), t(np.abs(Y) * 3), log_input=False, full=True, reduction=r),
     lambda r: red(np.abs(X) - np.abs(Y) * 3 * np.log(np.abs(X) + 1e-8) + np.where(
         np.abs(Y) * 3 > 1, 3 * np.abs(Y) * np.log(3 * np.abs(Y)) - 3 * np.abs(Y)
         + 0.5 * np.log(2 * math.pi * 3 * np.abs(Y)), 0), r)),
]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name, fn, ref", CASES, ids=[c[0] for c in CASES])
def test_values_against_hand_computed_references(name, fn, ref, reduction):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.testing.assert_allclose(arr(fn(reduction)), ref(reduction), rtol=1e-10, atol=1e-12)


GRAD_CASES = [
    ("cosine_embedding", lambda a, b: F.cosine_embedding_loss(a, b, t(PM), 0.1), (X, Y)),
    ("margin_ranking", lambda a, b: F.margin_ranking_loss(a, b, t(PM), 0.1), (X[:, 0], Y[:, 0])),
    ("hinge_embedding", lambda a: F.hinge_embedding_loss(a, t(np.sign(Y)), 0.5), (X,)),
    ("soft_margin", lambda a: F.soft_margin_loss(a, t(np.sign(Y))), (X,)),
    ("multilabel_soft_margin", lambda a, b: F.multilabel_soft_margin_loss(a, b, t(W)),
     (X, _sigmoid(Y))),
    ("multilabel_margin", lambda a: F.multilabel_margin_loss(a, t(ML), reduction="none"), (X,)),
    ("multi_margin p1", lambda a: F.multi_margin_loss(a, t(CLS), weight=t(W)), (X,)),
    ("multi_margin p2", lambda a: F.multi_margin_loss(a, t(CLS), p=2, margin=0.5), (X,)),
    ("triplet", lambda a, b, c: F.triplet_margin_loss(a, b, c, margin=3.0, swap=True), (X, Y, Z)),
    ("triplet p1", lambda a, b, c: F.triplet_margin_loss(a, b, c, margin=3.0, p=1), (X, Y, Z)),
    ("triplet distance", lambda a, b, c: F.triplet_margin_with_distance_loss(
        a, b, c, distance_function=lambda u, v: 1 - F.cosine_similarity(u, v), margin=1.5),
     (X, Y, Z)),
    ("gaussian", lambda a, b, v: F.gaussian_nll_loss(a, b, v), (X, Y, np.tile(W + 0.1, (5, 1)))),
    ("gaussian short var", lambda a, b, v: F.gaussian_nll_loss(a, b, v), (X, Y, W[:1].repeat(5))),
    ("poisson", lambda a, b: F.poisson_nll_loss(a, b, full=True), (X, np.abs(Y) * 3)),
    ("poisson rate", lambda a: F.poisson_nll_loss(a, t(np.abs(Y)), log_input=False),
     (np.abs(X) + 0.5,)),
]


@pytest.mark.parametrize("name, fn, inputs", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck_and_gradgradcheck(name, fn, inputs):
    leaves = tuple(t(a, grad=True) for a in inputs)
    assert gradcheck(fn, leaves)
    assert gradgradcheck(fn, leaves)


def test_multi_margin_and_multilabel_margin_shapes():
    x1 = t(X[0], grad=True)
    assert F.multi_margin_loss(x1, t(np.array(2)), reduction="none").shape == ()
    assert F.multi_margin_loss(x1, t(np.array([2])), reduction="none").shape == (1,)
    assert F.multilabel_margin_loss(x1, t(ML[0]), reduction="none").shape == ()
    assert F.multilabel_margin_loss(t(X), t(ML), reduction="none").shape == (5,)
    np.testing.assert_allclose(arr(F.multilabel_margin_loss(x1, t(ML[0]))),
                               ref_multilabel_margin(X[:1], ML[:1])[0])


def test_gaussian_variance_shapes():
    x, y = t(X), t(Y)
    per_sample = rng.random(5) + 0.2
    full = F.gaussian_nll_loss(x, y, t(per_sample), reduction="none")
    expect = 0.5 * (np.log(per_sample)[:, None] + (X - Y) ** 2 / per_sample[:, None])
    np.testing.assert_allclose(arr(full), expect, rtol=1e-12)
    same = F.gaussian_nll_loss(x, y, t(per_sample[:, None]), reduction="none")
    np.testing.assert_allclose(arr(same), expect, rtol=1e-12)
    scalar = F.gaussian_nll_loss(x, y, 0.5, reduction="none")
    np.testing.assert_allclose(arr(scalar), 0.5 * (math.log(0.5) + (X - Y) ** 2 / 0.5))
    # var below eps: the value uses eps, the gradient reaches var unclamped
    v = t(np.full((5, 4), 1e-9), grad=True)
    F.gaussian_nll_loss(x, y, v, eps=1e-6, reduction="sum").backward()
    np.testing.assert_allclose(arr(v.grad), 0.5 * (1 / 1e-6 - (X - Y) ** 2 / 1e-12), rtol=1e-9)


ERRORS = [
    (lambda: F.cosine_embedding_loss(t(X), t(Y), t(np.ones((5, 1)))), RuntimeError,
     "0D or 1D target"),
    (lambda: F.cosine_embedding_loss(t(X), t(Y), t(np.array(1.0))), RuntimeError,
     "0D target tensor expects 1D input"),
    (lambda: F.margin_ranking_loss(t(X), t(Y[:, 0]), t(PM)), RuntimeError,
     "same dimension"),
    (lambda: F.multi_margin_loss(t(X), t(CLS), p=3), ValueError, "only p == 1 and p == 2"),
    (lambda: F.multi_margin_loss(t(X), t(CLS), weight=t(np.ones((2, 2)))), ValueError,
     "one-dimensional"),
    (lambda: F.multi_margin_loss(t(X), t(CLS[:3])), RuntimeError, "Expected target size \\[5\\]"),
    (lambda: F.multi_margin_loss(t(X), t(CLS + 1)), RuntimeError, "target out of range"),
    (lambda: F.multi_margin_loss(t(X), t(CLS * 1.0)), RuntimeError, "Long"),
    (lambda: F.multi_margin_loss(t(X), t(CLS), weight=t(W[:3])), RuntimeError,
     "inconsistent weight size"),
    (lambda: F.multi_margin_loss(t(np.zeros((2, 3, 4))), t(CLS[:2])), RuntimeError,
     "non-empty vector or matrix"),
    (lambda: F.multilabel_margin_loss(t(X), t(ML[:2])), RuntimeError, "inconsistent target size"),
    (lambda: F.multilabel_margin_loss(t(X), t(ML + 1)), RuntimeError, "out of range"),
    (lambda: F.multilabel_margin_loss(t(X), t(ML - 1)), RuntimeError, "out of range"),
    (lambda: F.triplet_margin_loss(t(X), t(Y), t(Z[0])), RuntimeError, "same number of dim"),
    (lambda: F.triplet_margin_loss(t(X), t(Y), t(Z), margin=0), ValueError,
     "margin must be greater than 0"),
    (lambda: F.triplet_margin_with_distance_loss(t(X), t(Y), t(Z), margin=-1), ValueError,
     "margin must be greater than 0"),
    (lambda: F.triplet_margin_with_distance_loss(t(X), t(Y), t(Z), reduction="avg"), ValueError,
     "not a valid value for reduction"),
    (lambda: F.gaussian_nll_loss(t(X), t(Y), t(-W[None])), ValueError, "negative entry"),
    (lambda: F.gaussian_nll_loss(t(X), t(Y), -1.0), ValueError, "negative entry"),
    (lambda: F.gaussian_nll_loss(t(X), t(Y), t(W[:3])), ValueError, "var is of incorrect size"),
    (lambda: F.gaussian_nll_loss(t(X), t(Y), t(W[None]), reduction="avg"), ValueError,
     "not valid"),
    (lambda: F.poisson_nll_loss(t(X), t(Y), reduction="avg"), ValueError,
     "not a valid value for reduction"),
    (lambda: F.hinge_embedding_loss(t(X), t(Y), reduction="avg"), ValueError,
     "not a valid value for reduction"),
    (lambda: F.multilabel_soft_margin_loss(t(X), t(Y), reduction="avg"), ValueError, "not valid"),
    (lambda: nn.TripletMarginLoss(margin=0.0), ValueError, "TripletMarginLoss: expected margin"),
    (lambda: nn.TripletMarginWithDistanceLoss(margin=0.0), ValueError,
     "TripletMarginWithDistanceLoss: expected margin"),
    (lambda: nn.MultiMarginLoss(p=3), ValueError, "only p == 1 and p == 2"),
    (lambda: nn.MultiMarginLoss(weight=t(np.ones((2, 2)))), ValueError, "expected weight"),
]


@pytest.mark.parametrize("fn, cls, match", ERRORS)
def test_errors(fn, cls, match):
    with pytest.raises(cls, match=match):
        fn()


def test_legacy_size_average_and_reduce():
    with pytest.warns(UserWarning, match="size_average and reduce"):
        out = F.margin_ranking_loss(t(X[:, 0]), t(Y[:, 0]), t(PM), size_average=False)
    np.testing.assert_allclose(arr(out), np.maximum(0, -PM * (X[:, 0] - Y[:, 0])).sum())
    with pytest.warns(UserWarning):
        mod = nn.SoftMarginLoss(reduce=False)
    assert mod.reduction == "none"
    with pytest.warns(UserWarning):
        assert nn.PoissonNLLLoss(size_average=True, reduce=True).reduction == "mean"


MODULES = [
    (lambda r: nn.CosineEmbeddingLoss(0.2, reduction=r), lambda r: F.cosine_embedding_loss(
        t(X), t(Y), t(PM), 0.2, reduction=r), (X, Y, PM)),
    (lambda r: nn.MarginRankingLoss(0.3, reduction=r), lambda r: F.margin_ranking_loss(
        t(X[:, 0]), t(Y[:, 0]), t(PM), 0.3, reduction=r), (X[:, 0], Y[:, 0], PM)),
    (lambda r: nn.HingeEmbeddingLoss(0.5, reduction=r), lambda r: F.hinge_embedding_loss(
        t(X), t(np.sign(Y)), 0.5, reduction=r), (X, np.sign(Y))),
    (lambda r: nn.SoftMarginLoss(reduction=r), lambda r: F.soft_margin_loss(
        t(X), t(np.sign(Y)), reduction=r), (X, np.sign(Y))),
    (lambda r: nn.MultiLabelSoftMarginLoss(t(W), reduction=r),
     lambda r: F.multilabel_soft_margin_loss(t(X), t(_sigmoid(Y)), t(W), reduction=r),
     (X, _sigmoid(Y))),
    (lambda r: nn.MultiLabelMarginLoss(reduction=r), lambda r: F.multilabel_margin_loss(
        t(X), t(ML), reduction=r), (X, ML)),
    (lambda r: nn.MultiMarginLoss(2, 0.5, t(W), reduction=r), lambda r: F.multi_margin_loss(
        t(X), t(CLS), 2, 0.5, t(W), reduction=r), (X, CLS)),
    (lambda r: nn.TripletMarginLoss(0.5, 1.0, 1e-6, True, reduction=r),
     lambda r: F.triplet_margin_loss(t(X), t(Y), t(Z), 0.5, 1.0, 1e-6, True, reduction=r),
     (X, Y, Z)),
    (lambda r: nn.TripletMarginWithDistanceLoss(margin=0.5, swap=True, reduction=r),
     lambda r: F.triplet_margin_with_distance_loss(t(X), t(Y), t(Z), margin=0.5, swap=True,
                                                   reduction=r), (X, Y, Z)),
    (lambda r: nn.GaussianNLLLoss(full=True, eps=1e-3, reduction=r),
     lambda r: F.gaussian_nll_loss(t(X), t(Y), t(W[None]), True, 1e-3, reduction=r),
     (X, Y, W[None])),
    (lambda r: nn.PoissonNLLLoss(False, True, eps=1e-3, reduction=r),
     lambda r: F.poisson_nll_loss(t(np.abs(X)), t(np.abs(Y)), False, True, eps=1e-3,
                                  reduction=r), (np.abs(X), np.abs(Y))),
]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("i", range(len(MODULES)))
def test_modules_call_the_functional_form(i, reduction):
    make, functional, inputs = MODULES[i]
    np.testing.assert_allclose(arr(make(reduction)(*(t(a) for a in inputs))),
                               arr(functional(reduction)), rtol=1e-12)


# -- against PyTorch -----------------------------------------------------------------------

def _pair(a, grad):
    a = np.asarray(a)
    fl = a.dtype.kind == "f"
    return (torch.tensor(a, requires_grad=grad and fl),
            ag.tensor(a, requires_grad=grad and fl))


def _against_torch(tf, af, arrays, nograd=(), rtol=1e-9, atol=1e-11):
    pairs = [_pair(a, i not in nograd) for i, a in enumerate(arrays)]
    tout = tf(torch, torch.nn.functional, *(p[0] for p in pairs))
    aout = af(ag, F, *(p[1] for p in pairs))
    assert tuple(aout.shape) == tuple(tout.shape)
    np.testing.assert_allclose(arr(aout), tout.detach().numpy(), rtol=rtol, atol=atol)
    seed = np.random.default_rng(3).standard_normal(tuple(tout.shape))
    tout.backward(torch.tensor(seed))
    aout.backward(ag.tensor(seed))
    for tt, at in pairs:
        if tt.requires_grad and tt.grad is None:  # not differentiable there (a label)
            assert at.grad is None or not arr(at.grad).any()
        elif tt.requires_grad:
            np.testing.assert_allclose(arr(at.grad), tt.grad.numpy(), rtol=rtol, atol=atol)


def _margin_loss_cases(n, c, r):
    a, b, z = (r.standard_normal((n, c)) for _ in range(3))
    y = r.choice([-1.0, 1.0], n)
    cls = r.integers(0, c, n)
    ml = r.integers(-1, c, (n, c))
    w = r.random(c) + 0.5
    v = r.random((n, c)) + 0.05
    # cosine's gradient cancels two terms of size 1/|a|: an input of tiny norm (|a| = 4e-5
    # with c = 1, seed 117) amplifies an ulp of op-order difference past rtol 1e-9, so its
    # inputs keep a norm of at least 0.05 (the comparison stays as tight)
    ca, cb = (x + np.copysign(0.05, x) for x in (a, b))
    return [
        (lambda m, f, a, b, y, red: f.cosine_embedding_loss(a, b, y, 0.1, reduction=red),
         (ca, cb, y), ()),
        (lambda m, f, a, b, y, red: f.margin_ranking_loss(a, b, y, 0.2, reduction=red),
         (a[:, 0], b[:, 0], y), ()),
        (lambda m, f, a, y, red: f.hinge_embedding_loss(a, y, reduction=red),
         (a[:, 0], y), (1,)),
        (lambda m, f, a, y, red: f.soft_margin_loss(a, y, reduction=red), (a[:, 0], y), (1,)),
        (lambda m, f, a, b, w, red: f.multilabel_soft_margin_loss(a, b, w, reduction=red),
         (a, (b > 0) * 1.0, w), (2,)),
        (lambda m, f, a, t_, red: f.multilabel_margin_loss(a, t_, reduction=red), (a, ml), ()),
        (lambda m, f, a, t_, w, red: f.multi_margin_loss(a, t_, 2, 0.7, w, reduction=red),
         (a, cls, w), (2,)),
        (lambda m, f, a, t_, red: f.multi_margin_loss(a, t_, reduction=red), (a, cls), ()),
        (lambda m, f, a, b, z, red: f.triplet_margin_loss(a, b, z, 1.0, 1.5, swap=True,
                                                           reduction=red), (a, b, z), ()),
        (lambda m, f, a, b, z, red: f.triplet_margin_with_distance_loss(
            a, b, z, distance_function=f.pairwise_distance, swap=True, reduction=red),
         (a, b, z), ()),
        (lambda m, f, a, b, v, red: f.gaussian_nll_loss(a, b, v, full=True, reduction=red),
         (a, b, v), ()),
        (lambda m, f, a, b, v, red: f.gaussian_nll_loss(a, b, v, reduction=red),
         (a, b, v[:, 0]), ()),
        (lambda m, f, a, b, red: f.poisson_nll_loss(a, b, full=True, reduction=red),
         (a, np.abs(b) * 2), ()),
        (lambda m, f, a, b, red: f.poisson_nll_loss(a, b, log_input=False, reduction=red),
         (np.abs(a), np.abs(b)), ()),
    ]


@needs_torch
@settings(max_examples=12, deadline=None)
@given(n=st.integers(1, 4), c=st.integers(1, 5), reduction=st.sampled_from(REDUCTIONS),
       seed=st.integers(0, 2 ** 16))
def test_against_torch_hypothesis(n, c, reduction, seed):
    r = np.random.default_rng(seed)
    for fn, arrays, nograd in _margin_loss_cases(n, c, r):
        _against_torch(lambda m, f, *xs: fn(m, f, *xs, reduction),
                       lambda m, f, *xs: fn(m, f, *xs, reduction), arrays, nograd)


@needs_torch
@pytest.mark.parametrize("name", ["CosineEmbeddingLoss", "MarginRankingLoss", "TripletMarginLoss",
                                  "TripletMarginWithDistanceLoss", "SoftMarginLoss",
                                  "MultiLabelSoftMarginLoss", "MultiLabelMarginLoss",
                                  "HingeEmbeddingLoss", "MultiMarginLoss", "GaussianNLLLoss",
                                  "PoissonNLLLoss", "CTCLoss"])
def test_module_repr_attributes_and_state_dict_as_torch(name):
    ours, theirs = getattr(nn, name)(), getattr(torch.nn, name)()
    assert repr(ours) == repr(theirs)
    public = lambda m: {k: v for k, v in vars(m).items()  # noqa: E731
                        if not k.startswith("_") and k != "training"}
    assert public(ours) == public(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())


@needs_torch
def test_weighted_module_state_dict_loads_from_torch():
    w = torch.rand(4, dtype=torch.float64) + 0.5
    theirs = torch.nn.MultiMarginLoss(weight=w)
    ours = nn.MultiMarginLoss(weight=ag.zeros(4))
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((3, 4))
    np.testing.assert_allclose(arr(ours(ag.tensor(x), ag.tensor([0, 1, 3]))),
                               theirs(torch.tensor(x), torch.tensor([0, 1, 3])).item(),
                               rtol=1e-6)


def test_guide_code_blocks_run():
    import pathlib
    import re

    text = (pathlib.Path(__file__).resolve().parents[2] / "docs"
            / "losses-and-distances.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 4
    namespace: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"losses-and-distances.md[block {i}]", "exec"), namespace)  # noqa: S102
