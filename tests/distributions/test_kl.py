"""kl_divergence against PyTorch for every pair PyTorch registers (the same 87 pairs, the same
values, inf where the supports do not nest), plus the registry's dispatch and errors."""

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.distributions as D
from arraygrad.distributions import kl as our_kl

torch = pytest.importorskip("torch", reason="the reference is PyTorch")
TD = torch.distributions

R = np.random.default_rng(7)


def _u(low, high, *shape):
    return R.uniform(low, high, shape or (3,))


def _spd(n, batch):
    a = R.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# one parameter set per type and role ("p" or "q"), batch shape (3,)
PARAMS = {
    "Bernoulli": lambda: (_u(0.1, 0.9),), "Beta": lambda: (_u(0.5, 3), _u(0.5, 3)),
    "Binomial": lambda: (np.full(3, 6.0), _u(0.1, 0.9)), "Categorical": lambda: (
        _u(0.1, 1, 3, 4),), "Cauchy": lambda: (_u(-1, 1), _u(0.5, 2)),
    "ContinuousBernoulli": lambda: (_u(0.1, 0.9),), "Dirichlet": lambda: (_u(0.5, 3, 3, 4),),
    "Exponential": lambda: (_u(0.5, 3),), "Gamma": lambda: (_u(0.5, 3), _u(0.5, 3)),
    "Geometric": lambda: (_u(0.1, 0.9),), "Gumbel": lambda: (_u(-1, 1), _u(0.5, 2)),
    "HalfNormal": lambda: (_u(0.5, 2),), "Laplace": lambda: (_u(-1, 1), _u(0.5, 2)),
    "Normal": lambda: (_u(-1, 1), _u(0.5, 2)), "OneHotCategorical": lambda: (
        _u(0.1, 1, 3, 4),), "Pareto": lambda: (_u(0.5, 1.5), _u(2.5, 4)),
    "Poisson": lambda: (_u(0.5, 3),), "Uniform": lambda: (_u(0.1, 0.3), _u(0.6, 0.9)),
    "MultivariateNormal": lambda: (_u(-1, 1, 3, 2), _spd(2, (3,))),
    "LowRankMultivariateNormal": lambda: (_u(-1, 1, 3, 2), _u(-1, 1, 3, 2, 2), _u(0.5, 2, 3, 2)),
    "Independent": lambda: (_u(-1, 1, 3, 2), _u(0.5, 2, 3, 2)),
    "TransformedDistribution": lambda: (_u(-1, 1), _u(0.5, 2)),
    "ExponentialFamily": lambda: (np.array([4.5, 5.0, 6.0]), _spd(3, (3,))),
}

# a pair's own parameters where the generic ones would make the divergence trivially inf
OVERRIDES = {
    ("Uniform", "Beta"): {"p": lambda: (_u(0.1, 0.3), _u(0.6, 0.9))},
    ("Beta", "Uniform"): {"q": lambda: (_u(-1, -0.5), _u(1.2, 2))},
    ("Uniform", "Pareto"): {"p": lambda: (_u(1.6, 2), _u(2.5, 3))},
    ("Uniform", "Gumbel"): {"p": lambda: (_u(-1, 0), _u(0.5, 1))},
    ("Uniform", "Normal"): {"p": lambda: (_u(-1, 0), _u(0.5, 1))},
    ("Uniform", "Uniform"): {"q": lambda: (_u(-1, 0), _u(1, 2))},
    ("ContinuousBernoulli", "Uniform"): {"q": lambda: (_u(-1, -0.5), _u(1.2, 2))},
    ("Binomial", "Binomial"): {"q": lambda: (np.array([4.0, 6.0, 6.0]), _u(0.1, 0.9))},
    ("Pareto", "Pareto"): {"q": lambda: (_u(0.2, 0.4), _u(2.5, 4))},
}


def _build(lib_D, T, name, params):
    if name == "Independent":
        return lib_D.Independent(lib_D.Normal(T(params[0]), T(params[1])), 1)
    if name == "TransformedDistribution":
        return lib_D.LogNormal(T(params[0]), T(params[1]))
    if name == "ExponentialFamily":
        return lib_D.Wishart(T(params[0]), T(params[1]))
    if name == "Binomial":
        return lib_D.Binomial(T(params[0]), T(params[1]))
    if name == "Uniform":
        return lib_D.Uniform(T(params[0]), T(params[1]))
    return getattr(lib_D, name)(*[T(p) for p in params])


def _registered_pairs():
    return sorted((p.__name__, q.__name__) for p, q in TD.kl._KL_REGISTRY)


def test_the_same_pairs_are_registered():
    ours = sorted((p.__name__, q.__name__) for p, q in our_kl._KL_REGISTRY)
    assert ours == _registered_pairs()


@pytest.mark.parametrize("pair", _registered_pairs(), ids=lambda p: f"{p[0]}-{p[1]}")
def test_kl_matches_pytorch(pair):
    name_p, name_q = pair
    extra = OVERRIDES.get(pair, {})
    params_p = extra.get("p", PARAMS[name_p])()
    params_q = extra.get("q", PARAMS[name_q])()
    ours_T = lambda a: ag.tensor(np.asarray(a), dtype=ag.float64)  # noqa: E731
    theirs_T = lambda a: torch.tensor(np.asarray(a), dtype=torch.float64)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Wishart's "low df" warning
        p, q = _build(D, ours_T, name_p, params_p), _build(D, ours_T, name_q, params_q)
        tp, tq = _build(TD, theirs_T, name_p, params_p), _build(TD, theirs_T, name_q, params_q)
    got = D.kl_divergence(p, q).detach().numpy()
    want = TD.kl_divergence(tp, tq).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-10)


def test_kl_gradients_match_pytorch():
    for lib_D, T in ((D, lambda a: ag.tensor(a, dtype=ag.float64, requires_grad=True)),
                     (TD, lambda a: torch.tensor(a, dtype=torch.float64, requires_grad=True))):
        leaves = [T([0.3, -0.2]), T([1.5, 0.7]), T([0.1, 0.4]), T([0.9, 1.2])]
        kl = lib_D.kl_divergence(lib_D.Normal(leaves[0], leaves[1]),
                                 lib_D.Gamma(leaves[2].exp(), leaves[3]))
        kl = lib_D.kl_divergence(lib_D.Gamma(leaves[1], leaves[3]),
                                 lib_D.Gamma(leaves[2].exp(), leaves[3] * 2)).sum() + \
            lib_D.kl_divergence(lib_D.Normal(leaves[0], leaves[1]),
                                lib_D.Laplace(leaves[2], leaves[3])).sum()
        kl.backward()
        grads = [leaf.grad.tolist() for leaf in leaves]
        if lib_D is D:
            ours = grads
        else:
            for mine, theirs in zip(ours, grads):
                # PyTorch's trigamma (the Gamma pair's second derivative) is off by ~1e-10
                assert mine == pytest.approx(theirs, rel=1e-8, abs=1e-12)


def test_unregistered_pair_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p "
                                                  "type VonMises and q type Normal"):
        D.kl_divergence(D.VonMises(0.0, 1.0), D.Normal(0.0, 1.0))


def test_register_kl_dispatches_to_the_most_specific_pair():
    class MyNormal(D.Normal):
        pass

    assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)).item() == \
        pytest.approx(D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(1.0, 2.0)).item())

    @D.register_kl(MyNormal, D.Normal)
    def _mine(p, q):
        return ag.tensor(42.0)

    try:
        assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(1.0, 2.0)).item() == 42.0
    finally:
        del our_kl._KL_REGISTRY[MyNormal, D.Normal]
        our_kl._KL_MEMOIZE.clear()


def test_register_kl_checks_its_types():
    """TypeError for a non-Distribution type (PyTorch raises it for a non-type; its check
    lets a non-Distribution class such as int through)."""
    for bad in ((int, D.Normal), (D.Normal, "x")):
        with pytest.raises(TypeError, match="Distribution subclass"):
            D.register_kl(*bad)
    with pytest.raises(TypeError):
        TD.register_kl(TD.Normal, "x")


def test_ambiguous_registration_warns():
    class A(D.Normal):
        pass

    class B(D.Normal):
        pass

    try:
        D.register_kl(A, D.Normal)(lambda p, q: ag.tensor(1.0))
        D.register_kl(D.Normal, B)(lambda p, q: ag.tensor(2.0))
        with pytest.warns(RuntimeWarning, match="Ambiguous kl_divergence"):
            D.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))
    finally:
        our_kl._KL_REGISTRY.pop((A, D.Normal), None)
        our_kl._KL_REGISTRY.pop((D.Normal, B), None)
        our_kl._KL_MEMOIZE.clear()
    assert math.isfinite(D.kl_divergence(D.Normal(0.0, 1.0), D.Normal(0.0, 2.0)).item())
