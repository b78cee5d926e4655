"""Seed 003: a tour of ``torch.autograd`` (backward, grad, no_grad, detach, hooks, Function,
gradcheck/gradgradcheck). The profiler section is tested with the profiler itself."""

import pytest

import arraygrad as ag


def _abc():
    a = ag.tensor([1., 2.], requires_grad=True)
    b = ag.tensor([1., 2.], requires_grad=True)
    return a, b, 2 * a + 3 * b + 1


def test_requires_grad_flows_to_children():
    a = ag.tensor([1.], requires_grad=True)
    assert (a + 1).requires_grad is True


def test_autograd_backward_and_freed_graph():
    a, b, c = _abc()
    grad = ag.tensor([1., 1.])
    ag.autograd.backward(c, grad_tensors=grad)
    assert repr(a.grad) == "tensor([2., 2.])"
    assert repr(b.grad) == "tensor([3., 3.])"
    with pytest.warns(UserWarning, match="not a leaf"):
        assert c.grad is None
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        ag.autograd.backward(c, grad_tensors=grad)


def test_autograd_grad_of_leaves_and_intermediate():
    a, b, c = _abc()
    d = 2 * c + 1
    grad = ag.tensor([1., 1.])
    result = ag.autograd.grad(d, (a, b, c), grad)
    assert repr(result) == "(tensor([4., 4.]), tensor([6., 6.]), tensor([2., 2.]))"
    assert (a.grad, b.grad) == (None, None)
    with pytest.raises(RuntimeError, match="second time"):
        ag.autograd.grad(d, a, grad)


def test_four_ways_to_stop_recording():
    x = ag.tensor([1.], requires_grad=True)
    with ag.no_grad():
        y = x * 2
    assert y.requires_grad is False

    @ag.no_grad()
    def doubler(x):
        return x * 2

    assert doubler(x).requires_grad is False
    with ag.set_grad_enabled(False):
        y = x * 2
    assert y.requires_grad is False
    ag.set_grad_enabled(False)
    try:
        y = x * 2
        assert y.requires_grad is False
    finally:
        ag.set_grad_enabled(True)
    assert (x * 2).requires_grad is True


def test_detach_and_detach_():
    _, _, c = _abc()
    cc = c.detach()
    assert cc.requires_grad is False
    assert repr(cc) == "tensor([ 6., 11.])"
    cc = c.detach_()
    assert cc is c and cc.requires_grad is False
    assert repr(cc) == "tensor([ 6., 11.])"


def test_is_leaf():
    a, b, c = _abc()
    assert (c.is_leaf, a.is_leaf) == (False, True)


def test_register_hook_on_intermediate(capsys):
    _, _, c = _abc()
    d = 2 * c + 1
    c.register_hook(print)
    d.backward(ag.tensor([1., 1.]))
    assert capsys.readouterr().out == "tensor([2., 2.])\n"


def test_retain_grad():
    _, _, c = _abc()
    d = 2 * c + 1
    c.retain_grad()
    d.backward(ag.tensor([1., 1.]))
    assert repr(c.grad) == "tensor([2., 2.])"


class Func(ag.autograd.Function):
    """3*x + 2*y + exp(x) + exp(y), as in the seed."""

    @staticmethod
    def forward(ctx, x, y):
        expx = ag.exp(x)
        expy = ag.exp(y)
        result = 3 * x + 2 * y + expx + expy
        ctx.save_for_backward(expx, expy)
        return result

    @staticmethod
    def backward(ctx, grad_output):
        expx, expy, = ctx.saved_tensors
        grad_x = grad_output * (3 + expx)
        grad_y = grad_output * (2 + expy)
        return grad_x, grad_y


def test_custom_function():
    myfunc = Func.apply
    x = ag.tensor([1., 2.], requires_grad=True)
    y = ag.tensor([3., 4.], requires_grad=True)
    z = myfunc(x, y)
    z.backward(ag.tensor([1., 1.]))
    assert repr((x.grad, y.grad)) == "(tensor([ 5.7183, 10.3891]), tensor([22.0855, 56.5981]))"


def test_gradcheck_passes_on_custom_function():
    ag.manual_seed(0)
    iptx = ag.randn(20, requires_grad=True).double()
    ipty = ag.randn(20, requires_grad=True).double()
    assert ag.autograd.gradcheck(Func.apply, (iptx, ipty), atol=1e-4) is True


def test_gradgradcheck_fails_because_backward_uses_constants():
    # The seed: "the function above cannot pass the check". Its backward multiplies by
    # exp(x) saved from a forward that ran without recording, so the second derivative
    # exp(x) is missing: gradgradcheck must say so.
    ag.manual_seed(0)
    iptx = ag.randn(20, requires_grad=True).double()
    ipty = ag.randn(20, requires_grad=True).double()
    assert ag.autograd.gradgradcheck(Func.apply, (iptx, ipty), raise_exception=False) is False
    with pytest.raises(ag.autograd.GradcheckError, match="input 0"):
        ag.autograd.gradgradcheck(Func.apply, (iptx, ipty))
