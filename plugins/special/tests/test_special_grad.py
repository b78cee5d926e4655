"""Gradients of arraygrad-special: gradcheck and gradgradcheck in float64, kernel and portable."""

import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.plugins import registry
from arraygrad_special import ops

# (id, function, input ranges): ranges stay off poles and domain edges.
GRAD_CASES = [
    ("erf", ops.erf, [(-2.0, 2.0)]),
    ("erfc", ops.erfc, [(-2.0, 2.0)]),
    ("erfinv", ops.erfinv, [(-0.9, 0.9)]),
    ("lgamma", ops.lgamma, [(0.2, 6.0)]),
    ("lgamma-negative", ops.lgamma, [(-1.9, -1.1)]),
    ("gammaln", ops.gammaln, [(0.5, 4.0)]),
    ("digamma", ops.digamma, [(0.3, 6.0)]),
    ("digamma-negative", ops.digamma, [(-0.9, -0.1)]),
    ("polygamma0", lambda x: ops.polygamma(0, x), [(0.5, 4.0)]),
    ("polygamma1", lambda x: ops.polygamma(1, x), [(0.5, 4.0)]),
    ("polygamma2", lambda x: ops.polygamma(2, x), [(0.5, 4.0)]),
    ("polygamma3-method", lambda x: x.polygamma(3), [(0.7, 4.0)]),
    ("i0", ops.i0, [(-3.0, 3.0)]),
    ("i1", ops.i1, [(-3.0, 3.0)]),
    ("xlogy", ops.xlogy, [(-2.0, 2.0), (0.3, 3.0)]),
    ("logit", ops.logit, [(0.1, 0.9)]),
    ("logit-eps", lambda x: ops.logit(x, eps=0.25), [(0.05, 0.95)]),
    ("expit", ops.expit, [(-4.0, 4.0)]),
]


def _inputs(ranges, seed=0, shape=(5,)):
    g = ag.Generator().manual_seed(seed)
    return tuple((ag.rand(*shape, generator=g, dtype=ag.float64) * (hi - lo) + lo)
                 .requires_grad_(True) for lo, hi in ranges)


@pytest.mark.parametrize("name,fn,ranges", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck(name, fn, ranges):
    assert gradcheck(fn, _inputs(ranges))


@pytest.mark.parametrize("name,fn,ranges", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradgradcheck(name, fn, ranges):
    assert gradgradcheck(fn, _inputs(ranges, seed=1))


_PORTABLE_GRAD = [c for c in GRAD_CASES if c[0] in {
    "erf", "erfc", "erfinv", "lgamma", "digamma", "polygamma2", "i0", "i1", "xlogy", "logit",
    "expit"}]


@pytest.mark.parametrize("name,fn,ranges", _PORTABLE_GRAD, ids=[c[0] for c in _PORTABLE_GRAD])
def test_gradcheck_portable_path(name, fn, ranges, monkeypatch):
    """With no kernel (as on a backend SciPy does not serve) the portable forward is used."""
    monkeypatch.setattr(ops, "dispatch_kernel",
                        lambda name, backend, portable, *args: portable(*args))
    # erf is the core's op, which finds the plugin's kernel in the registry itself
    monkeypatch.delitem(registry._state.kernels, ("erf", "numpy"), raising=False)
    assert gradcheck(fn, _inputs(ranges))
    assert gradgradcheck(fn, _inputs(ranges, seed=1))


def test_xlogy_broadcast_grads():
    x = _inputs([(-2.0, 2.0)], shape=(2, 3))[0]
    y = _inputs([(0.5, 3.0)], shape=(3,))[0]
    assert gradcheck(ops.xlogy, (x, y))
    assert gradgradcheck(ops.xlogy, (x, y))
    assert gradcheck(lambda a: ops.xlogy(a, 2.5), (x,))
    assert gradcheck(lambda b: ops.xlogy(1.5, b), (y,))


def test_xlogy_grad_at_zero_matches_pytorch():
    """d/dx xlogy(x, y) is 0 where x == 0, even at y == 0 (PyTorch's convention)."""
    x = ag.tensor([0.0, 2.0], dtype=ag.float64, requires_grad=True)
    y = ag.tensor([0.0, 3.0], dtype=ag.float64)
    ops.xlogy(x, y).sum().backward()
    assert x.grad.tolist()[0] == 0.0


def test_logit_eps_grad_is_zero_outside():
    x = ag.tensor([0.05, 0.5, 0.95], dtype=ag.float64, requires_grad=True)
    ops.logit(x, eps=0.1).sum().backward()
    g = x.grad.tolist()
    assert g[0] == 0.0 and g[2] == 0.0 and g[1] == pytest.approx(4.0)


def test_i1_grad_at_zero():
    x = ag.tensor([0.0], dtype=ag.float64, requires_grad=True)
    (g,) = ag.autograd.grad(ops.i1(x).sum(), x, create_graph=True)
    assert g.item() == 0.5
    (gg,) = ag.autograd.grad(g.sum(), x)
    assert gg.item() == 0.0  # i1''(0) = 0, and no nan leaks from the x == 0 branch


def test_third_derivative_of_lgamma_is_polygamma2():
    x = ag.tensor([1.7], dtype=ag.float64, requires_grad=True)
    (g1,) = ag.autograd.grad(ops.lgamma(x).sum(), x, create_graph=True)
    (g2,) = ag.autograd.grad(g1.sum(), x, create_graph=True)
    (g3,) = ag.autograd.grad(g2.sum(), x)
    assert g3.item() == pytest.approx(ops.polygamma(2, x).item(), rel=1e-12)


def test_grad_fn_names_match_pytorch():
    x = ag.tensor([0.5], dtype=ag.float64, requires_grad=True)
    names = {"erf": ops.erf(x), "erfinv": ops.erfinv(x), "lgamma": ops.lgamma(x),
             "digamma": ops.digamma(x), "polygamma": ops.polygamma(1, x), "i0": ops.i0(x),
             "logit": ops.logit(x), "expit": ops.expit(x), "xlogy": ops.xlogy(x, x)}
    assert {k: type(v.grad_fn).__name__ for k, v in names.items()} == {
        "erf": "ErfBackward0", "erfinv": "ErfinvBackward0", "lgamma": "LgammaBackward0",
        "digamma": "DigammaBackward0", "polygamma": "PolygammaBackward0", "i0": "I0Backward0",
        "logit": "LogitBackward0", "expit": "SigmoidBackward0", "xlogy": "XlogyBackward0"}


@pytest.mark.parametrize("op_name", sorted(n for n, d in registry.ops().items()
                                           if d.plugin == "special"))
def test_every_op_has_conformance_cases(op_name):
    """Each registered op carries OpCases; run their grad and double-grad checks directly."""
    from arraygrad.conformance import InputMaker

    cases = registry.get_op(op_name).cases
    assert cases, f"{op_name} has no conformance cases"
    for case in cases:
        make = InputMaker("cpu", ag.float64)
        inputs = tuple(case.inputs(make))
        assert gradcheck(case.fn, inputs, atol=case.grad_atol, rtol=case.grad_rtol)
        make = InputMaker("cpu", ag.float64, seed=1)
        assert gradgradcheck(case.fn, tuple(case.inputs(make)), atol=case.grad_atol,
                             rtol=case.grad_rtol)
