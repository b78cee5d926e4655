"""``arraygrad.func.grad`` / ``grad_and_value``: values, argnums, has_aux, pytrees, nesting,
levels (the caller's tensors untouched, captured tensors constant), errors — against analytic
formulas in float64 and against ``torch.func`` where PyTorch is installed."""

import numpy as np
import pytest
from func_helpers import arr, assert_trees_close, needs_torch, t64, torch, torch64

import arraygrad as ag
from arraygrad.func import grad, grad_and_value

X = np.array([0.3, -1.2, 2.0])
Y = np.array([1.5, 0.7, -0.4])


def test_reachable_as_pytorch_names_them():
    import arraygrad.func as func

    assert ag.func is func
    for name in ("grad", "grad_and_value", "vjp", "jacrev", "hessian", "functional_call",
                 "stack_module_state"):
        assert callable(getattr(func, name)) and getattr(func, name).__doc__


def test_grad_of_sin_sum_is_cos():
    x = t64(X)
    np.testing.assert_allclose(arr(grad(lambda t: t.sin().sum())(x)), np.cos(X), rtol=1e-12)


def test_grad_and_value_returns_both():
    g, v = grad_and_value(lambda t: (t ** 3).sum())(t64(X))
    np.testing.assert_allclose(arr(g), 3 * X ** 2, rtol=1e-12)
    assert v.dim() == 0 and float(v) == pytest.approx(float((X ** 3).sum()))


def test_argnums_int_tuple_and_negative():
    def f(a, b):
        return (a * a * b).sum()

    x, y = t64(X), t64(Y)
    np.testing.assert_allclose(arr(grad(f, argnums=1)(x, y)), X ** 2)
    np.testing.assert_allclose(arr(grad(f, argnums=-1)(x, y)), X ** 2)
    ga, gb = grad(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(arr(ga), 2 * X * Y)
    np.testing.assert_allclose(arr(gb), X ** 2)


def test_non_tensor_arguments_not_differentiated_pass_through():
    g = grad(lambda a, scale, name: (a * scale).sum() if name == "s" else None)(t64(X), 4.0, "s")
    np.testing.assert_allclose(arr(g), np.full(3, 4.0))


def test_kwargs_are_passed_and_not_differentiated():
    g = grad(lambda a, *, w: (a * w).sum())(t64(X), w=t64(Y))
    np.testing.assert_allclose(arr(g), Y)


def test_has_aux_returns_the_aux_unchanged_in_structure():
    def f(a):
        y = a.exp()
        return y.sum(), {"y": y, "note": "kept"}

    g, aux = grad(f, has_aux=True)(t64(X))
    np.testing.assert_allclose(arr(g), np.exp(X))
    assert aux["note"] == "kept" and not aux["y"].requires_grad
    np.testing.assert_allclose(arr(aux["y"]), np.exp(X))
    g2, (value, aux2) = grad_and_value(f, has_aux=True)(t64(X))
    assert float(value) == pytest.approx(np.exp(X).sum()) and aux2["note"] == "kept"


def test_pytree_inputs_give_gradients_of_the_same_structure():
    def f(params, x):
        return ((params["w"][0] * x).sum() + (params["w"][1] * x * x).sum()
                + params["b"]).squeeze()

    params = {"w": (t64(X), t64(Y)), "b": t64([0.5])}
    g = grad(f)(params, t64([1.0, 2.0, 3.0]))
    assert set(g) == {"w", "b"} and isinstance(g["w"], tuple)
    np.testing.assert_allclose(arr(g["w"][0]), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(arr(g["w"][1]), [1.0, 4.0, 9.0])
    np.testing.assert_allclose(arr(g["b"]), [1.0])


def test_output_independent_of_input_gives_zeros():
    g = grad(lambda a, b: (b * 2).sum(), argnums=(0, 1))(t64(X), t64(Y))
    np.testing.assert_allclose(arr(g[0]), np.zeros(3))
    np.testing.assert_allclose(arr(g[1]), np.full(3, 2.0))
    assert arr(grad(lambda a: ag.tensor(1.0, dtype=ag.float64))(t64(X))).tolist() == [0, 0, 0]


def test_nested_grad_is_the_second_and_third_derivative():
    x = t64(1.3)
    d2 = grad(grad(lambda t: t.sin() * t ** 3))(x)
    expected = -np.sin(1.3) * 1.3 ** 3 + 6 * np.cos(1.3) * 1.3 ** 2 + 6 * np.sin(1.3) * 1.3
    assert float(d2) == pytest.approx(expected, rel=1e-12)
    assert float(grad(grad(grad(lambda t: t ** 4)))(x)) == pytest.approx(24 * 1.3)


def test_nested_grad_captured_outer_input_is_constant():
    # d/dx [ d/dy (x * y) at y = x ] = d/dx x = 1 (no perturbation confusion)
    def inner_at(x):
        return grad(lambda y: (x * y).sum())(x).sum()

    np.testing.assert_allclose(arr(grad(inner_at)(t64(X))), np.ones(3))

    # d/dx [ x * d/dy (x + y)^2 at y = 1 ] = d/dx 2x(x + 1) = 4x + 2
    def g(x):
        return x * grad(lambda y: (x + y) ** 2)(ag.tensor(1.0, dtype=ag.float64))

    assert float(grad(g)(t64(0.7))) == pytest.approx(4 * 0.7 + 2)


def test_outer_tensors_get_no_grad():
    x = t64(X, requires_grad=True)
    w = t64(Y, requires_grad=True)
    g = grad(lambda a: (a * a * w).sum())(x)
    h = grad(lambda a: grad(lambda b: (b ** 3 * w).sum())(a).sum())(x)
    assert x.grad is None and w.grad is None
    np.testing.assert_allclose(arr(g), 2 * X * Y)
    np.testing.assert_allclose(arr(h), 6 * X * Y)


def test_result_differentiable_outside_through_inputs_and_captured_tensors():
    x = t64(X, requires_grad=True)
    w = t64(Y, requires_grad=True)
    g = grad(lambda a: (a * a * w).sum())(x)  # 2 a w
    assert g.requires_grad
    g.sum().backward()
    np.testing.assert_allclose(arr(x.grad), 2 * Y)
    np.testing.assert_allclose(arr(w.grad), 2 * X)


def test_result_detached_when_nothing_outside_requires_grad():
    g, v = grad_and_value(lambda a: (a ** 2).sum())(t64(X))
    assert not g.requires_grad and g.grad_fn is None and not v.requires_grad


def test_outer_no_grad_does_not_stop_the_transform_and_results_are_detached():
    w = t64(Y, requires_grad=True)
    with ag.no_grad():
        g = grad(lambda a: (a * a * w).sum())(t64(X))
    assert not g.requires_grad
    np.testing.assert_allclose(arr(g), 2 * X * Y)


def test_no_grad_inside_f_is_respected():
    def f(a):
        with ag.no_grad():
            c = a ** 2
        return (a - c).sum()

    np.testing.assert_allclose(arr(grad(f)(t64(X))), np.ones(3))


@pytest.mark.parametrize("call, error, message", [
    (lambda: grad(lambda a: a * 2)(t64(X)), RuntimeError,
     "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
     "1 dims. Maybe you wanted to use the vjp or jacrev APIs instead?"),
    (lambda: grad(lambda a: 3.0)(t64(X)), RuntimeError,
     "grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got <class 'float'>"),
    (lambda: grad(lambda a: a.sum(), has_aux=True)(t64(X)), RuntimeError,
     "grad_and_value(f)(*args): output of function f should be a tuple: (output, aux) if "
     "has_aux is True"),
    (lambda: grad(lambda a: a.sum(), argnums=2)(t64(X)), RuntimeError,
     "Got argnum=2, but only 1 positional inputs"),
    (lambda: grad(lambda a: a.sum(), argnums=-2)(t64(X)), RuntimeError,
     "Got argnum=-2, but only 1 positional inputs"),
    (lambda: grad(lambda a, b: a.sum(), argnums=1)(t64(X), 3.0), ValueError,
     "Thing passed to transform API must be Tensor, got <class 'float'>"),
    (lambda: grad(lambda a, b: a.sum(), argnums=(0, 0))(t64(X), t64(X)), RuntimeError,
     "argnums elements must be unique, got (0, 0)"),
    (lambda: grad(lambda a: a.sum(), argnums=())(t64(X)), RuntimeError,
     "argnums must be non-empty"),
    (lambda: grad(lambda a: a.sum(), argnums=1.0)(t64(X)), RuntimeError,
     "argnums must be int or Tuple[int, ...], got: <class 'float'>"),
    (lambda: grad(lambda a: a.sum())(ag.arange(3)), RuntimeError,
     "only Tensors of floating point dtype can require gradients"),
])
def test_errors_as_pytorch(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_error_leaves_the_caller_tensors_untouched():
    x = t64(X, requires_grad=True)
    with pytest.raises(RuntimeError):
        grad(lambda a: a * 2)(x)
    assert x.grad is None and x.is_leaf


@needs_torch
def test_against_torch_func_grad_pytrees_argnums_aux():
    from torch.func import grad as tgrad, grad_and_value as tgrad_and_value

    def make(lib):
        def f(params, x, k):
            h = (params["a"] * x).tanh() * params["b"][0]
            loss = (h ** 2).sum() * k + params["b"][1].sum()
            return loss, {"h": h}
        return f

    def inputs(tensor):
        return ({"a": tensor(X), "b": [tensor(Y), tensor([0.1, 0.2])]}, tensor(Y[::-1].copy()),
                3.0)

    for argnums in (0, 1, (0, 1)):
        ours = grad(make(ag), argnums=argnums, has_aux=True)(*inputs(t64))
        theirs = tgrad(make(torch), argnums=argnums, has_aux=True)(*inputs(torch64))
        assert_trees_close(ours, theirs)
    ours = grad_and_value(make(ag), has_aux=True)(*inputs(t64))
    theirs = tgrad_and_value(make(torch), has_aux=True)(*inputs(torch64))
    assert_trees_close(ours, theirs)


@needs_torch
def test_against_torch_func_nested_grad_and_outer_graph():
    from torch.func import grad as tgrad

    def make(lib):
        return lambda a, w: (a.sin() * a ** 2 * w).sum()

    ours = grad(lambda a, w: grad(make(ag))(a, w).sum())(t64(X), t64(Y))
    theirs = tgrad(lambda a, w: tgrad(make(torch))(a, w).sum())(torch64(X), torch64(Y))
    assert_trees_close(ours, theirs)
    # gradient penalty style: the outer graph reaches the captured w and the input
    xa, wa = t64(X, requires_grad=True), t64(Y, requires_grad=True)
    xt, wt = torch64(X, requires_grad=True), torch64(Y, requires_grad=True)
    (grad(make(ag))(xa, wa) ** 2).sum().backward()
    (tgrad(make(torch))(xt, wt) ** 2).sum().backward()
    assert_trees_close((xa.grad, wa.grad), (xt.grad, wt.grad))


@needs_torch
def test_each_result_is_differentiable_outside_exactly_as_in_torch_func():
    from torch.func import grad as tgrad

    def flags(lib, tensor, g):
        w = tensor(Y, requires_grad=True)

        def f(p):
            return (p["a"] * w).sum() + (p["b"] ** 2).sum() + (p["c"] * 0).sum()

        out = g(f)({"a": tensor(X), "b": tensor(X), "c": tensor(X)})
        return {k: v.requires_grad for k, v in out.items()}

    ours = flags(ag, t64, grad)
    assert ours == flags(torch, torch64, tgrad) == {"a": True, "b": False, "c": False}
