"""``arraygrad.func.vjp`` / ``jacrev`` / ``hessian``: analytic values in float64, the Jacobian and
Hessian of a small MLP against ``arraygrad.autograd.functional``, pytrees, errors, levels, and
``torch.func`` where PyTorch is installed."""

import numpy as np
import pytest
from func_helpers import arr, assert_trees_close, needs_torch, t64, torch, torch64

import arraygrad as ag
from arraygrad.autograd import functional as AF
from arraygrad.func import hessian, jacrev, vjp

X = np.array([0.3, -1.2, 2.0])
Y = np.array([1.5, 0.7])


def test_vjp_fn_called_twice_gives_the_same_and_new_products():
    out, vjp_fn = vjp(lambda t: t.sin() * 2, t64(X))
    np.testing.assert_allclose(arr(out), 2 * np.sin(X))
    (first,) = vjp_fn(t64([1.0, 1.0, 1.0]))
    (again,) = vjp_fn(t64([1.0, 1.0, 1.0]))
    (other,) = vjp_fn(t64([0.0, 2.0, -1.0]))
    np.testing.assert_allclose(arr(first), 2 * np.cos(X))
    np.testing.assert_allclose(arr(again), arr(first))
    np.testing.assert_allclose(arr(other), 2 * np.cos(X) * [0.0, 2.0, -1.0])


def test_vjp_pytree_output_and_several_primals():
    def f(a, b):
        return {"prod": a[:2] * b, "sum": (a.sum(),)}

    out, vjp_fn = vjp(f, t64(X), t64(Y))
    assert set(out) == {"prod", "sum"} and not out["prod"].requires_grad
    ga, gb = vjp_fn({"prod": t64([1.0, 1.0]), "sum": (t64(1.0),)})
    np.testing.assert_allclose(arr(ga), [Y[0] + 1, Y[1] + 1, 1.0])
    np.testing.assert_allclose(arr(gb), X[:2])


def test_vjp_has_aux():
    out, vjp_fn, aux = vjp(lambda a: (a ** 2, {"n": 3, "t": a + 1}), t64(X), has_aux=True)
    assert aux["n"] == 3 and not aux["t"].requires_grad
    np.testing.assert_allclose(arr(vjp_fn(t64([1.0, 1.0, 1.0]))[0]), 2 * X)


def test_vjp_keeps_outer_graph_and_gives_caller_tensors_no_grad():
    x = t64(X, requires_grad=True)
    w = t64(X[::-1].copy(), requires_grad=True)
    out, vjp_fn = vjp(lambda a: a * w, x)
    (g,) = vjp_fn(t64([1.0, 1.0, 1.0]))
    assert out.requires_grad and g.requires_grad  # both depend on w outside
    assert x.grad is None and w.grad is None
    g.sum().backward()
    np.testing.assert_allclose(arr(w.grad), np.ones(3))
    with ag.no_grad():
        (g2,) = vjp_fn(t64([1.0, 1.0, 1.0]))  # create_graph follows the grad mode
    assert not g2.requires_grad


def test_vjp_errors():
    _, vjp_fn = vjp(lambda a: (a, a * 2), t64(X))
    with pytest.raises(RuntimeError, match="Expected pytree structure of cotangents to be the "
                                           "same as pytree structure of outputs"):
        vjp_fn(t64(X))
    with pytest.raises(RuntimeError, match=r"vjp\(f, \*primals\): expected f\(\*primals\) to "
                                           "return only tensors, got unsupported type"):
        vjp(lambda a: (a, 3), t64(X))
    with pytest.raises(RuntimeError, match="All outputs of f must be floating-point"):
        vjp(lambda a: a.long(), t64(X))
    with pytest.raises(RuntimeError, match="Expected f to be a function that has non-empty "
                                           "output"):
        vjp(lambda a: None, t64(X))
    with pytest.raises(RuntimeError, match="should be a tuple: \\(output, aux\\)"):
        vjp(lambda a: a, t64(X), has_aux=True)
    with pytest.raises(ValueError, match="Thing passed to transform API must be Tensor"):
        vjp(lambda a, b: a, t64(X), 2.0)


def test_jacrev_analytic_argnums_and_multiple_outputs():
    def f(a, b):
        return a[:2] * b, (a ** 2).sum()

    (j_prod_a, j_prod_b), (j_sum_a, j_sum_b) = jacrev(f, argnums=(0, 1))(t64(X), t64(Y))
    np.testing.assert_allclose(arr(j_prod_a), [[Y[0], 0, 0], [0, Y[1], 0]])
    np.testing.assert_allclose(arr(j_prod_b), np.diag(X[:2]))
    np.testing.assert_allclose(arr(j_sum_a), 2 * X)
    np.testing.assert_allclose(arr(j_sum_b), np.zeros(2))
    j = jacrev(lambda a: a.reshape(3, 1) * a)(t64(X))
    assert tuple(j.shape) == (3, 3, 3)


def test_jacrev_has_aux_and_chunk_size():
    def f(a):
        return a.exp(), a.sum()

    for chunk in (None, 1, 2, 100):
        jac, aux = jacrev(f, has_aux=True, chunk_size=chunk)(t64(X))
        np.testing.assert_allclose(arr(jac), np.diag(np.exp(X)))
        assert float(aux) == pytest.approx(X.sum()) and not aux.requires_grad
    with pytest.raises(ValueError, match="jacrev: `chunk_size` should be greater than 0."):
        jacrev(f, chunk_size=0)


def test_jacrev_of_a_pytree_input():
    jac = jacrev(lambda p: p["w"] * p["b"].sum())({"w": t64(Y), "b": t64(X)})
    np.testing.assert_allclose(arr(jac["w"]), np.diag(np.full(2, X.sum())))
    np.testing.assert_allclose(arr(jac["b"]), np.outer(Y, np.ones(3)))


def _mlp_params(seed=0):
    rng = np.random.default_rng(seed)
    return (t64(rng.normal(size=(4, 3))), t64(rng.normal(size=4)),
            t64(rng.normal(size=(2, 4))), t64(rng.normal(size=2)))


def _mlp(x, w1, b1, w2, b2):
    return (w2 @ (w1 @ x + b1).tanh() + b2).sin()


def test_jacrev_of_mlp_equals_autograd_functional_jacobian():
    params = _mlp_params()
    x = t64(X)
    ours = jacrev(_mlp, argnums=(0, 1, 2, 3, 4))(x, *params)
    theirs = AF.jacobian(_mlp, (x, *params))
    assert len(ours) == len(theirs) == 5
    for a, b in zip(ours, theirs):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(arr(a), arr(b), atol=1e-12)


def test_hessian_of_mlp_loss_equals_autograd_functional_hessian():
    params = _mlp_params(1)

    def loss(x, w1):
        return (_mlp(x, w1, *params[1:]) ** 2).sum()

    x = t64(X)
    ours = hessian(loss, argnums=(0, 1))(x, params[0])
    theirs = AF.hessian(loss, (x, params[0]))
    for i in range(2):
        for j in range(2):
            assert tuple(ours[i][j].shape) == tuple(theirs[i][j].shape)
            np.testing.assert_allclose(arr(ours[i][j]), arr(theirs[i][j]), atol=1e-12)
    h = hessian(lambda a: (a ** 3).sum())(x)
    np.testing.assert_allclose(arr(h), np.diag(6 * X))
    assert not h.requires_grad


def test_jacrev_and_hessian_leave_caller_tensors_without_grad():
    x = t64(X, requires_grad=True)
    jac = jacrev(lambda a: a ** 3)(x)
    hes = hessian(lambda a: (a ** 3).sum())(x)
    assert x.grad is None
    assert jac.requires_grad and hes.requires_grad  # differentiable w.r.t. x outside
    np.testing.assert_allclose(arr(hes), np.diag(6 * X))


@needs_torch
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch.func's jacfwd: jit.script
def test_against_torch_func_vjp_jacrev_hessian():
    from torch.func import hessian as thessian, jacrev as tjacrev, vjp as tvjp

    def make(lib):
        def f(a, b):
            return {"u": (a[:2] * b).tanh(), "v": [(a ** 2).sum() * b[0]]}
        return f

    for argnums in (0, 1, (0, 1)):
        assert_trees_close(jacrev(make(ag), argnums=argnums)(t64(X), t64(Y)),
                           tjacrev(make(torch), argnums=argnums)(torch64(X), torch64(Y)))
    out, fn = vjp(make(ag), t64(X), t64(Y))
    tout, tfn = tvjp(make(torch), torch64(X), torch64(Y))
    ct = {"u": [0.5, -1.0], "v": [2.0]}
    assert_trees_close((out, fn({"u": t64(ct["u"]), "v": [t64(2.0)]})),
                       (tout, tfn({"u": torch64(ct["u"]), "v": [torch64(2.0)]})))

    def scalar(lib):
        return lambda a, b: ((a[:2] * b).sin() * a[2]).sum()

    for argnums in (0, (0, 1)):
        assert_trees_close(hessian(scalar(ag), argnums=argnums)(t64(X), t64(Y)),
                           thessian(scalar(torch), argnums=argnums)(torch64(X), torch64(Y)))
