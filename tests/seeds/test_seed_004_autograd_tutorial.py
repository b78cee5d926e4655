"""Seed 004: requires_grad three ways, the graph of d = sum(a + b), and y = x^2 e^x."""

import arraygrad as t


def test_three_ways_to_require_grad():
    a = t.randn(3, 4, requires_grad=True)
    b = t.randn(3, 4).requires_grad_()
    c = t.randn(3, 4)
    c.requires_grad = True
    assert a.requires_grad and b.requires_grad and c.requires_grad


def test_sum_of_sum_graph():
    a = t.randn(3, 4, requires_grad=True)
    b = t.zeros(3, 4).requires_grad_()
    c = a + b
    d = c.sum()
    d.backward()
    assert d.requires_grad is True
    assert repr(a.grad) == ("tensor([[1., 1., 1., 1.],\n        [1., 1., 1., 1.],\n"
                            "        [1., 1., 1., 1.]])")
    assert (a.requires_grad, b.requires_grad, c.requires_grad) == (True, True, True)
    assert (a.is_leaf, b.is_leaf, c.is_leaf) == (True, True, False)


def f(x):
    return x ** 2 * t.exp(x)


def gradf(x):
    return 2 * x * t.exp(x) + x ** 2 * t.exp(x)


def test_autograd_matches_hand_derivative():
    t.manual_seed(4)
    x = t.randn(3, 4, requires_grad=True)
    y = f(x)
    assert y.grad_fn.name() == "MulBackward0"
    assert repr(y).endswith("grad_fn=<MulBackward0>)")
    y.backward(t.ones(y.size()))
    expected = gradf(x)
    assert expected.grad_fn.name() == "AddBackward0"
    diff = (x.grad - expected.detach()).abs().max().item()
    assert diff < 1e-5


def test_grad_of_intermediate_and_leaf():
    x = t.ones(3, requires_grad=True)
    w = t.rand(3, requires_grad=True)
    y = x * w
    z = y.sum()
    (gy,) = t.autograd.grad(z, y, retain_graph=True)
    assert gy.tolist() == [1, 1, 1]
    (gx,) = t.autograd.grad(z, x)
    assert gx.tolist() == w.detach().tolist()


class Mul(t.autograd.Function):
    """w * x + b with an optional non-tensor flag, as in the seed."""

    @staticmethod
    def forward(ctx, w, x, b, x_requires_grad=True):
        ctx.x_requires_grad = x_requires_grad
        ctx.save_for_backward(w, x)
        return w * x + b

    @staticmethod
    def backward(ctx, grad_output):
        w, x = ctx.saved_tensors
        grad_w = grad_output * x
        grad_x = grad_output * w if ctx.x_requires_grad else None
        grad_b = grad_output * 1
        return grad_w, grad_x, grad_b, None


def test_custom_function_with_non_tensor_argument():
    w = t.tensor([2.], requires_grad=True)
    x = t.tensor([3.], requires_grad=True)
    b = t.tensor([1.], requires_grad=True)
    z = Mul.apply(w, x, b, False)
    z.backward()
    assert (w.grad.tolist(), x.grad, b.grad.tolist()) == ([3.0], None, [1.0])
    x2 = t.tensor([3.], requires_grad=True)
    Mul.apply(w, x2, b, True).backward()
    assert x2.grad.tolist() == [2.0]
