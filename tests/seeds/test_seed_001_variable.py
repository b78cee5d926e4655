"""Seed 001: the legacy ``Variable`` walkthrough (PyTorch 0.3 era), on today's semantics.

Where the seed's old PyTorch differs from PyTorch >= 0.4 (and so from arraygrad),
the test follows today's behaviour and says so:
- ``arange(-2, 4)`` is an integer tensor now, which cannot require grad, so
  the examples use ``arange(-2., 4)``;
- iterating a 1-D tensor yields 0-dim tensors, so ``ii.data[0]`` becomes ``ii.data``;
- ``volatile=True`` has no effect any more (it warns);
- ``y.backward(V(t.Tensor([1, 1, 1])))`` works now (the seed hit an old bug).
"""

import warnings

import pytest

import arraygrad as t
from arraygrad.autograd import Variable as V

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_grad_fn_of_add_points_to_mul_and_leaf():
    x = V(t.ones(1))
    b = V(t.rand(1), requires_grad=True)
    w = V(t.rand(1), requires_grad=True)
    y = w * x
    z = y + b
    assert z.grad_fn.name() == "AddBackward0"
    (mul_fn, _), (acc_fn, _) = z.grad_fn.next_functions
    assert mul_fn.name() == "MulBackward0"
    assert acc_fn.name() == "AccumulateGrad" and acc_fn.variable is b


def _abs(x):
    if x.data[0] > 0:
        return x
    return -x


def test_data_dependent_control_flow_positive():
    x = V(t.ones(1), requires_grad=True)
    _abs(x).backward()
    assert x.grad.tolist() == [1.0]


def test_data_dependent_control_flow_negative():
    x = V(-1 * t.ones(1), requires_grad=True)
    _abs(x).backward()
    assert x.grad.tolist() == [-1.0]


def test_product_of_positive_elements():
    def f(x):
        result = 1
        for ii in x:
            if ii.data > 0:
                result = ii * result
        return result

    x = V(t.arange(-2., 4), requires_grad=True)
    y = f(x)  # y = x[3] * x[4] * x[5]
    y.backward()
    assert x.grad.tolist() == [0, 0, 0, 6, 3, 2]


def test_requires_grad_propagates():
    x = V(t.ones(1))
    w = V(t.rand(1), requires_grad=True)
    y = x * w
    assert (x.requires_grad, w.requires_grad, y.requires_grad) == (False, True, True)


def test_volatile_is_accepted_with_a_warning_and_ignored():
    with pytest.warns(UserWarning, match="volatile"):
        x = V(t.ones(1), volatile=True)
    w = V(t.rand(1), requires_grad=True)
    y = x * w
    # the seed (PyTorch 0.3) printed (False, True, False); volatile has no effect today
    assert (x.requires_grad, w.requires_grad, y.requires_grad) == (False, True, True)


def test_non_leaf_grad_is_none_after_backward():
    x = V(t.ones(3), requires_grad=True)
    w = V(t.ones(3), requires_grad=True)
    y = x * w
    z = y.sum()
    assert (x.requires_grad, w.requires_grad, y.requires_grad) == (True, True, True)
    z.backward()
    assert x.grad.tolist() == [1, 1, 1]
    assert w.grad.tolist() == [1, 1, 1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert y.grad is None
    assert any("not a leaf Tensor" in str(c.message) for c in caught)


def test_autograd_grad_of_intermediate():
    x = V(t.ones(3), requires_grad=True)
    w = V(t.rand(3), requires_grad=True)
    y = x * w
    z = y.sum()
    (g,) = t.autograd.grad(z, y)
    assert g.tolist() == [1, 1, 1]


def test_hook_prints_intermediate_gradient(capsys):
    def variable_hook(grad):
        print("y grad:", grad)

    x = V(t.ones(3), requires_grad=True)
    w = V(t.rand(3), requires_grad=True)
    y = x * w
    hook_handle = y.register_hook(variable_hook)
    z = y.sum()
    z.backward()
    hook_handle.remove()
    assert capsys.readouterr().out == "y grad: tensor([1., 1., 1.])\n"


def test_polynomial_gradient_from_root():
    x = V(t.arange(0., 3), requires_grad=True)
    y = x ** 2 + x * 2
    z = y.sum()
    z.backward()
    assert x.grad.tolist() == [2, 4, 6]


def test_polynomial_gradient_from_intermediate_with_legacy_tensor():
    x = V(t.arange(0., 3), requires_grad=True)
    y = x ** 2 + x * 2
    y.backward(V(t.Tensor([1, 1, 1])))
    assert x.grad.tolist() == [2, 4, 6]
