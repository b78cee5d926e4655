"""The distributions under test, built the same way in arraygrad and in PyTorch from the same
float64 parameters: ``CASES`` maps a case id to ``(build(lib, T), values(rng))`` where ``lib``
is ``arraygrad`` or ``torch``, ``T`` makes a float64 tensor of ``lib`` from a NumPy array, and
``values`` draws points of the support (a NumPy array) to evaluate densities at."""

from __future__ import annotations

import numpy as np

RNG = np.random.default_rng(1234)


def _pos(*shape, low=0.5, high=3.0):
    return RNG.uniform(low, high, shape)


def _real(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape)


def _simplex(*shape):
    x = RNG.uniform(0.1, 1.0, shape)
    return x / x.sum(-1, keepdims=True)


def _spd(n, batch=()):
    a = RNG.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


P = {name: value for name, value in {
    "loc": _real(3), "scale": _pos(3), "low": _real(3, low=-2, high=0), "high": _pos(3),
    "rate": _pos(3), "conc": _pos(3), "conc0": _pos(3), "probs": RNG.uniform(0.1, 0.9, 3),
    "logits": _real(3), "cat_probs": _simplex(2, 4), "cat_logits": _real(2, 4),
    "dir_conc": _pos(2, 4), "df": _pos(3, low=2.5, high=6.0), "count": np.array([3., 5., 8.]),
    "mvn_loc": _real(2, 3), "cov": _spd(3, (2,)), "cov_factor": _real(2, 3, 2),
    "cov_diag": _pos(2, 3), "wishart_df": np.array([4.5, 6.0]), "temp": np.array(0.7),
    "mix_logits": _real(2, 3), "mix_loc": _real(2, 3), "mix_scale": _pos(2, 3),
    "gp_conc": np.array([-0.3, 0.0, 0.4]),
}.items()}


def _v_real(shape):
    return lambda rng: rng.uniform(-3, 3, (5,) + shape)


def _v_pos(shape, high=4.0):
    return lambda rng: rng.uniform(0.05, high, (5,) + shape)


def _v_unit(shape):
    return lambda rng: rng.uniform(0.02, 0.98, (5,) + shape)


def _v_int(shape, high):
    return lambda rng: rng.integers(0, high + 1, (5,) + shape).astype(np.float64)


def _v_simplex(shape):
    return lambda rng: (lambda x: x / x.sum(-1, keepdims=True))(rng.uniform(0.05, 1, (5,) + shape))


def _v_onehot(shape):
    k = shape[-1]
    return lambda rng: np.eye(k)[rng.integers(0, k, (5,) + shape[:-1])]


def _v_counts(batch, k, total):
    def draw(rng):
        idx = rng.integers(0, k, (5,) + batch + (total,))
        return np.stack([(idx == i).sum(-1) for i in range(k)], -1).astype(np.float64)
    return draw


def _v_spd(n, batch):
    def draw(rng):
        a = rng.normal(size=(5,) + batch + (n, n))
        return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    return draw


def _v_corr_chol(n):
    def draw(rng):
        a = rng.normal(size=(5, n, n))
        c = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
        d = np.sqrt(np.einsum("...ii->...i", c))
        return np.linalg.cholesky(c / d[..., :, None] / d[..., None, :])
    return draw


def _v_gp(rng):
    # inside [loc, loc - scale/xi] for xi < 0, else [loc, inf)
    z = rng.uniform(0.01, 0.9, (5, 3))
    negative = P["gp_conc"] < 0
    upper = np.where(negative, -P["scale"] / np.where(negative, P["gp_conc"], -1.0), 4.0)
    return P["loc"] + z * upper


CASES = {
    "Normal": (lambda D, T: D.Normal(T(P["loc"]), T(P["scale"])), _v_real((3,))),
    "Normal-scalar": (lambda D, T: D.Normal(0.5, 2.0), _v_real(())),
    "Uniform": (lambda D, T: D.Uniform(T(P["low"]), T(P["high"])),
                lambda rng: rng.uniform(0, 1, (5, 3)) * (P["high"] - P["low"]) + P["low"]),
    "Exponential": (lambda D, T: D.Exponential(T(P["rate"])), _v_pos((3,))),
    "Laplace": (lambda D, T: D.Laplace(T(P["loc"]), T(P["scale"])), _v_real((3,))),
    "Cauchy": (lambda D, T: D.Cauchy(T(P["loc"]), T(P["scale"])), _v_real((3,))),
    "Gamma": (lambda D, T: D.Gamma(T(P["conc"]), T(P["rate"])), _v_pos((3,))),
    "Chi2": (lambda D, T: D.Chi2(T(P["df"])), _v_pos((3,), 8.0)),
    "Beta": (lambda D, T: D.Beta(T(P["conc"]), T(P["conc0"])), _v_unit((3,))),
    "Dirichlet": (lambda D, T: D.Dirichlet(T(P["dir_conc"])), _v_simplex((2, 4))),
    "Bernoulli": (lambda D, T: D.Bernoulli(T(P["probs"])), _v_int((3,), 1)),
    "Bernoulli-logits": (lambda D, T: D.Bernoulli(logits=T(P["logits"])), _v_int((3,), 1)),
    "Categorical": (lambda D, T: D.Categorical(T(P["cat_probs"])), _v_int((2,), 3)),
    "Categorical-logits": (lambda D, T: D.Categorical(logits=T(P["cat_logits"])),
                           _v_int((2,), 3)),
    "OneHotCategorical": (lambda D, T: D.OneHotCategorical(T(P["cat_probs"])),
                          _v_onehot((2, 4))),
    "Multinomial": (lambda D, T: D.Multinomial(6, T(P["cat_probs"])), _v_counts((2,), 4, 6)),
    "Binomial": (lambda D, T: D.Binomial(T(P["count"]), T(P["probs"])), _v_int((3,), 3)),
    "Binomial-logits": (lambda D, T: D.Binomial(5, logits=T(P["logits"])), _v_int((3,), 5)),
    "NegativeBinomial": (lambda D, T: D.NegativeBinomial(T(P["count"]), T(P["probs"])),
                         _v_int((3,), 12)),
    "Geometric": (lambda D, T: D.Geometric(T(P["probs"])), _v_int((3,), 9)),
    "Poisson": (lambda D, T: D.Poisson(T(P["rate"])), _v_int((3,), 9)),
    "LogNormal": (lambda D, T: D.LogNormal(T(P["loc"]), T(P["scale"])), _v_pos((3,))),
    "HalfNormal": (lambda D, T: D.HalfNormal(T(P["scale"])), _v_pos((3,))),
    "HalfCauchy": (lambda D, T: D.HalfCauchy(T(P["scale"])), _v_pos((3,))),
    "Gumbel": (lambda D, T: D.Gumbel(T(P["loc"]), T(P["scale"])), _v_real((3,))),
    "Pareto": (lambda D, T: D.Pareto(T(P["scale"]), T(P["df"])),
               lambda rng: P["scale"] + rng.uniform(0.01, 3, (5, 3))),
    "Weibull": (lambda D, T: D.Weibull(T(P["scale"]), T(P["conc"])), _v_pos((3,))),
    "Kumaraswamy": (lambda D, T: D.Kumaraswamy(T(P["conc"]), T(P["conc0"])), _v_unit((3,))),
    "StudentT": (lambda D, T: D.StudentT(T(P["df"]), T(P["loc"]), T(P["scale"])),
                 _v_real((3,))),
    "FisherSnedecor": (lambda D, T: D.FisherSnedecor(T(P["df"]), T(P["df"] + 2.5)),
                       _v_pos((3,))),
    "VonMises": (lambda D, T: D.VonMises(T(P["loc"]), T(P["conc"])), _v_real((3,))),
    "ContinuousBernoulli": (lambda D, T: D.ContinuousBernoulli(
        T(np.array([0.2, 0.4995, 0.8]))), _v_unit((3,))),
    "LogisticNormal": (lambda D, T: D.LogisticNormal(T(P["mvn_loc"]), T(P["mix_scale"])),
                       _v_simplex((2, 4))),
    "RelaxedBernoulli": (lambda D, T: D.RelaxedBernoulli(T(P["temp"]), T(P["probs"])),
                         _v_unit((3,))),
    "RelaxedOneHotCategorical": (lambda D, T: D.RelaxedOneHotCategorical(
        T(P["temp"]), T(P["cat_probs"])), _v_simplex((2, 4))),
    "InverseGamma": (lambda D, T: D.InverseGamma(T(P["conc"] + 2), T(P["rate"])),
                     _v_pos((3,))),
    "GeneralizedPareto": (lambda D, T: D.GeneralizedPareto(T(P["loc"]), T(P["scale"]),
                                                           T(P["gp_conc"])), _v_gp),
    "MultivariateNormal-cov": (lambda D, T: D.MultivariateNormal(T(P["mvn_loc"]),
                                                                 T(P["cov"])), _v_real((2, 3))),
    "MultivariateNormal-tril": (lambda D, T: D.MultivariateNormal(
        T(P["mvn_loc"]), scale_tril=T(np.linalg.cholesky(P["cov"]))), _v_real((2, 3))),
    "MultivariateNormal-precision": (lambda D, T: D.MultivariateNormal(
        T(P["mvn_loc"]), precision_matrix=T(np.linalg.inv(P["cov"]))), _v_real((2, 3))),
    "LowRankMultivariateNormal": (lambda D, T: D.LowRankMultivariateNormal(
        T(P["mvn_loc"]), T(P["cov_factor"]), T(P["cov_diag"])), _v_real((2, 3))),
    "Wishart": (lambda D, T: D.Wishart(T(P["wishart_df"]), T(P["cov"])), _v_spd(3, (2,))),
    "Wishart-tril": (lambda D, T: D.Wishart(T(P["wishart_df"]),
                                            scale_tril=T(np.linalg.cholesky(P["cov"]))),
                     _v_spd(3, (2,))),
    "LKJCholesky": (lambda D, T: D.LKJCholesky(3, T(np.array(1.7))), _v_corr_chol(3)),
    "Independent": (lambda D, T: D.Independent(D.Normal(T(P["mvn_loc"]), T(P["mix_scale"])), 1),
                    _v_real((2, 3))),
    "MixtureSameFamily": (lambda D, T: D.MixtureSameFamily(
        D.Categorical(logits=T(P["mix_logits"])), D.Normal(T(P["mix_loc"]), T(P["mix_scale"]))),
        _v_real((2,))),
    "TransformedDistribution": (lambda D, T: D.TransformedDistribution(
        D.Normal(T(P["loc"]), T(P["scale"])),
        [D.transforms.AffineTransform(1.0, 2.0), D.transforms.ExpTransform()]), _v_pos((3,))),
}
"""Case id -> (build(distributions module, T), values(rng))."""

FLOAT32 = {"GeneralizedPareto"}
"""Cases compared in float32: PyTorch 2.13's GeneralizedPareto.log_prob fails in float64
(``isclose`` against a float32 zero: "Double did not match Float")."""
