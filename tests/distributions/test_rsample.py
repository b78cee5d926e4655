"""Reparameterised sampling: ``rsample`` carries gradients to the parameters, and they are the
pathwise derivatives -- at fixed noise, ``dx/dtheta = -(dF/dtheta)(x) / f(x)`` (F the cdf, f the
density), which is checked by finite differences of the cdf for every univariate family with
a cdf; Gamma's implicit gradient against PyTorch's ``_standard_gamma_grad`` and SciPy; the
Dirichlet's against the exact Beta-marginal derivative; and the gradient of an expectation
estimated from rsample against its closed form (unbiasedness)."""

import math

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.distributions as D

scipy_special = pytest.importorskip("scipy.special", reason="the exact derivatives use scipy")


def _leaf(values):
    return ag.tensor(values, dtype=ag.float64, requires_grad=True)


# name -> (build(*leaves), parameter values); each parameter is checked in turn
PATHWISE = {
    "Normal": (lambda a, b: D.Normal(a, b), ([0.3, -1.0], [0.7, 2.0])),
    "Laplace": (lambda a, b: D.Laplace(a, b), ([0.3, -1.0], [0.7, 2.0])),
    "Cauchy": (lambda a, b: D.Cauchy(a, b), ([0.3, -1.0], [0.7, 2.0])),
    "Uniform": (lambda a, b: D.Uniform(a, b), ([0.3, -1.0], [0.9, 2.0])),
    "Exponential": (lambda a: D.Exponential(a), ([0.7, 2.0],)),
    "Gamma": (lambda a, b: D.Gamma(a, b), ([0.4, 3.0], [0.7, 2.0])),
    "LogNormal": (lambda a, b: D.LogNormal(a, b), ([0.3, -1.0], [0.7, 1.2])),
    "HalfNormal": (lambda a: D.HalfNormal(a), ([0.7, 2.0],)),
    "HalfCauchy": (lambda a: D.HalfCauchy(a), ([0.7, 2.0],)),
    "Weibull": (lambda a, b: D.Weibull(a, b), ([0.7, 2.0], [1.5, 0.8])),
    "Kumaraswamy": (lambda a, b: D.Kumaraswamy(a, b), ([0.7, 2.0], [1.5, 0.8])),
    "InverseGamma": (lambda a, b: D.InverseGamma(a, b), ([2.5, 3.0], [0.7, 2.0])),
    "ContinuousBernoulli": (lambda a: D.ContinuousBernoulli(a), ([0.2, 0.7],)),
    "GeneralizedPareto": (lambda a, b, c: D.GeneralizedPareto(a, b, c),
                          ([0.3, -1.0], [0.7, 2.0], [-0.2, 0.3])),
}


@pytest.mark.parametrize("name", sorted(PATHWISE))
def test_rsample_gradient_is_the_pathwise_derivative(name):
    build, params = PATHWISE[name]
    ag.manual_seed(3)
    leaves = [_leaf(p) for p in params]
    dist = build(*leaves)
    x = dist.rsample((6,))
    grads = ag.autograd.grad(x.sum(), leaves)
    x0 = x.detach()
    density = dist.log_prob(x0).exp().detach()
    h = 1e-6
    for i, p in enumerate(params):
        for j in range(len(p)):
            moved = []
            for step in (h, -h):
                values = [np.array(v, dtype=np.float64) for v in params]
                values[i][j] += step
                with ag.no_grad():
                    moved.append(build(*[ag.tensor(v, dtype=ag.float64) for v in values])
                                 .cdf(x0)[:, j])
            dcdf = (moved[0] - moved[1]) / (2 * h)
            implicit = -dcdf / density[:, j]
            np.testing.assert_allclose(grads[i].numpy()[j], implicit.sum().item(), rtol=1e-5,
                                       atol=1e-7, err_msg=f"{name} parameter {i}[{j}]")


def test_gamma_implicit_gradient_matches_pytorch_and_scipy():
    torch = pytest.importorskip("torch", reason="compared with PyTorch's _standard_gamma_grad")
    alpha = _leaf([0.05, 0.5, 1.0, 2.5, 10.0, 150.0])
    ag.manual_seed(0)
    x = ag._standard_gamma(alpha)
    (grad,) = ag.autograd.grad(x.sum(), [alpha])
    theirs = torch._standard_gamma_grad(torch.tensor(alpha.detach().numpy()),
                                        torch.tensor(x.detach().numpy())).numpy()
    # PyTorch's is an approximation (~1e-4 relative): ours is the exact derivative
    np.testing.assert_allclose(grad.numpy(), theirs, rtol=2e-3)
    a, v, h = alpha.detach().numpy(), x.detach().numpy(), 1e-6
    dcdf = (scipy_special.gammainc(a + h, v) - scipy_special.gammainc(a - h, v)) / (2 * h)
    density = np.exp((a - 1) * np.log(v) - v - scipy_special.gammaln(a))
    np.testing.assert_allclose(grad.numpy(), -dcdf / density, rtol=1e-6)


def test_dirichlet_implicit_gradient_is_the_exact_beta_marginal_derivative():
    torch = pytest.importorskip("torch", reason="compared with PyTorch's _dirichlet_grad")
    x = ag.tensor([0.3, 0.4, 0.9, 0.05], dtype=ag.float64)
    alpha = ag.tensor([0.5, 2.0, 3.0, 0.2], dtype=ag.float64)
    total = ag.tensor([1.2, 5.0, 3.5, 4.0], dtype=ag.float64)
    got = ag._dirichlet_grad(x, alpha, total).numpy()
    a, t, v, h = alpha.numpy(), total.numpy(), x.numpy(), 1e-6
    b = t - a  # the rest of the concentrations, held fixed
    dcdf = (scipy_special.betainc(a + h, b, v) - scipy_special.betainc(a - h, b, v)) / (2 * h)
    density = np.exp((a - 1) * np.log(v) + (b - 1) * np.log1p(-v) - scipy_special.betaln(a, b))
    np.testing.assert_allclose(got, -dcdf / density / (1 - v), rtol=1e-6)
    # PyTorch's _dirichlet_grad approximates the same quantity
    theirs = torch._dirichlet_grad(*(torch.tensor(t_.numpy()) for t_ in (x, alpha, total)))
    np.testing.assert_allclose(got, theirs.numpy(), rtol=2e-3)


# name -> (build(leaf), parameter values, E[f(x)] in terms of the parameter, f)
EXPECTATIONS = {
    "Gamma-mean": (lambda a: D.Gamma(a, 2.0), [0.6, 3.0], lambda a: a / 2.0, lambda x: x),
    "Beta-mean": (lambda a: D.Beta(a, 1.5), [0.6, 3.0], lambda a: a / (a + 1.5), lambda x: x),
    "Dirichlet-mean": (lambda a: D.Dirichlet(ag.stack([a, ag.full_like(a, 2.0)], -1)),
                       [0.6, 3.0], lambda a: a / (a + 2.0), lambda x: x[..., 0]),
    "Chi2-second-moment": (lambda a: D.Chi2(a), [2.5, 4.0], lambda a: a * a + 2 * a,
                           lambda x: x * x),
    "StudentT-variance": (lambda a: D.StudentT(a), [5.0, 7.0], lambda a: a / (a - 2),
                          lambda x: x * x),
    "FisherSnedecor-mean": (lambda a: D.FisherSnedecor(3.0, a), [5.0, 7.0],
                            lambda a: a / (a - 2), lambda x: x),
    "Wishart-mean": (lambda a: D.Wishart(a, ag.eye(2, dtype=ag.float64).expand(2, 2, 2)),
                     [3.0, 4.5], lambda a: a, lambda x: x[..., 0, 0]),
    "RelaxedOneHotCategorical": (lambda a: D.RelaxedOneHotCategorical(
        0.5, logits=ag.stack([a, ag.zeros_like(a)], -1)), [0.0, 1.0], None, lambda x: x[..., 0]),
}


@pytest.mark.parametrize("name", sorted(EXPECTATIONS))
def test_rsample_gradients_are_unbiased(name):
    """The mean of the pathwise gradients over many samples estimates the gradient of the
    expectation (here known in closed form)."""
    build, values, expectation, f = EXPECTATIONS[name]
    ag.manual_seed(11)
    leaf = _leaf(values)
    n = 20000
    samples = build(leaf).rsample((n,))
    (grad,) = ag.autograd.grad(f(samples).sum() / n, [leaf])
    if expectation is None:  # only that gradients flow and are finite
        assert np.isfinite(grad.numpy()).all() and np.abs(grad.numpy()).sum() > 0
        return
    point = ag.tensor(values, dtype=ag.float64, requires_grad=True)
    (want,) = ag.autograd.grad(expectation(point).sum(), [point])
    # the estimator's spread: bound by 6 standard errors from the per-sample gradients
    per_sample = []
    for k in range(8):
        chunk = build(leaf).rsample((n // 8,))
        per_sample.append(ag.autograd.grad(f(chunk).sum() / (n // 8), [leaf])[0].numpy())
    spread = np.std(per_sample, axis=0) / math.sqrt(8)
    assert np.all(np.abs(grad.numpy() - want.numpy()) <= 6 * spread + 1e-3), (grad, want)


def test_fixed_noise_path_matches_pytorchs_formula():
    """Normal/MultivariateNormal rsample is ``loc + scale @ eps``: the eps recovered from our
    sample, pushed through PyTorch's formula, gives the same sample and gradients."""
    torch = pytest.importorskip("torch", reason="compared with PyTorch's rsample formula")
    ag.manual_seed(5)
    loc, tril = _leaf([0.5, -1.0]), _leaf([[1.0, 0.0], [0.3, 0.8]])
    x = D.MultivariateNormal(loc, scale_tril=tril).rsample((4,))
    eps = np.linalg.solve(tril.detach().numpy(), (x.detach().numpy() - loc.detach().numpy()).T).T
    x.sum().backward()
    tloc = torch.tensor(loc.detach().numpy(), requires_grad=True)
    ttril = torch.tensor(tril.detach().numpy(), requires_grad=True)
    tx = tloc + torch.matmul(ttril, torch.tensor(eps).unsqueeze(-1)).squeeze(-1)
    tx.sum().backward()
    np.testing.assert_allclose(x.detach().numpy(), tx.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(loc.grad.numpy(), tloc.grad.numpy())
    np.testing.assert_allclose(tril.grad.numpy(), ttril.grad.numpy(), rtol=1e-10)


def test_sample_has_no_graph_and_rsample_refuses_where_pytorch_does():
    loc = _leaf([0.0, 1.0])
    assert not D.Normal(loc, 1.0).sample().requires_grad
    assert D.Normal(loc, 1.0).rsample().requires_grad
    for dist in (D.Bernoulli(0.3), D.Poisson(2.0), D.VonMises(0.0, 1.0),
                 D.MixtureSameFamily(D.Categorical(ag.ones(2)), D.Normal(ag.zeros(2), 1.0))):
        assert not dist.has_rsample
        with pytest.raises(NotImplementedError):
            dist.rsample()
