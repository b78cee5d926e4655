"""``autograd.functional.jacobian/hessian(vectorize=True, strategy=...)``: equal to the loop
(``vectorize=False``) and to ``func.jacrev``/``jacfwd`` on tuples of inputs and outputs, unused
inputs, create_graph, PyTorch's errors, and ``torch.autograd.functional`` where installed."""

import numpy as np
import pytest
from func_helpers import arr, needs_torch, t64, torch, torch64

import arraygrad as ag
from arraygrad.autograd import functional as AF

X = np.array([0.3, -1.2, 2.0])
Y = np.array([[1.5, 0.7], [-0.2, 0.4]])


def _f(a, b):
    return (a[:2] * b).sin(), a.exp().sum()


def _loss(a, b):
    return (a.sin() * a.cumsum(0)).prod() * b.sum() + (b @ a[:2]).tanh().sum()


def _flat(j):
    # PyTorch's forward mode nests lists where its reverse mode nests tuples; ours are tuples
    return [j] if not isinstance(j, (tuple, list)) else [t for x in j for t in _flat(x)]


def _same(got, want, atol=1e-12):
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(arr(g), arr(w), atol=atol, rtol=1e-10)


MODES = [dict(vectorize=True), dict(vectorize=True, strategy="forward-mode")]


@pytest.mark.parametrize("mode", MODES)
def test_jacobian_vectorized_equals_the_loop(mode):
    inputs = (t64(X), t64(Y))
    _same(AF.jacobian(_f, inputs, **mode), AF.jacobian(_f, inputs))
    _same(AF.jacobian(lambda a: a.cumsum(0), t64(X), **mode),
          AF.jacobian(lambda a: a.cumsum(0), t64(X)))
    _same(AF.jacobian(lambda a, b: a * 2, inputs, **mode),  # b unused: zeros
          AF.jacobian(lambda a, b: a * 2, inputs))


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_hessian_vectorized_equals_the_loop(strategy):
    inputs = (t64(X), t64(Y))
    _same(AF.hessian(_loss, inputs, vectorize=True, outer_jacobian_strategy=strategy),
          AF.hessian(_loss, inputs), atol=1e-10)
    one = lambda a: _loss(a, t64(Y))  # noqa: E731
    _same(AF.hessian(one, t64(X), vectorize=True, outer_jacobian_strategy=strategy),
          AF.hessian(one, t64(X)), atol=1e-10)


def test_vectorized_create_graph_results_are_differentiable():
    x = t64(X, requires_grad=True)
    jac = AF.jacobian(lambda a: a ** 3, x, create_graph=True, vectorize=True)
    assert jac.requires_grad
    (g,) = ag.autograd.grad(jac.sum(), x)  # d/dx sum(diag(3 x^2)) = 6 x
    np.testing.assert_allclose(arr(g), 6 * X)
    assert not AF.jacobian(lambda a: a ** 3, x, vectorize=True).requires_grad


def test_errors_as_pytorch():
    x = t64(X)
    with pytest.raises(AssertionError, match="Expected strategy"):
        AF.jacobian(ag.sin, x, strategy="sideways")
    with pytest.raises(AssertionError, match="Expected strategy"):
        AF.hessian(lambda a: a.sum(), x, outer_jacobian_strategy="sideways")
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        AF.jacobian(ag.sin, x, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="`create_graph=True` and"):
        AF.jacobian(ag.sin, x, strategy="forward-mode", vectorize=True, create_graph=True)
    with pytest.raises(RuntimeError, match="`strict=True` and `strategy"):
        AF.jacobian(ag.sin, x, strategy="forward-mode", vectorize=True, strict=True)
    calls = []
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True`"):
        AF.jacobian(lambda a: calls.append(a) or a, x, vectorize=True, strict=True)
    assert calls == []  # refused before the function ran
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        AF.hessian(lambda a: a.sum(), x, outer_jacobian_strategy="forward-mode")


@needs_torch
@pytest.mark.parametrize("mode", MODES)
def test_matches_torch(mode):
    ours = AF.jacobian(_f, (t64(X), t64(Y)), **mode)
    assert isinstance(ours, tuple) and all(isinstance(row, tuple) for row in ours)
    theirs = torch.autograd.functional.jacobian(
        lambda a, b: (((a[:2] * b).sin(), a.exp().sum())), (torch64(X), torch64(Y)), **mode)
    _same(ours, theirs)
    strategy = mode.get("strategy", "reverse-mode")
    ours_h = AF.hessian(_loss, (t64(X), t64(Y)), vectorize=True,
                        outer_jacobian_strategy=strategy)
    theirs_h = torch.autograd.functional.hessian(_loss, (torch64(X), torch64(Y)), vectorize=True,
                                                 outer_jacobian_strategy=strategy)
    _same(ours_h, theirs_h, atol=1e-10)
