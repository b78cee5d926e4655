"""Samples are drawn from the right law: Kolmogorov-Smirnov tests against the (PyTorch-checked)
cdf for the univariate continuous distributions, chi-squared tests against the pmf for the
discrete ones, and sample means and variances within a few standard errors for every one. The
seeds are fixed, so the tests are deterministic; the bounds are loose enough that a correct
sampler passes for any seed, and tight enough that a wrong scale or shape fails."""

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.distributions as D

from tests.distributions.cases import CASES

scipy_stats = pytest.importorskip("scipy.stats", reason="the KS test is scipy's")

N = 4000


def _dist(case):
    build, _ = CASES[case]
    return build(D, lambda a: ag.tensor(np.asarray(a), dtype=ag.float64))


def _draw(case, n=N, seed=0):
    ag.manual_seed(seed)
    dist = _dist(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dist, dist.sample((n,))


CONTINUOUS_WITH_CDF = ["Normal", "Uniform", "Exponential", "Laplace", "Cauchy", "Gamma", "Chi2",
                       "LogNormal", "HalfNormal", "HalfCauchy", "Gumbel", "Pareto", "Weibull",
                       "Kumaraswamy", "ContinuousBernoulli", "InverseGamma",
                       "GeneralizedPareto", "TransformedDistribution"]


@pytest.mark.parametrize("case", CONTINUOUS_WITH_CDF)
def test_ks_against_the_cdf(case):
    dist, x = _draw(case)
    assert tuple(x.shape) == (N,) + tuple(dist.batch_shape)
    assert not x.requires_grad
    u = dist.cdf(x).numpy().reshape(N, -1)
    for column in u.T:  # the cdf of a correct sample is uniform
        assert scipy_stats.kstest(column, "uniform").pvalue > 1e-4, case


SCIPY = {  # the univariate laws without a cdf of their own, by scipy
    "Beta": lambda d: scipy_stats.beta(d.concentration1.numpy(), d.concentration0.numpy()),
    "StudentT": lambda d: scipy_stats.t(d.df.numpy(), d.loc.numpy(), d.scale.numpy()),
    "FisherSnedecor": lambda d: scipy_stats.f(d.df1.numpy(), d.df2.numpy()),
    "VonMises": lambda d: scipy_stats.vonmises(d.concentration.numpy(), d.loc.numpy()),
}


@pytest.mark.parametrize("case", sorted(SCIPY))
def test_ks_against_scipy(case):
    dist, x = _draw(case)
    law = SCIPY[case](dist)
    u = law.cdf(x.numpy())
    if case == "VonMises":  # scipy's von Mises cdf is on (loc - pi, loc + pi]
        u = scipy_stats.vonmises(dist.concentration.numpy()).cdf(
            (x.numpy() - dist.loc.numpy() + math.pi) % (2 * math.pi) - math.pi)
    for column in u.reshape(N, -1).T:
        assert scipy_stats.kstest(column, "uniform").pvalue > 1e-4, case


DISCRETE = ["Bernoulli", "Categorical", "Binomial", "Binomial-logits", "Geometric", "Poisson",
            "NegativeBinomial"]


@pytest.mark.parametrize("case", DISCRETE)
def test_chi_squared_against_the_pmf(case):
    dist, x = _draw(case)
    dist._validate_args = False  # 0..max over every batch element, some beyond a support
    x = x.numpy().reshape(N, -1)
    batch = int(np.prod(tuple(dist.batch_shape))) if dist.batch_shape else 1
    for b in range(batch):
        top = int(x[:, b].max())
        k = np.arange(top + 1, dtype=np.float64)
        # the pmf of batch element b at 0..top
        values = ag.tensor(np.broadcast_to(k[:, None], (top + 1, batch)).copy()
                           if dist.batch_shape else k, dtype=ag.float64)
        pmf = dist.log_prob(values).exp().numpy().reshape(top + 1, -1)[:, b]
        counts = np.bincount(x[:, b].astype(int), minlength=top + 1)
        expected = pmf * N
        keep = expected >= 5  # pool the sparse tail
        observed = np.append(counts[keep], counts[~keep].sum())
        expected = np.append(expected[keep], N - expected[keep].sum())
        if expected[-1] < 5:
            observed, expected = observed[:-2].tolist() + [observed[-2:].sum()], \
                expected[:-2].tolist() + [expected[-2:].sum()]
        assert scipy_stats.chisquare(observed, expected).pvalue > 1e-4, (case, b)


MOMENTS = sorted(c for c in CASES if c not in ("Cauchy", "HalfCauchy", "VonMises", "Normal-scalar",
                                              "Categorical", "Categorical-logits",
                                              "LKJCholesky", "Wishart", "Wishart-tril",
                                              "GeneralizedPareto"))


@pytest.mark.parametrize("case", MOMENTS)
def test_sample_mean_within_standard_errors(case):
    dist, x = _draw(case, n=8000, seed=1)
    try:
        mean, var = dist.mean.numpy(), dist.variance.numpy()
    except NotImplementedError:
        pytest.skip(f"{case} has no closed-form moments")
    got = x.numpy().mean(0)
    finite = np.isfinite(mean) & np.isfinite(var)
    error = np.sqrt(np.where(finite, var, 1.0) / 8000)
    assert np.all(np.abs(got - mean)[finite] <= 6 * error[finite] + 1e-9), case


def test_wishart_and_lkj_samples():
    dist, x = _draw("Wishart", n=3000, seed=2)
    assert bool(D.constraints.positive_definite.check(x).all())
    error = np.sqrt(dist.variance.numpy() / 3000)
    assert np.all(np.abs(x.numpy().mean(0) - dist.mean.numpy()) <= 6 * error)
    dist, x = _draw("LKJCholesky", n=2000, seed=3)
    assert bool(D.constraints.corr_cholesky.check(x).all())
    # LKJ(eta) on 3x3: each off-diagonal correlation ~ 2 Beta(b, b) - 1, b = eta + 1/2
    corr = (x @ x.mT).numpy()[:, 1, 0]
    b = 1.7 + 0.5
    assert scipy_stats.kstest((corr + 1) / 2, scipy_stats.beta(b, b).cdf).pvalue > 1e-4


def test_mixture_and_multivariate_normal_covariance():
    dist, x = _draw("MultivariateNormal-cov", n=20000, seed=4)
    sample_cov = np.einsum("nbi,nbj->bij", x.numpy() - x.numpy().mean(0),
                           x.numpy() - x.numpy().mean(0)) / 20000
    np.testing.assert_allclose(sample_cov, dist.covariance_matrix.numpy(), rtol=0.08, atol=0.1)
    dist, x = _draw("LowRankMultivariateNormal", n=20000, seed=5)
    sample_cov = np.einsum("nbi,nbj->bij", x.numpy() - x.numpy().mean(0),
                           x.numpy() - x.numpy().mean(0)) / 20000
    np.testing.assert_allclose(sample_cov, dist.covariance_matrix.numpy(), rtol=0.08, atol=0.1)


def test_samples_follow_the_seed():
    a = _draw("Gamma", n=10, seed=9)[1]
    b = _draw("Gamma", n=10, seed=9)[1]
    assert a.tolist() == b.tolist()
    assert _draw("Gamma", n=10, seed=10)[1].tolist() != a.tolist()


def test_sample_n_warns_and_samples():
    dist = D.Normal(0.0, 1.0)
    with pytest.warns(UserWarning, match="sample_n will be deprecated"):
        assert tuple(dist.sample_n(3).shape) == (3,)


def test_relaxed_and_logistic_normal_samples():
    # RelaxedBernoulli: sigmoid(T logit(x) - logits) is uniform
    dist, x = _draw("RelaxedBernoulli")
    y = np.log(x.numpy()) - np.log1p(-x.numpy())
    u = 1 / (1 + np.exp(-(dist.temperature.numpy() * y - dist.logits.numpy())))
    for column in u.T:
        assert scipy_stats.kstest(column, "uniform").pvalue > 1e-4
    # RelaxedOneHotCategorical: the argmax is Categorical(probs) (Gumbel-max, any temperature)
    dist, x = _draw("RelaxedOneHotCategorical")
    picks = x.numpy().argmax(-1)
    for b in range(2):
        counts = np.bincount(picks[:, b], minlength=4)
        assert scipy_stats.chisquare(counts, dist.probs.numpy()[b] * N).pvalue > 1e-4
    # LogisticNormal: the inverse stick-breaking of a sample is Normal(loc, scale)
    dist, x = _draw("LogisticNormal")
    z = D.transforms.StickBreakingTransform().inv(x).numpy()
    loc, scale = dist.loc.numpy(), dist.scale.numpy()
    for index in np.ndindex(*z.shape[1:]):
        column = (z[(slice(None),) + index] - loc[index]) / scale[index]
        assert scipy_stats.kstest(column, "norm").pvalue > 1e-4
