"""``jacfwd``, the vmap-mapped ``jacrev`` and ``hessian = jacfwd(jacrev(f))``: jacfwd ==
jacrev == ``autograd.functional.jacobian``, pytrees and argnums, the Hessian of a small MLP
against ``autograd.functional.hessian``, ``jacfwd(jacrev(f))``, chunk_size, random programs
(hypothesis) against finite differences, and ``torch.func`` where PyTorch is installed."""

import numpy as np
import pytest
from func_helpers import arr, assert_trees_close, needs_torch, t64, torch, torch64
from hypothesis import assume, given, settings, strategies as st

import arraygrad as ag
from arraygrad.autograd import functional as AF
from arraygrad.func import hessian, jacfwd, jacrev
from arraygrad.func._vmap_loop import loop_vmap

X = np.array([0.3, -1.2, 2.0])
Y = np.array([[1.5, 0.7, -0.2], [0.1, 0.4, 0.9]])


def _f(m, a, b):
    return (a * b).sin().sum(0), {"z": a.cumsum(0) * b[0], "s": (a ** 2).sum()}


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1, 0), -1])
def test_jacfwd_equals_jacrev(argnums):
    f = lambda a, b: _f(ag, a, b)  # noqa: E731
    fwd = jacfwd(f, argnums)(t64(X), t64(Y))
    rev = jacrev(f, argnums)(t64(X), t64(Y))
    assert_trees_close(fwd, rev, atol=1e-12)


def test_jacfwd_jacrev_and_functional_jacobian_agree_on_a_tuple_of_inputs():
    def f(a, b):
        return (a * b).tanh(), b.exp().sum(0)

    inputs = (t64(Y[0]), t64(Y))
    functional = AF.jacobian(f, inputs)
    fwd = jacfwd(f, argnums=(0, 1))(*inputs)
    rev = jacrev(f, argnums=(0, 1))(*inputs)
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(arr(fwd[i][j]), arr(functional[i][j]), atol=1e-12)
            np.testing.assert_allclose(arr(rev[i][j]), arr(functional[i][j]), atol=1e-12)


def test_jacfwd_has_aux_and_scalar_input():
    jac, aux = jacfwd(lambda s: (s * t64(X), {"v": s.exp()}), has_aux=True)(t64(2.0))
    np.testing.assert_allclose(arr(jac), X)
    assert tuple(aux["v"].shape) == () and aux["v"].item() == pytest.approx(np.exp(2.0))


def _mlp_params():
    ag.manual_seed(0)
    return {"w1": ag.randn(5, 3, dtype=ag.float64), "b1": ag.randn(5, dtype=ag.float64),
            "w2": ag.randn(2, 5, dtype=ag.float64)}


def _mlp_loss(params, x):
    h = (params["w1"] @ x + params["b1"]).tanh()
    return (params["w2"] @ h).pow(2).sum()


def test_hessian_of_a_small_mlp_equals_functional_hessian():
    params = _mlp_params()
    x = t64(X)
    h = hessian(_mlp_loss, argnums=1)(params, x)
    np.testing.assert_allclose(arr(h), arr(AF.hessian(lambda t: _mlp_loss(params, t), x)),
                               rtol=1e-10, atol=1e-12)
    # and with respect to a parameter dict: blocks [name][name]
    hp = hessian(_mlp_loss)(params, x)
    names = list(params)
    flat = AF.hessian(lambda *ps: _mlp_loss(dict(zip(names, ps)), x), tuple(params.values()))
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            np.testing.assert_allclose(arr(hp[a][b]), arr(flat[i][j]), rtol=1e-10, atol=1e-12)


def test_jacfwd_of_jacrev_and_jacrev_of_jacrev_and_jacfwd_of_jacfwd_agree():
    f = lambda a: (a.sin() * a.cumsum(0)).prod() + a.logsumexp(0)  # noqa: E731
    x = t64(X)
    want = arr(AF.hessian(f, x))
    for h in (jacfwd(jacrev(f)), jacrev(jacrev(f)), jacfwd(jacfwd(f)), jacrev(jacfwd(f))):
        np.testing.assert_allclose(arr(h(x)), want, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("chunk_size", [None, 1, 2, 100])
def test_jacrev_chunk_size_gives_the_same_jacobian(chunk_size):
    f = lambda a, b: _f(ag, a, b)  # noqa: E731
    want = jacrev(f, (0, 1))(t64(X), t64(Y))
    got = jacrev(f, (0, 1), chunk_size=chunk_size, _preallocate_and_copy=True)(t64(X), t64(Y))
    assert_trees_close(got, want, atol=1e-14)
    with pytest.raises(ValueError, match="chunk_size"):
        jacrev(f, chunk_size=0)


def test_jacfwd_errors_as_pytorch():
    with pytest.raises(RuntimeError, match="only 1 positional inputs"):
        jacfwd(ag.sin, argnums=1)(t64(X))
    with pytest.raises(RuntimeError, match="only contain Tensors"):
        jacfwd(lambda a: a)(3.0)
    with pytest.raises(RuntimeError, match="randomness"):
        jacfwd(lambda a: a + ag.randn(3, dtype=ag.float64))(t64(X))
    jac = jacfwd(lambda a: a * 2, randomness="different")(t64(X))
    np.testing.assert_allclose(arr(jac), 2 * np.eye(3))


def test_jacrev_rows_are_vjps_mapped_by_the_loop_oracle():
    """jacrev (mapped by the batched vmap ``_vmap_entry`` gives) equals the VJPs with the
    standard basis mapped by the loop oracle, one ``autograd.grad`` call per row."""
    xr = t64(X, requires_grad=True)
    out = (xr * t64(Y)).sum(1)
    rows = loop_vmap(lambda u: ag.autograd.grad(out, xr, u, retain_graph=True)[0])(
        ag.eye(2, dtype=ag.float64))
    np.testing.assert_allclose(arr(rows), arr(jacrev(lambda a: (a * t64(Y)).sum(1))(t64(X))))


@needs_torch
@pytest.mark.parametrize("argnums", [0, (0, 1)])
def test_matches_torch_func(argnums):
    ours = jacfwd(lambda a, b: _f(ag, a, b), argnums)(t64(X), t64(Y))
    theirs = torch.func.jacfwd(lambda a, b: _f(torch, a, b), argnums)(torch64(X), torch64(Y))
    assert_trees_close(ours, theirs)
    ours_h = hessian(lambda a, b: _f(ag, a, b)[1]["s"] * b.sum(), argnums)(t64(X), t64(Y))
    theirs_h = torch.func.hessian(lambda a, b: _f(torch, a, b)[1]["s"] * b.sum(), argnums)(
        torch64(X), torch64(Y))
    assert_trees_close(ours_h, theirs_h)


_UNARY = [lambda t: t.sin(), lambda t: t.tanh() * 2, lambda t: (t * t).exp() * 0.1,
          lambda t: t.cumsum(-1), lambda t: t.softmax(-1), lambda t: t.sigmoid() + t]


@settings(max_examples=15, deadline=None)
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=3),
       ops=st.lists(st.integers(0, len(_UNARY) - 1), min_size=1, max_size=3),
       reduce_last=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_random_programs_all_jacobians_agree(shape, ops, reduce_last, seed):
    """jacfwd == jacrev == functional.jacobian (loop, vectorized reverse and forward mode)
    on random shapes and random chains of ops, and their values match finite differences."""
    x = t64(np.random.default_rng(seed).standard_normal(shape))

    def f(t):
        for k in ops:
            t = _UNARY[k](t)
        return t.sum(-1) if reduce_last else t

    want = arr(AF.jacobian(f, x))
    # an overflowed program (exp(exp(x^2)) for |x| > 1.8) has 0 * inf = nan entries whose
    # places depend on the mode (a row's cotangent vs a column's tangent), in PyTorch too
    assume(np.isfinite(want).all())
    for got in (jacfwd(f)(x), jacrev(f)(x), AF.jacobian(f, x, vectorize=True),
                AF.jacobian(f, x, vectorize=True, strategy="forward-mode")):
        np.testing.assert_allclose(arr(got), want, rtol=1e-10, atol=1e-12)
    eps, flat = 1e-6, x.reshape(-1)
    out_shape = tuple(f(x).shape)
    for i in range(flat.numel()):
        e = ag.zeros(flat.numel(), dtype=ag.float64)
        e[i] = eps
        fd = (arr(f((flat + e).reshape(x.shape))) - arr(f((flat - e).reshape(x.shape)))) / (2 * eps)
        np.testing.assert_allclose(want.reshape(*out_shape, -1)[..., i], fd, rtol=1e-5, atol=1e-7)
