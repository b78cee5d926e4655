"""Seed 002: ``Tensor.register_hook`` experiments, with the printed numbers."""

import arraygrad as ag


def test_doubling_hook_then_removed():
    ag.manual_seed(20200910)
    v = ag.tensor([0., 0., 0.], requires_grad=True)
    h = v.register_hook(lambda grad: grad * 2)
    assert v.grad is None
    v.backward(ag.tensor([1., 2., 3.]))
    assert repr(v.grad) == "tensor([2., 4., 6.])"
    h.remove()
    assert repr(v.grad.zero_()) == "tensor([0., 0., 0.])"
    v.backward(ag.tensor([1., 2., 3.]))
    assert repr(v.grad) == "tensor([1., 2., 3.])"


def test_no_hook():
    v = ag.tensor([0., 0., 0.], requires_grad=True)
    v.backward(ag.tensor([1., 2., 3.]))
    assert repr(v.grad) == "tensor([1., 2., 3.])"


def test_backward_with_gradient_weights():
    v = ag.tensor([7., 8., 9.], requires_grad=True)
    y = 2 * v ** 2
    y.backward(ag.tensor([1., 2., 3.]))
    assert repr(v.grad) == "tensor([ 28.,  64., 108.])"  # 4 * v * alpha


def test_hook_collects_gradient_of_intermediate(capsys):
    y_grad = []

    def grad_hook(grad):
        y_grad.append(grad)
        print("hook ran")

    x = ag.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    y = x ** 2 + 1
    y.register_hook(grad_hook)
    z = ag.mean(y * y)
    assert z.grad is None and x.grad is None and y_grad == []
    z.backward()
    assert capsys.readouterr().out == "hook ran\n"
    assert repr(y_grad) == "[tensor([[1.0000, 2.5000],\n        [5.0000, 8.5000]])]"
    assert repr(x.grad) == "tensor([[ 2., 10.],\n        [30., 68.]])"  # x^3 + x


def test_hook_on_leaf_scales_gradient_and_retain_graph():
    x = ag.tensor([2., 2., 2., 2.], requires_grad=True)
    y = ag.pow(x, 2)
    z = ag.mean(y)
    h = x.register_hook(lambda grad: grad * 20200910.0)
    z.backward(retain_graph=True)
    assert repr(x.grad) == "tensor([20200910., 20200910., 20200910., 20200910.])"
    h.remove()
    assert repr(x.grad.zero_()) == "tensor([0., 0., 0., 0.])"
    z.backward()
    assert repr(x.grad) == "tensor([1., 1., 1., 1.])"
