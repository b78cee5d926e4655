"""``autograd.functional`` against analytic Jacobians and Hessians."""

import pytest

import arraygrad as ag
from arraygrad.autograd import functional as F


def test_vjp_and_jvp_of_square():
    x = ag.tensor([1., 2.])
    out, v = F.vjp(lambda t: t ** 2, x, ag.tensor([1., 10.]))
    assert out.tolist() == [1., 4.] and v.tolist() == [2., 40.]
    out, jv = F.jvp(lambda t: t ** 2, x, ag.tensor([1., 10.]))
    assert jv.tolist() == [2., 40.]
    assert not v.requires_grad and not jv.requires_grad


def test_jacobian_shapes_and_values():
    x = ag.tensor([1., 2.])
    y = ag.tensor([3., 4.])
    (jxx, jxy), (jsx, jsy) = F.jacobian(lambda a, b: (a * b, a + b), (x, y))
    assert jxx.tolist() == [[3., 0.], [0., 4.]] and jxy.tolist() == [[1., 0.], [0., 2.]]
    assert jsx.tolist() == [[1., 0.], [0., 1.]] == jsy.tolist()
    j = F.jacobian(lambda a: a.reshape(2, 1) * a, x)
    assert tuple(j.shape) == (2, 2, 2)


def test_hessian_of_cubic_and_mixed():
    x = ag.tensor([1., 2.], dtype=ag.float64)
    assert F.hessian(lambda a: (a ** 3).sum(), x).tolist() == [[6., 0.], [0., 12.]]
    y = ag.tensor([3., 4.], dtype=ag.float64)
    (hxx, hxy), (hyx, hyy) = F.hessian(lambda a, b: (a ** 2 * b).sum(), (x, y))
    assert hxx.tolist() == [[6., 0.], [0., 8.]]
    assert hxy.tolist() == [[2., 0.], [0., 4.]] == hyx.tolist()
    assert hyy.tolist() == [[0., 0.], [0., 0.]]


def test_hvp_vhp():
    x = ag.tensor([1., 2.])
    out, hv = F.hvp(lambda a: (a ** 3).sum(), x, ag.tensor([1., 1.]))
    assert out.item() == 9. and hv.tolist() == [6., 12.]
    _, vh = F.vhp(lambda a: (a ** 3).sum(), x, ag.tensor([1., 1.]))
    assert vh.tolist() == [6., 12.]


def test_strict_mode_raises_for_independent_outputs():
    x = ag.tensor([1., 2.])
    assert F.jacobian(lambda a: ag.ones(2), x).tolist() == [[0., 0.], [0., 0.]]
    with pytest.raises(RuntimeError, match="independent"):
        F.jacobian(lambda a: ag.ones(2), x, strict=True)
    with pytest.raises(RuntimeError):
        F.vjp(lambda a: ag.ones(2), x, ag.ones(2), strict=True)


def test_create_graph_results_are_differentiable():
    x = ag.tensor([2.], requires_grad=True)
    _, v = F.vjp(lambda a: a ** 3, x, ag.ones(1), create_graph=True)
    assert v.requires_grad
    (g,) = ag.autograd.grad(v.sum(), x)
    assert g.tolist() == [12.]


def test_vectorize_gives_the_identity_jacobian_and_forward_mode_needs_it():
    # vectorize=True is implemented (on vmap, tests/func/test_functional_vectorize.py); what
    # PyTorch refuses is still refused: forward mode without vectorize
    assert F.jacobian(lambda a: a, ag.ones(2), vectorize=True).tolist() == [[1., 0.], [0., 1.]]
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        F.jacobian(lambda a: a, ag.ones(2), strategy="forward-mode")


def test_v_shape_mismatch():
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        F.vjp(lambda a: a * 2, ag.ones(2), ag.ones(3))
