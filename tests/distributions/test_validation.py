"""Argument and sample validation as PyTorch: invalid parameters and out-of-support values
raise ValueError (in both libraries), ``validate_args=False`` and
``Distribution.set_default_validate_args`` turn it off, and constructor misuse raises
PyTorch's errors."""

import math

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.distributions as D

torch = pytest.importorskip("torch", reason="the reference is PyTorch")
TD = torch.distributions


@pytest.fixture(autouse=True)
def _validation_on():
    """Both libraries validate by default (``__debug__``); importing ``torch.compile``'s Dynamo
    turns PyTorch's default off for the rest of the process (another test compiles), so each
    test here sets it, and puts back what it found."""
    before = (TD.Distribution._validate_args, D.Distribution._validate_args)
    TD.Distribution.set_default_validate_args(True)
    D.Distribution.set_default_validate_args(True)
    yield
    TD.Distribution.set_default_validate_args(before[0])
    D.Distribution.set_default_validate_args(before[1])


def _T(lib):
    if lib is D:
        return lambda v: ag.tensor(v, dtype=ag.float64)
    return lambda v: torch.tensor(v, dtype=torch.float64)


BAD_PARAMETERS = [
    ("Normal", lambda M, T: M.Normal(T([0.0]), T([-1.0]))),
    ("Normal-nan", lambda M, T: M.Normal(T([math.nan]), T([1.0]))),
    ("Gamma", lambda M, T: M.Gamma(T([0.0]), T([1.0]))),
    ("Beta", lambda M, T: M.Beta(T([1.0]), T([-2.0]))),
    ("Dirichlet", lambda M, T: M.Dirichlet(T([1.0, -2.0]))),
    ("Bernoulli", lambda M, T: M.Bernoulli(T([1.5]))),
    ("Categorical", lambda M, T: M.Categorical(T([0.5, -0.5]))),
    ("Binomial", lambda M, T: M.Binomial(T([2.5]), T([0.5]))),
    ("Poisson", lambda M, T: M.Poisson(T([-1.0]))),
    ("Exponential", lambda M, T: M.Exponential(T([0.0]))),
    ("Uniform", lambda M, T: M.Uniform(T([1.0]), T([0.0]))),
    ("Geometric", lambda M, T: M.Geometric(T([0.0]))),
    ("StudentT", lambda M, T: M.StudentT(T([-1.0]))),
    ("MultivariateNormal", lambda M, T: M.MultivariateNormal(T([0.0, 0.0]),
                                                             T([[1.0, 2.0], [2.0, 1.0]]))),
    ("Wishart", lambda M, T: M.Wishart(T(1.0), T([[1.0, 0.0], [0.0, 1.0]]))),
    ("LKJCholesky", lambda M, T: M.LKJCholesky(3, T(-1.0))),
    ("VonMises", lambda M, T: M.VonMises(T([0.0]), T([-1.0]))),
]


@pytest.mark.parametrize("name,build", BAD_PARAMETERS, ids=[b[0] for b in BAD_PARAMETERS])
def test_invalid_parameters_raise_value_error(name, build):
    with pytest.raises(ValueError) as theirs:
        build(TD, _T(TD))
    with pytest.raises(ValueError) as ours:
        build(D, _T(D))
    # the same message where PyTorch's is the generic constraint message
    if str(theirs.value).startswith("Expected parameter"):
        assert str(ours.value).startswith("Expected parameter")
        assert str(ours.value).split(" of distribution")[0] == \
            str(theirs.value).split(" of distribution")[0].replace("torch.", "arraygrad.")


OUT_OF_SUPPORT = [
    ("Normal", lambda M, T: M.Normal(T([0.0]), T([1.0])), [math.nan]),
    ("Exponential", lambda M, T: M.Exponential(T([1.0])), [-1.0]),
    ("Gamma", lambda M, T: M.Gamma(T([1.0]), T([1.0])), [-1.0]),
    ("Beta", lambda M, T: M.Beta(T([1.0]), T([1.0])), [1.5]),
    ("Bernoulli", lambda M, T: M.Bernoulli(T([0.5])), [0.5]),
    ("Categorical", lambda M, T: M.Categorical(T([0.5, 0.5])), [2.0]),
    ("Poisson", lambda M, T: M.Poisson(T([1.0])), [1.5]),
    ("Uniform", lambda M, T: M.Uniform(T([0.0]), T([1.0])), [2.0]),
    ("Dirichlet", lambda M, T: M.Dirichlet(T([1.0, 1.0])), [0.7, 0.7]),
    ("Binomial", lambda M, T: M.Binomial(T([3.0]), T([0.5])), [4.0]),
]


@pytest.mark.parametrize("name,build,value", OUT_OF_SUPPORT, ids=[b[0] for b in OUT_OF_SUPPORT])
def test_log_prob_outside_the_support_raises_value_error(name, build, value):
    for lib in (TD, D):
        dist = build(lib, _T(lib))
        with pytest.raises(ValueError, match="Expected value argument"):
            dist.log_prob(_T(lib)(value))
    # validation off: a value (NaN or -inf where PyTorch gives it), no error
    if name != "Categorical":  # an index out of range fails in the gather, as PyTorch's
        try:
            D.Distribution.set_default_validate_args(False)
            build(D, _T(D)).log_prob(_T(D)(value))
        finally:
            D.Distribution.set_default_validate_args(True)


def test_shape_mismatch_raises_as_pytorch():
    for lib in (TD, D):
        with pytest.raises(ValueError, match="The right-most size of value must match "
                                             "event_shape"):
            lib.MultivariateNormal(_T(lib)([0.0, 0.0]), _T(lib)(np.eye(2))).log_prob(
                _T(lib)([0.0, 0.0, 0.0]))
        with pytest.raises(ValueError, match="Value is not broadcastable"):
            lib.Normal(_T(lib)([0.0, 1.0]), 1.0).log_prob(_T(lib)([0.0, 0.0, 0.0]))
        with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
            lib.Normal(_T(lib)([0.0]), 1.0).log_prob(0.5)


def test_validate_args_off_and_default():
    D.Normal(ag.tensor([0.0]), ag.tensor([-1.0]), validate_args=False)  # no error
    assert D.Distribution._validate_args is True  # __debug__
    try:
        D.Distribution.set_default_validate_args(False)
        D.Normal(ag.tensor([0.0]), ag.tensor([-1.0]))
        D.Exponential(ag.tensor([1.0])).log_prob(ag.tensor([-1.0]))
    finally:
        D.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        D.Normal(ag.tensor([0.0]), ag.tensor([-1.0]))
    with pytest.raises(ValueError):
        D.Distribution.set_default_validate_args("yes")


CONSTRUCTOR_ERRORS = [
    ("probs-and-logits", lambda M, T: M.Bernoulli(T([0.5]), T([0.0])), ValueError),
    ("neither", lambda M, T: M.Categorical(), ValueError),
    ("categorical-scalar", lambda M, T: M.Categorical(T(0.5)), ValueError),
    ("dirichlet-scalar", lambda M, T: M.Dirichlet(T(0.5)), ValueError),
    ("mvn-two", lambda M, T: M.MultivariateNormal(T([0.0]), T([[1.0]]), scale_tril=T([[1.0]])),
     ValueError),
    ("mvn-scalar-loc", lambda M, T: M.MultivariateNormal(T(0.0), T([[1.0]])), ValueError),
    ("lowrank-shape", lambda M, T: M.LowRankMultivariateNormal(T([0.0, 0.0]), T([[1.0]]),
                                                               T([1.0, 1.0])), ValueError),
    ("independent-ndims", lambda M, T: M.Independent(M.Normal(T([0.0]), T([1.0])), 2),
     ValueError),
    ("mixture-type", lambda M, T: M.MixtureSameFamily(M.Normal(T([0.0]), T([1.0])),
                                                      M.Normal(T([0.0]), T([1.0]))), ValueError),
    ("mixture-components", lambda M, T: M.MixtureSameFamily(
        M.Categorical(T([0.5, 0.5])), M.Normal(T([0.0, 0.0, 0.0]), T([1.0, 1.0, 1.0]))),
     ValueError),
    ("multinomial-count", lambda M, T: M.Multinomial(T(3.0), T([0.5, 0.5])),
     NotImplementedError),
    ("lkj-dim", lambda M, T: M.LKJCholesky(1), ValueError),
    ("transforms", lambda M, T: M.TransformedDistribution(M.Normal(T([0.0]), T([1.0])), 3),
     ValueError),
    ("wishart-df", lambda M, T: M.Wishart(T(0.5), T(np.eye(2))), ValueError),
]


@pytest.mark.parametrize("name,build,error", CONSTRUCTOR_ERRORS,
                         ids=[c[0] for c in CONSTRUCTOR_ERRORS])
def test_constructor_errors_match_pytorch(name, build, error):
    with pytest.raises(error):
        build(TD, _T(TD))
    with pytest.raises(error):
        build(D, _T(D))


def test_binomial_entropy_and_enumerate_refuse_inhomogeneous_counts():
    for lib in (TD, D):
        dist = lib.Binomial(_T(lib)([2.0, 3.0]), _T(lib)([0.5, 0.5]))
        with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
            dist.entropy()
        with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
            dist.enumerate_support()


def test_base_class_interface_raises_not_implemented():
    dist = D.Distribution(validate_args=False)
    for attribute in ("mean", "mode", "variance", "support", "arg_constraints"):
        with pytest.raises(NotImplementedError):
            getattr(dist, attribute)
    for method in ("rsample", "entropy", "enumerate_support"):
        with pytest.raises(NotImplementedError):
            getattr(dist, method)()
    for method in ("log_prob", "cdf", "icdf"):
        with pytest.raises(NotImplementedError):
            getattr(dist, method)(ag.zeros(1))
    with pytest.raises(NotImplementedError):
        dist.expand((2,))
    assert tuple(dist.batch_shape) == () and tuple(dist.event_shape) == ()


def test_subclass_with_custom_init_must_define_expand():
    class MyNormal(D.Normal):
        def __init__(self, scale):
            super().__init__(0.0, scale)

    with pytest.raises(NotImplementedError, match="must also define a custom .expand"):
        MyNormal(ag.ones(2)).expand((3, 2))


def test_perplexity_and_repr():
    dist = D.Normal(ag.tensor([0.0, 1.0]), ag.tensor([1.0, 2.0]))
    np.testing.assert_allclose(dist.perplexity().numpy(), np.exp(dist.entropy().numpy()))
    assert repr(dist) == "Normal(loc: arraygrad.Size([2]), scale: arraygrad.Size([2]))"
    assert repr(D.Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(D.Independent(D.Normal(ag.zeros(2), 1.0), 1)).startswith(
        "Independent(Normal(loc:")
