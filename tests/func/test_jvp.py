"""``arraygrad.func.jvp`` and ``linearize``: float64 finite differences, jvp/vjp consistency
(``<J v, u> == <v, J^T u>``), pytrees and aux, nesting with grad/vjp/jvp in both orders,
PyTorch's errors, and ``torch.func`` where PyTorch is installed."""

import numpy as np
import pytest
from func_helpers import arr, assert_trees_close, needs_torch, t64, torch, torch64

import arraygrad as ag
from arraygrad.autograd import forward_ad as fwad
from arraygrad.func import grad, jvp, linearize, vjp

X = np.array([0.3, -1.2, 2.0, 0.7])
V = np.array([1.0, -0.5, 0.25, 2.0])


def _f(m, a):
    """The same function in arraygrad (m=ag) and PyTorch (m=torch)."""
    return (a.sin() * a.cumsum(0)).tanh() + m.exp(a[:1]) * a ** 2


def _fd(f, x, v, eps=1e-6):
    """The directional derivative of ``f`` at ``x`` along ``v`` by central differences."""
    return (arr(f(t64(x + eps * v))) - arr(f(t64(x - eps * v)))) / (2 * eps)


def test_jvp_equals_finite_differences_and_output():
    out, tan = jvp(lambda a: _f(ag, a), (t64(X),), (t64(V),))
    np.testing.assert_allclose(arr(out), arr(_f(ag, t64(X))), rtol=1e-12)
    np.testing.assert_allclose(arr(tan), _fd(lambda a: _f(ag, a), X, V), rtol=1e-7, atol=1e-9)
    assert not out.requires_grad and not tan.requires_grad


def test_jvp_vjp_consistency():
    u = np.array([0.5, 1.5, -2.0, 0.1])
    _, jv = jvp(lambda a: _f(ag, a), (t64(X),), (t64(V),))
    _, vjp_fn = vjp(lambda a: _f(ag, a), t64(X))
    (jtu,) = vjp_fn(t64(u))
    assert np.dot(arr(jv), u) == pytest.approx(np.dot(V, arr(jtu)), rel=1e-12)


def test_jvp_pytrees_several_primals_and_aux():
    def f(p, scale):
        return {"y": p["w"] @ p["x"] * scale, "z": (p["x"].sum(),)}, "aux"

    primals = ({"w": t64([[1.0, 2.0], [0.5, -1.0]]), "x": t64([3.0, 4.0])}, t64(2.0))
    tangents = ({"w": t64([[0.0, 1.0], [0.0, 0.0]]), "x": t64([1.0, 0.0])}, t64(0.5))
    out, tan, aux = jvp(f, primals, tangents, has_aux=True)
    assert aux == "aux" and set(out) == {"y", "z"}
    w, x = np.array([[1.0, 2.0], [0.5, -1.0]]), np.array([3.0, 4.0])
    dw, dx = np.array([[0.0, 1.0], [0.0, 0.0]]), np.array([1.0, 0.0])
    expected = (dw @ x + w @ dx) * 2.0 + (w @ x) * 0.5
    np.testing.assert_allclose(arr(tan["y"]), expected)
    np.testing.assert_allclose(arr(tan["z"][0]), 1.0)


def test_output_independent_of_inputs_zero_or_strict_error():
    const = t64([1.0, 2.0])
    out, tan = jvp(lambda a: const * 2, (t64(X),), (t64(V),))
    np.testing.assert_allclose(arr(tan), [0.0, 0.0])
    with pytest.raises(RuntimeError, match="independent of the inputs"):
        jvp(lambda a: const * 2, (t64(X),), (t64(V),), strict=True)


def test_errors_as_pytorch():
    x, v = t64(X), t64(V)
    with pytest.raises(RuntimeError, match="Expected primals to be a tuple"):
        jvp(ag.sin, x, (v,))
    with pytest.raises(RuntimeError, match="same python structure"):
        jvp(ag.sin, (x,), [v])
    with pytest.raises(RuntimeError, match="only contain Tensors"):
        jvp(ag.sin, (1.0,), (v,))
    with pytest.raises(RuntimeError, match="at least one Tensor"):
        jvp(ag.sin, (), ())
    with pytest.raises(RuntimeError, match="different size"):
        jvp(ag.sin, (x,), (v[:2],))
    with pytest.raises(RuntimeError, match="return only tensors"):
        jvp(lambda a: 3, (x,), (v,))
    with pytest.raises(RuntimeError, match="output of function f should be a tuple"):
        jvp(ag.sin, (x,), (v,), has_aux=True)
    assert fwad.state.dual_level == -1  # the level was closed on every error


def test_forward_over_reverse_is_the_hessian_vector_product():
    def loss(a):
        return (a.sin() * a.cumsum(0)).prod() + a.logsumexp(0)

    _, hv = jvp(grad(loss), (t64(X),), (t64(V),))
    hess = ag.autograd.functional.hessian(loss, t64(X))
    np.testing.assert_allclose(arr(hv), arr(hess) @ V, rtol=1e-9)


def test_reverse_over_forward_and_jvp_of_jvp():
    v = t64(V)
    # d/dx sum(J(x) v): reverse over forward
    g = grad(lambda a: jvp(lambda b: _f(ag, b), (a,), (v,))[1].sum())(t64(X))
    eps = 1e-5
    fd = [(_fd(lambda a: _f(ag, a), X + eps * e, V).sum() - _fd(lambda a: _f(ag, a), X - eps * e,
                                                                V).sum()) / (2 * eps)
          for e in np.eye(4)]
    np.testing.assert_allclose(arr(g), fd, rtol=1e-4, atol=1e-6)
    # second directional derivative: jvp inside jvp (the inner one by reverse mode)
    inner = lambda a: jvp(lambda b: _f(ag, b), (a,), (v,))[1]  # noqa: E731
    _, second = jvp(inner, (t64(X),), (v,))
    fd2 = (_fd(lambda a: _f(ag, a), X + eps * V, V) - _fd(lambda a: _f(ag, a), X - eps * V, V)) / (
        2 * eps)
    np.testing.assert_allclose(arr(second), fd2, rtol=1e-4, atol=1e-6)


def test_jvp_result_is_differentiable_outside_and_no_grad_is_accumulated():
    x = t64(X, requires_grad=True)
    out, tan = jvp(lambda a: a ** 3, (x,), (t64(V),))
    assert out.requires_grad and tan.requires_grad and x.grad is None
    tan.sum().backward()  # d/dx sum(3 x^2 v) = 6 x v
    np.testing.assert_allclose(arr(x.grad), 6 * X * V)
    with ag.no_grad():
        _, tan = jvp(lambda a: a ** 3, (x,), (t64(V),))
    assert not tan.requires_grad


def test_linearize_matches_jvp_and_checks_tangents():
    out, jvp_fn = linearize(lambda a: _f(ag, a), t64(X))
    np.testing.assert_allclose(arr(out), arr(_f(ag, t64(X))))
    for v in (V, np.array([0.0, 1.0, 0.0, 0.0])):
        np.testing.assert_allclose(arr(jvp_fn(t64(v))),
                                   arr(jvp(lambda a: _f(ag, a), (t64(X),), (t64(v),))[1]),
                                   rtol=1e-12)
    with pytest.raises(RuntimeError, match="same argspec"):
        jvp_fn(t64(V), t64(V))
    with pytest.raises(RuntimeError, match="tangent:0 with shape"):
        jvp_fn(t64(V[:2]))
    with pytest.raises(RuntimeError, match="tangent:0 with dtype"):
        jvp_fn(ag.tensor(V.tolist(), dtype=ag.float32))


@needs_torch
def test_matches_torch_func_jvp_with_pytrees():
    def f(m, p, y):
        return (p[0] @ y).tanh() * p[1], m.cat([y, p[1]]).pow(2)

    p = (np.arange(6.0).reshape(2, 3) / 5, np.array([0.3, -0.4]))
    y = np.array([1.0, -2.0, 0.5])
    tp = (np.ones((2, 3)) * 0.1, np.array([1.0, 2.0]))
    ty = np.array([0.0, 1.0, -1.0])
    ours = jvp(lambda a, b: f(ag, a, b), (tuple(map(t64, p)), t64(y)),
               (tuple(map(t64, tp)), t64(ty)))
    theirs = torch.func.jvp(lambda a, b: f(torch, a, b), (tuple(map(torch64, p)), torch64(y)),
                            (tuple(map(torch64, tp)), torch64(ty)))
    assert_trees_close(ours, tuple(theirs))


@pytest.mark.parametrize("op, second", [(ag.exp, np.exp), (ag.tanh, lambda a: -2 * np.tanh(a) *
                                                            (1 - np.tanh(a) ** 2))])
def test_grad_of_jvp_through_ops_whose_jvp_reads_their_output(op, second):
    """The tangent of exp is ``t * out``: it must depend on the input through ``out`` (the
    recorder used to compute it before linking ``out`` to its node, which gave 0 here)."""
    v = t64(V)
    g = grad(lambda a: jvp(op, (a,), (v,))[1].sum())(t64(X))
    np.testing.assert_allclose(arr(g), second(X) * V, rtol=1e-12)
