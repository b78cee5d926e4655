"""Transforms against PyTorch (forward, inverse, log_abs_det_jacobian, shapes, sign,
domains), caching and inverses, biject_to/transform_to, and the constraints' checks."""

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.distributions as D
from arraygrad.distributions import constraints, transforms as T

torch = pytest.importorskip("torch", reason="the reference is PyTorch")
TT = torch.distributions.transforms
TC = torch.distributions.constraints

R = np.random.default_rng(11)


def _pair(build):
    return build(T, lambda a: ag.tensor(np.asarray(a), dtype=ag.float64)), \
        build(TT, lambda a: torch.tensor(np.asarray(a), dtype=torch.float64))


def _same(got, want, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=rtol, atol=atol)


# name -> (build(transforms module, tensor maker), input drawn from R)
CASES = {
    "Exp": (lambda M, A: M.ExpTransform(), R.uniform(-2, 2, (4, 3))),
    "Power": (lambda M, A: M.PowerTransform(A([0.5, 2.0, -1.5])), R.uniform(0.2, 3, (4, 3))),
    "Sigmoid": (lambda M, A: M.SigmoidTransform(), R.uniform(-4, 4, (4, 3))),
    "Softplus": (lambda M, A: M.SoftplusTransform(), R.uniform(-4, 4, (4, 3))),
    "Tanh": (lambda M, A: M.TanhTransform(), R.uniform(-3, 3, (4, 3))),
    "Abs": (lambda M, A: M.AbsTransform(), R.uniform(0.1, 3, (4, 3))),
    "Affine": (lambda M, A: M.AffineTransform(A([1.0, -2.0, 0.5]), A([2.0, -0.5, 3.0])),
               R.uniform(-2, 2, (4, 3))),
    "Affine-scalar": (lambda M, A: M.AffineTransform(1.5, -2.0), R.uniform(-2, 2, (4, 3))),
    "Affine-event": (lambda M, A: M.AffineTransform(0.0, A([1.0, 2.0, 3.0]), event_dim=1),
                     R.uniform(-2, 2, (4, 3))),
    "Softmax": (lambda M, A: M.SoftmaxTransform(), R.uniform(-2, 2, (4, 3))),
    "StickBreaking": (lambda M, A: M.StickBreakingTransform(), R.uniform(-2, 2, (4, 3))),
    "LowerCholesky": (lambda M, A: M.LowerCholeskyTransform(), R.uniform(-1, 1, (4, 3, 3))),
    "PositiveDefinite": (lambda M, A: M.PositiveDefiniteTransform(),
                         R.uniform(-1, 1, (4, 3, 3))),
    "CorrCholesky": (lambda M, A: M.CorrCholeskyTransform(), R.uniform(-2, 2, (4, 6))),
    "Compose": (lambda M, A: M.ComposeTransform([M.AffineTransform(0.5, 2.0), M.ExpTransform()]),
                R.uniform(-2, 2, (4, 3))),
    "Compose-empty": (lambda M, A: M.ComposeTransform([]), R.uniform(-2, 2, (4, 3))),
    "Independent": (lambda M, A: M.IndependentTransform(M.ExpTransform(), 1),
                    R.uniform(-2, 2, (4, 3))),
    "Reshape": (lambda M, A: M.ReshapeTransform((2, 3), (3, 2)), R.uniform(-2, 2, (4, 2, 3))),
    "Cat": (lambda M, A: M.CatTransform([M.ExpTransform(), M.AffineTransform(1.0, 3.0)], dim=1,
                                        lengths=[1, 2]), R.uniform(-2, 2, (4, 3))),
    "Stack": (lambda M, A: M.StackTransform([M.ExpTransform(), M.SigmoidTransform(),
                                             M.AffineTransform(1.0, 2.0)], dim=1),
              R.uniform(-2, 2, (4, 3))),
    "Inverse": (lambda M, A: M.ExpTransform().inv, R.uniform(0.2, 3, (4, 3))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_transform_matches_pytorch(name):
    build, x = CASES[name]
    ours, theirs = _pair(build)
    ox, tx = ag.tensor(x, dtype=ag.float64), torch.tensor(x, dtype=torch.float64)
    oy, ty = ours(ox), theirs(tx)
    _same(oy, ty)
    _same(ours.inv(oy), theirs.inv(ty), 1e-8, 1e-8)
    # PyTorch does not define these determinants
    if name not in ("Softmax", "Abs", "LowerCholesky", "PositiveDefinite"):
        _same(ours.log_abs_det_jacobian(ox, oy), theirs.log_abs_det_jacobian(tx, ty), 1e-9,
              1e-10)
    assert tuple(ours.forward_shape(tuple(x.shape))) == tuple(theirs.forward_shape(x.shape))
    assert tuple(ours.inverse_shape(tuple(oy.shape))) == tuple(theirs.inverse_shape(ty.shape))
    assert ours.bijective == theirs.bijective
    assert ours.domain.event_dim == theirs.domain.event_dim
    assert ours.codomain.event_dim == theirs.codomain.event_dim
    try:
        want_sign = theirs.sign
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            ours.sign
    else:
        got = ours.sign
        assert (got.tolist() if hasattr(got, "tolist") else got) == \
            (want_sign.tolist() if hasattr(want_sign, "tolist") else want_sign)


def test_inverse_and_caching():
    t = T.ExpTransform()
    assert t.inv.inv is t and t.inv == T.ExpTransform().inv
    cached = T.ExpTransform(cache_size=1)
    x = ag.tensor([0.5, 1.0])
    y = cached(x)
    assert cached(x) is y and cached.inv(y) is x  # the cached pair, not recomputed
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        T.ExpTransform(cache_size=2)
    assert T.ExpTransform().with_cache(1)._cache_size == 1
    compose = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)])
    assert compose.inv.inv is compose
    assert T.identity_transform(x) is x


def test_reshape_and_corr_cholesky_errors_match_pytorch():
    for lib in (T, TT):
        with pytest.raises(ValueError, match="different numbers of elements"):
            lib.ReshapeTransform((2, 3), (5,))
        with pytest.raises(ValueError, match="flattened lower-diagonal"):
            lib.CorrCholeskyTransform().forward_shape((4,))


CONSTRAINTS = [
    ("real", lambda C: C.real, [0.0, float("nan"), float("inf"), -3.0]),
    ("positive", lambda C: C.positive, [0.0, 1.0, -1.0]),
    ("nonnegative", lambda C: C.nonnegative, [0.0, 1.0, -1.0]),
    ("unit_interval", lambda C: C.unit_interval, [0.0, 1.0, 1.5, -0.1]),
    ("interval", lambda C: C.interval(-1.0, 2.0), [-1.0, 2.0, 2.5]),
    ("half_open_interval", lambda C: C.half_open_interval(-1.0, 2.0), [-1.0, 2.0, 0.0]),
    ("greater_than", lambda C: C.greater_than(1.0), [1.0, 1.5]),
    ("greater_than_eq", lambda C: C.greater_than_eq(1.0), [1.0, 0.5]),
    ("less_than", lambda C: C.less_than(1.0), [1.0, 0.5]),
    ("boolean", lambda C: C.boolean, [0.0, 1.0, 0.5]),
    ("nonnegative_integer", lambda C: C.nonnegative_integer, [0.0, 3.0, 1.5, -1.0]),
    ("positive_integer", lambda C: C.positive_integer, [0.0, 3.0, 1.0]),
    ("integer_interval", lambda C: C.integer_interval(0, 3), [0.0, 3.0, 4.0, 1.5]),
    ("simplex", lambda C: C.simplex, [[0.2, 0.8], [0.5, 0.6], [1.2, -0.2]]),
    ("one_hot", lambda C: C.one_hot, [[0.0, 1.0], [1.0, 1.0], [0.5, 0.5]]),
    ("real_vector", lambda C: C.real_vector, [[0.0, 1.0], [float("nan"), 0.0]]),
    ("multinomial", lambda C: C.multinomial(3), [[1.0, 2.0], [3.0, 1.0], [-1.0, 2.0]]),
    ("lower_cholesky", lambda C: C.lower_cholesky, [[[1.0, 0.0], [0.5, 2.0]],
                                                    [[1.0, 0.1], [0.5, 2.0]],
                                                    [[-1.0, 0.0], [0.5, 2.0]]]),
    ("lower_triangular", lambda C: C.lower_triangular, [[[1.0, 0.0], [0.5, 2.0]],
                                                        [[1.0, 0.1], [0.5, 2.0]]]),
    ("corr_cholesky", lambda C: C.corr_cholesky, [[[1.0, 0.0], [0.6, 0.8]],
                                                  [[1.0, 0.0], [0.5, 0.5]]]),
    ("positive_definite", lambda C: C.positive_definite, [[[2.0, 0.5], [0.5, 1.0]],
                                                          [[1.0, 2.0], [2.0, 1.0]],
                                                          [[1.0, 0.3], [0.0, 1.0]]]),
    ("positive_semidefinite", lambda C: C.positive_semidefinite, [[[1.0, 1.0], [1.0, 1.0]],
                                                                  [[1.0, 2.0], [2.0, 1.0]]]),
    ("symmetric", lambda C: C.symmetric, [[[1.0, 2.0], [2.0, 1.0]], [[1.0, 2.0], [0.0, 1.0]]]),
    ("square", lambda C: C.square, [[[1.0, 2.0], [2.0, 1.0]]]),
    ("independent", lambda C: C.independent(C.positive, 1), [[1.0, 2.0], [1.0, -1.0]]),
    ("cat", lambda C: C.cat([C.positive, C.real], dim=0, lengths=[1, 1]), [1.0, -1.0]),
    ("stack", lambda C: C.stack([C.positive, C.real], dim=0), [-1.0, -1.0]),
]


@pytest.mark.parametrize("name,build,value", CONSTRAINTS, ids=[c[0] for c in CONSTRAINTS])
def test_constraint_checks_match_pytorch(name, build, value):
    ours, theirs = build(constraints), build(TC)
    got = ours.check(ag.tensor(value, dtype=ag.float64))
    want = theirs.check(torch.tensor(value, dtype=torch.float64))
    assert got.tolist() == want.tolist()
    assert ours.event_dim == theirs.event_dim
    assert ours.is_discrete == theirs.is_discrete
    assert repr(ours) == repr(theirs)


def test_dependent_constraints():
    assert constraints.is_dependent(constraints.dependent)
    assert not constraints.is_dependent(constraints.real)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        constraints.dependent.check(ag.ones(1))
    support = D.Uniform.support  # a dependent_property on the class
    assert constraints.is_dependent(support) and support.event_dim == 0
    assert isinstance(D.Uniform(0.0, 1.0).support, constraints.interval)


REGISTRY = ["real", "positive", "nonnegative", "greater_than", "greater_than_eq", "less_than",
            "interval", "half_open_interval", "unit_interval", "simplex", "corr_cholesky",
            "independent", "cat", "stack"]


@pytest.mark.parametrize("name", REGISTRY)
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_constraint_registry_matches_pytorch(name, registry):
    build = next(b for n, b, _ in CONSTRAINTS if n == name) if name != "unit_interval" else \
        (lambda C: C.unit_interval)
    ours = getattr(D, registry)(build(constraints))
    theirs = getattr(torch.distributions, registry)(build(TC))
    event = max(ours.domain.event_dim, 1 if name in ("simplex", "independent") else 0)
    width = {"simplex": 3, "corr_cholesky": 6, "cat": 2, "stack": 2}.get(name, 3)
    x = R.uniform(-2, 2, (4, width) if event or name in ("cat", "stack", "corr_cholesky")
                  else (4,))
    if name in ("cat", "stack"):
        x = x[0]
    _same(ours(ag.tensor(x, dtype=ag.float64)), theirs(torch.tensor(x, dtype=torch.float64)))
    assert build(constraints).check(ours(ag.tensor(x, dtype=ag.float64))).all()


def test_constraint_registry_transforms_and_errors():
    assert isinstance(D.transform_to(constraints.lower_cholesky), T.LowerCholeskyTransform)
    assert isinstance(D.transform_to(constraints.positive_definite), T.PositiveDefiniteTransform)
    assert isinstance(D.transform_to(constraints.simplex), T.SoftmaxTransform)
    assert isinstance(D.biject_to(constraints.simplex), T.StickBreakingTransform)
    with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky"):
        D.biject_to(constraints.lower_cholesky)
    with pytest.raises(TypeError, match="Expected constraint to be either"):
        D.biject_to.register(int, lambda c: None)


def test_transformed_distribution_with_cumulative_distribution_transform():
    ours = D.TransformedDistribution(D.Normal(0.0, 1.0),
                                     [T.CumulativeDistributionTransform(D.Normal(0.0, 1.0))])
    theirs = torch.distributions.TransformedDistribution(
        torch.distributions.Normal(0.0, 1.0),
        [TT.CumulativeDistributionTransform(torch.distributions.Normal(0.0, 1.0))])
    u = [0.1, 0.5, 0.9]
    _same(ours.log_prob(ag.tensor(u, dtype=ag.float64)),
          theirs.log_prob(torch.tensor(u, dtype=torch.float64)))
