"""A number on the left of a tensor operator records PyTorch's graph: the tensor's edge first,
and no edge for the number where PyTorch's op has a scalar overload (issue 23, bug 3)."""

import pytest

import arraygrad as ag

# expression, PyTorch's node name, its next_functions (names, None for the number)
CASES = [
    ("radd", lambda b: 2 + b, "AddBackward0", ["AccumulateGrad", None]),
    ("rmul", lambda b: 2 * b, "MulBackward0", ["AccumulateGrad", None]),
    ("rsub", lambda b: 2 - b, "RsubBackward1", ["AccumulateGrad"]),
    ("rtruediv", lambda b: 2 / b, "MulBackward0", ["ReciprocalBackward0", None]),
    ("rpow", lambda b: 2 ** b, "PowBackward2", ["AccumulateGrad"]),
]


def _edges(y):
    return [None if n is None else n.name() for n, _ in y.grad_fn.next_functions]


@pytest.mark.parametrize("name, expr, node, edges", CASES, ids=[c[0] for c in CASES])
def test_reflected_operator_records_pytorchs_edges(name, expr, node, edges):
    b = ag.tensor([1.5, 2.5, 0.5], dtype=ag.float64, requires_grad=True)
    y = expr(b)
    assert y.grad_fn.name() == node
    assert _edges(y) == edges


@pytest.mark.parametrize("expr", [lambda b: 7 // b, lambda b: 7 % b], ids=["rfloordiv", "rmod"])
def test_reflected_floor_division_and_remainder_have_one_edge(expr):
    b = ag.tensor([1.5, 2.5], dtype=ag.float64, requires_grad=True)
    assert _edges(expr(b)) == ["AccumulateGrad"]


@pytest.mark.parametrize("name, expr, node, edges", CASES, ids=[c[0] for c in CASES])
def test_reflected_operators_match_pytorch(name, expr, node, edges):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    values = [1.5, 2.5, 0.5]
    b = ag.tensor(values, dtype=ag.float64, requires_grad=True)
    tb = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    y, ty = expr(b), expr(tb)
    assert y.grad_fn.name() == ty.grad_fn.name()
    assert _edges(y) == [None if n is None else type(n).__name__ for n, _ in ty.grad_fn.next_functions]
    assert y.tolist() == pytest.approx(ty.tolist(), rel=1e-15)
    (g,), (tg,) = ag.autograd.grad(y.sum(), b), torch.autograd.grad(ty.sum(), tb)
    assert g.tolist() == pytest.approx(tg.tolist(), rel=1e-14)


@pytest.mark.parametrize("expr", [lambda b: 2 - b, lambda b: 2 ** b, lambda b: 3 / b,
                                  lambda b: 7 % b, lambda b: 2.5 - b],
                         ids=["rsub", "rpow", "rtruediv", "rmod", "rsub-float"])
def test_reflected_gradients_pass_gradcheck(expr):
    b = ag.tensor([1.3, 2.6, 0.9], dtype=ag.float64, requires_grad=True)
    assert ag.autograd.gradcheck(expr, (b,))
    assert ag.autograd.gradgradcheck(expr, (b,))


@pytest.mark.parametrize("expr", [lambda b: 2 - b, lambda b: 2 ** b, lambda b: 2 / b,
                                  lambda b: 7 // b, lambda b: 7 % b, lambda b: 2.5 - b],
                         ids=["rsub", "rpow", "rtruediv", "rfloordiv", "rmod", "rsub-float"])
def test_reflected_dtypes_match_pytorch_on_integers(expr):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    y, ty = expr(ag.tensor([1, 2, 3])), expr(torch.tensor([1, 2, 3]))
    assert y.dtype.name == str(ty.dtype).split(".")[1]
    assert y.tolist() == pytest.approx(ty.tolist())


def test_reflected_subtraction_of_bool_tensor_is_refused():
    with pytest.raises(RuntimeError, match="Subtraction"):
        1 - ag.tensor([True, False])


def test_reflected_integer_power_refuses_negative_exponents():
    with pytest.raises(RuntimeError, match="negative integer powers"):
        2 ** ag.tensor([1, -1])
