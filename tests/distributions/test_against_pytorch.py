"""Every distribution against PyTorch 2.13 with the same float64 parameters: log_prob,
entropy, cdf, icdf, mean, mode, variance, stddev, shapes, enumerate_support, expand, and the
gradients of log_prob (and entropy) with respect to the parameters."""

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.distributions as D

from tests.distributions.cases import CASES, FLOAT32

torch = pytest.importorskip("torch", reason="the reference is PyTorch")
TD = torch.distributions


def ours_T(a):
    return ag.tensor(np.asarray(a, dtype=np.float64), dtype=ag.float64)


def theirs_T(a):
    return torch.tensor(np.asarray(a, dtype=np.float64), dtype=torch.float64)


def _pair(case):
    build, values = CASES[case]
    if case in FLOAT32:
        ours = build(D, lambda a: ours_T(a).float())
        theirs = build(TD, lambda a: theirs_T(a).float())
    else:
        ours, theirs = build(D, ours_T), build(TD, theirs_T)
    x = values(np.random.default_rng(5))
    return ours, theirs, x


def _same(got, want, rtol=1e-10, atol=1e-12):
    got = got.detach().double().numpy() if hasattr(got, "detach") else np.asarray(got)
    want = want.detach().double().numpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)


def _both(ours, theirs, attribute, *args):
    """The attribute (or method result) on both, or None when PyTorch does not implement
    it (then ours must raise NotImplementedError too)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(theirs, attribute)
            want = want(*[theirs_T(a) for a in args]) if callable(want) else want
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            got = getattr(ours, attribute)
            got(*[ours_T(a) for a in args]) if callable(got) else got
        return None
    got = getattr(ours, attribute)
    got = got(*[ours_T(a) for a in args]) if callable(got) else got
    return got, want


# VonMises: PyTorch's log I0 is a polynomial approximation (~1e-7 relative); ours is exact.
# Multinomial: PyTorch's entropy takes lgamma(total_count + 1) in float32.
TOLERANCE = {"VonMises": (1e-6, 1e-7), "Multinomial": (1e-7, 1e-9),
             **{case: (1e-5, 1e-6) for case in FLOAT32}}


@pytest.mark.parametrize("case", sorted(CASES))
def test_shapes_and_support(case):
    ours, theirs, _ = _pair(case)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample
    assert ours.has_enumerate_support == theirs.has_enumerate_support
    assert type(ours).__name__ == type(theirs).__name__
    assert repr(ours.support).split("(")[0] == repr(theirs.support).split("(")[0]


@pytest.mark.parametrize("case", sorted(CASES))
def test_log_prob_matches(case):
    ours, theirs, x = _pair(case)
    _same(ours.log_prob(ours_T(x)), theirs.log_prob(theirs_T(x)), *TOLERANCE.get(case, ()))


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("attribute", ["mean", "mode", "variance", "stddev", "entropy"])
def test_moments_and_entropy_match(case, attribute):
    ours, theirs, _ = _pair(case)
    if case == "Kumaraswamy" and attribute == "mode":
        pytest.skip("PyTorch 2.13's Kumaraswamy.mode is NaN everywhere (docs/differences.md)")
    found = _both(ours, theirs, attribute)
    if found is not None:
        _same(*found, *TOLERANCE.get(case, ()))


@pytest.mark.parametrize("case", sorted(CASES))
def test_cdf_and_icdf_match(case):
    ours, theirs, x = _pair(case)
    found = _both(ours, theirs, "cdf", x)
    if found is not None:
        _same(*found, *TOLERANCE.get(case, ()))
    u = np.random.default_rng(6).uniform(0.05, 0.95, x.shape)
    found = _both(ours, theirs, "icdf", u)
    if found is not None:
        _same(*found, *TOLERANCE.get(case, ()))


@pytest.mark.parametrize("case", ["Bernoulli", "Bernoulli-logits", "Categorical",
                                  "Categorical-logits", "OneHotCategorical", "Binomial-logits"])
@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support_matches(case, expand):
    ours, theirs, _ = _pair(case)
    _same(ours.enumerate_support(expand), theirs.enumerate_support(expand).double())


@pytest.mark.parametrize("case", sorted(CASES))
def test_expand_matches(case):
    ours, theirs, x = _pair(case)
    shape = (4,) + tuple(ours.batch_shape)
    mine, ref = ours.expand(shape), theirs.expand(shape)
    assert tuple(mine.batch_shape) == tuple(ref.batch_shape) == shape
    assert type(mine) is type(ours)
    _same(mine.log_prob(ours_T(x[:1])), ref.log_prob(theirs_T(x[:1])), *TOLERANCE.get(case, ()))


def _parameters(dist):
    """The floating tensors a distribution was built from (its leaves)."""
    found = {}
    for name, value in sorted(vars(dist).items()):
        if hasattr(value, "dtype") and value.dtype in (ag.float64, torch.float64) \
                and name not in ("_param",) and value.ndim >= 0:
            found[name] = value
    return found


@pytest.mark.parametrize("case", sorted(c for c in CASES if c not in (
    "Normal-scalar", "Wishart", "Wishart-tril", "LKJCholesky", "MixtureSameFamily",
    "TransformedDistribution", "Independent")))
def test_log_prob_gradients_match(case):
    """d sum(log_prob) / d parameters, with the parameters made leaves in both libraries."""
    build, values = CASES[case]
    leaves_ours, leaves_theirs = [], []

    def leaf_ours(a):
        t = (ours_T(a).float() if case in FLOAT32 else ours_T(a)).requires_grad_()
        leaves_ours.append(t)
        return t

    def leaf_theirs(a):
        t = (theirs_T(a).float() if case in FLOAT32 else theirs_T(a)).requires_grad_()
        leaves_theirs.append(t)
        return t

    ours, theirs = build(D, leaf_ours), build(TD, leaf_theirs)
    x = values(np.random.default_rng(5))
    cast = (lambda t: t.float()) if case in FLOAT32 else (lambda t: t)
    ours.log_prob(cast(ours_T(x))).sum().backward()
    theirs.log_prob(cast(theirs_T(x))).sum().backward()
    for mine, ref in zip(leaves_ours, leaves_theirs):
        if ref.grad is None:
            assert mine.grad is None or not bool(mine.grad.abs().sum())
            continue
        _same(mine.grad, ref.grad, *TOLERANCE.get(case, (1e-8, 1e-10)))


@pytest.mark.parametrize("case", ["Normal", "Gamma", "Beta", "Dirichlet", "StudentT",
                                  "MultivariateNormal-tril", "Wishart", "Bernoulli",
                                  "Categorical", "ContinuousBernoulli", "Weibull"])
def test_entropy_gradients_match(case):
    build, _ = CASES[case]
    leaves_ours, leaves_theirs = [], []
    ours = build(D, lambda a: leaves_ours.append(ours_T(a).requires_grad_()) or leaves_ours[-1])
    theirs = build(TD, lambda a: leaves_theirs.append(theirs_T(a).requires_grad_())
                   or leaves_theirs[-1])
    ours.entropy().sum().backward()
    theirs.entropy().sum().backward()
    for mine, ref in zip(leaves_ours, leaves_theirs):
        if ref.grad is not None:
            _same(mine.grad, ref.grad, 1e-8, 1e-10)


def test_exponential_family_entropy_by_bregman_matches_closed_form():
    """ExponentialFamily.entropy (autograd through the log normaliser) equals each closed
    form, for the families that have one."""
    for case in ("Normal", "Gamma", "Exponential", "Bernoulli"):
        dist = CASES[case][0](D, ours_T)
        generic = D.ExponentialFamily.entropy(dist)
        _same(generic, theirs_T(dist.entropy().numpy()), 1e-10, 1e-10)
