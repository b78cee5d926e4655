"""The transforms built on the batched ``vmap``, composed: levels of separate ``vmap`` calls
meeting (one call's recorded ops differentiated inside another), forward-mode tangents that
are batched, ``grad`` inside nested ``vmap``, and op buffers written with values batched at
more levels than the op's own. Each case failed before the fix in ``func/_vmap`` (_below,
_wrap, rules_creation.widen); values against ``autograd.functional.hessian`` (one Hessian per
sample, no vmap), analytic formulas, and ``torch.func`` where PyTorch is installed."""

import numpy as np
import pytest
from func_helpers import arr, needs_torch, t64, torch, torch64

import arraygrad as ag
from arraygrad.autograd import functional as AF
from arraygrad.func import grad, hessian, jacfwd, jacrev, jvp, vmap

X = np.array([0.3, -0.7, 1.1])
XS = np.array([[0.3, -0.7, 1.1], [1.2, 0.4, -0.5]])

# functions whose backward ops each exercise one path: a scan (cumulative_sum in the
# backward: the batching rule that handed a foreign level's array to the real namespace),
# products and logsumexp (reductions under two levels), basic and advanced indexing (the
# backward writes the cotangent into a zeros buffer: setitem and scatter_add)
FUNCS = {
    "cumsum": lambda m, a: (m.sin(a) * a.cumsum(0)).prod() + a.logsumexp(0),
    "prod": lambda m, a: (m.sin(a) * a).prod(),
    "elementwise": lambda m, a: (m.sin(a) ** 2).sum(),
    "slice": lambda m, a: (a[1:] * a[:-1].exp()).sum(),
    "advanced": lambda m, a: (a[[0, 2, 2]] ** 3 * a[[1, 1, 0]]).sum(),
}
COMPOSITIONS = {
    "jacfwd(jacrev)": lambda f: jacfwd(jacrev(f)),
    "jacrev(jacrev)": lambda f: jacrev(jacrev(f)),
    "jacfwd(jacfwd)": lambda f: jacfwd(jacfwd(f)),
    "jacrev(jacfwd)": lambda f: jacrev(jacfwd(f)),
}


def _plain(t):
    """The values of a result that must have left every vmap level (``tolist`` refuses a
    batched array), as NumPy."""
    assert type(t._data).__name__ != "BatchedArray"
    return arr(t)


@pytest.mark.parametrize("name", sorted(FUNCS))
@pytest.mark.parametrize("how", sorted(COMPOSITIONS))
def test_second_derivatives_through_two_vmap_calls(name, how):
    """``jacrev(g)`` differentiates the ops ``g``'s own vmap call recorded, inside the outer
    call's vmap: the inner level has ended, the cotangents are batched at the outer one."""
    f = lambda a: FUNCS[name](ag, a)  # noqa: E731
    want = arr(AF.hessian(f, t64(X)))
    got = _plain(COMPOSITIONS[how](f)(t64(X)))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_vmap_of_hessian_per_sample(name):
    """``vmap`` over ``hessian`` (jacfwd over jacrev: three levels, the innermost two made
    inside the outermost) equals one Hessian per sample."""
    f = lambda a: FUNCS[name](ag, a)  # noqa: E731
    got = _plain(vmap(hessian(f))(t64(XS)))
    want = np.stack([arr(AF.hessian(f, t64(row))) for row in XS])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_vmap_of_jacrev_of_jacrev_is_per_sample_diagonal():
    xs = t64(XS)
    hess = _plain(vmap(jacrev(jacrev(lambda a: (a ** 3).sum())))(xs))
    np.testing.assert_allclose(hess, np.stack([np.diag(6 * r) for r in XS]), rtol=1e-12)


def test_third_derivative_through_three_vmap_calls():
    """d^3/dx^3 of sum(x^4) is 24 x on the diagonal of the diagonal: three calls' levels."""
    t3 = _plain(jacrev(jacrev(jacrev(lambda a: (a ** 4).sum())))(t64(X)))
    want = np.zeros((3, 3, 3))
    for i in range(3):
        want[i, i, i] = 24 * X[i]
    np.testing.assert_allclose(t3, want, rtol=1e-12, atol=1e-12)


def test_jvp_with_tangents_batched_at_a_deeper_level_enters_an_inner_vmap():
    """``jacfwd`` of a function that calls ``vmap``: the tangents (batched by jacfwd's level)
    go through the inner call's ``to_batched``/``from_batched``, which the inner level (made
    later, so deeper) must put under the tangents' batch."""
    def f(a):
        return vmap(lambda r: (r.sin() * r).sum())(a.reshape(3, 1) * a)

    x = t64(X)
    got = _plain(jacfwd(f)(x))
    want = _plain(jacrev(f)(x))  # reverse mode: no batched tangents
    rows = AF.jacobian(f, x)
    np.testing.assert_allclose(got, arr(rows), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(want, arr(rows), rtol=1e-12, atol=1e-12)


def test_grad_inside_nested_vmap_keeps_per_sample_gradients():
    """``vmap(vmap(grad(f)))``: the gradient is per sample at both levels (no level is summed
    while its call runs), and ``vmap(grad(vmap-using f))`` sums only the ended inner one."""
    xs = t64(np.arange(24.0).reshape(2, 3, 4) / 10)
    g = _plain(vmap(vmap(grad(lambda a: (a.sin() * a).sum())))(xs))
    v = np.arange(24.0).reshape(2, 3, 4) / 10
    np.testing.assert_allclose(g, np.cos(v) * v + np.sin(v), rtol=1e-12)

    inner = lambda a: vmap(lambda r: (r ** 2).sum())(a).sum()  # noqa: E731
    g2 = _plain(vmap(grad(inner))(xs))
    np.testing.assert_allclose(g2, 2 * v, rtol=1e-12)


@needs_torch
@pytest.mark.parametrize("how", sorted(COMPOSITIONS))
def test_compositions_match_torch_func(how):
    import torch.func as TF

    theirs = {"jacfwd(jacrev)": lambda f: TF.jacfwd(TF.jacrev(f)),
              "jacrev(jacrev)": lambda f: TF.jacrev(TF.jacrev(f)),
              "jacfwd(jacfwd)": lambda f: TF.jacfwd(TF.jacfwd(f)),
              "jacrev(jacfwd)": lambda f: TF.jacrev(TF.jacfwd(f))}[how]
    f = FUNCS["cumsum"]
    ours = _plain(vmap(COMPOSITIONS[how](lambda a: f(ag, a)))(t64(XS)))
    want = TF.vmap(theirs(lambda a: f(torch, a)))(torch64(XS))
    np.testing.assert_allclose(ours, arr(want), rtol=1e-10, atol=1e-12)


def test_batched_jvp_of_a_vmapped_function_matches_columns():
    """``vmap(jvp)`` over a function that itself maps with ``vmap``: batched tangents
    entering the inner level give each tangent's JVP."""
    f = lambda a: vmap(lambda r: r.exp() * r.sum())(a)  # noqa: E731
    x = t64(XS)
    tangents = t64(np.stack([np.eye(6)[k].reshape(2, 3) for k in range(6)]))
    cols = _plain(vmap(lambda t: jvp(f, (x,), (t,))[1])(tangents))
    jac = arr(AF.jacobian(f, x)).reshape(6, 6)
    np.testing.assert_allclose(cols.reshape(6, 6), jac.T, rtol=1e-12, atol=1e-12)


def _mixed(m, a):
    """Scan, softmax, slicing and a product (the backward branches on zeros) in one loss."""
    return (m.tanh(a) * a.cumsum(0)).sum() * a.softmax(0)[0] + (a[1:] ** 2).prod()


_AROUND_VMAP = {
    # name: (build from a namespace of transforms, which input: 1 = XS, 2 = a batch of XS)
    "vmap(jacrev(jacfwd))": (lambda T: T["vmap"](T["jacrev"](T["jacfwd"](T["f"]))), 1),
    "vmap(vmap(grad))": (lambda T: T["vmap"](T["vmap"](T["grad"](T["f"]))), 2),
    "jacfwd(vmap(grad))": (lambda T: T["jacfwd"](T["vmap"](T["grad"](T["f"]))), 1),
    "jacrev(vmap(grad))": (lambda T: T["jacrev"](T["vmap"](T["grad"](T["f"]))), 1),
    "vmap(hessian)": (lambda T: T["vmap"](T["hessian"](T["f"])), 1),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(_AROUND_VMAP))
def test_transforms_around_vmap_match_torch_func(name):
    """Transforms outside and inside ``vmap`` (``jacfwd``/``jacrev`` of a vmapped ``grad``:
    batched tangents and cotangents entering a level) against ``torch.func``."""
    import torch.func as TF

    build, kind = _AROUND_VMAP[name]
    x = XS if kind == 1 else np.stack([XS, XS / 2])
    ours = build(dict(vmap=vmap, grad=grad, jacrev=jacrev, jacfwd=jacfwd, hessian=hessian,
                      f=lambda a: _mixed(ag, a)))(t64(x))
    theirs = build(dict(vmap=TF.vmap, grad=TF.grad, jacrev=TF.jacrev, jacfwd=TF.jacfwd,
                        hessian=TF.hessian, f=lambda a: _mixed(torch, a)))(torch64(x))
    np.testing.assert_allclose(_plain(ours), arr(theirs), rtol=1e-10, atol=1e-12)


def test_vmap_of_vectorized_functional_hessian():
    """``autograd.functional.hessian(vectorize=True)`` (its own vmap calls) inside ``vmap``."""
    f = lambda a: _mixed(ag, a)  # noqa: E731
    got = _plain(vmap(lambda a: AF.hessian(f, a, vectorize=True))(t64(XS)))
    want = np.stack([arr(AF.hessian(f, t64(row))) for row in XS])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
