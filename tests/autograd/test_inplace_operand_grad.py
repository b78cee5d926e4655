"""In-place ops whose *operand* requires grad, into a tensor that does not (issue 12's
differential findings): PyTorch records them and gives the operand its gradient; arraygrad
raised "modified by an inplace operation". Setitem of a requires-grad value into an integer
tensor leaves that tensor an integer tensor that does not require grad."""

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


@pytest.mark.parametrize("op, expected", [
    ("div_", [-0.25] * 3),          # d(a / b)/db = -a / b**2 with a = 1, b = 2
    ("mul_", [1.0] * 3),            # d(a * b)/db = a
    ("pow_", [0.0] * 3),            # d(a ** b)/db = a**b log(a) = 0 at a = 1
    ("add_", [1.0] * 3),
    ("sub_", [-1.0] * 3),
])
def test_operand_that_requires_grad_gets_its_gradient(op, expected):
    a = ag.ones(3, dtype=ag.float64)
    b = ag.full((3,), 2.0, dtype=ag.float64, requires_grad=True)
    getattr(a, op)(b)
    assert a.requires_grad and a.grad_fn is not None
    a.sum().backward()
    assert b.grad.tolist() == pytest.approx(expected)


def test_the_old_value_is_what_the_gradient_uses():
    a = ag.tensor([1.0, 3.0], dtype=ag.float64)
    b = ag.tensor([2.0, 4.0], dtype=ag.float64, requires_grad=True)
    a.div_(b)  # the node saves a's old value (1, 3), not the quotient written into a
    a.sum().backward()
    assert b.grad.tolist() == pytest.approx([-1.0 / 4.0, -3.0 / 16.0])


def test_setitem_of_a_requires_grad_value_into_an_int_tensor():
    t = ag.zeros(3, dtype=ag.int64)
    v = ag.tensor(5.0, requires_grad=True)
    t[0] = v
    assert t.tolist() == [5, 0, 0]
    assert t.dtype is ag.int64 and not t.requires_grad and t.grad_fn is None


@needs_torch
@pytest.mark.parametrize("op", ["div_", "mul_", "pow_", "add_", "sub_"])
def test_matches_pytorch(op):
    a, b = ag.tensor([1.5, 0.5], dtype=ag.float64), ag.tensor([2.0, 3.0], dtype=ag.float64,
                                                               requires_grad=True)
    ta, tb = torch.tensor([1.5, 0.5], dtype=torch.float64), torch.tensor(
        [2.0, 3.0], dtype=torch.float64, requires_grad=True)
    getattr(a, op)(b)
    getattr(ta, op)(tb)
    (a * a).sum().backward()
    (ta * ta).sum().backward()
    assert a.tolist() == pytest.approx(ta.tolist())
    assert b.grad.tolist() == pytest.approx(tb.grad.tolist())
