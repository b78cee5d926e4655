"""The in-place methods PyTorch has for elementwise ops (``sin_``, ``eq_``, ``bitwise_and_``...)
and the in-place view ops (``unsqueeze_``, ``t_``, ``transpose_``...)."""

import math

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

ELEMENTWISE = ["absolute_", "ceil_", "cos_", "expm1_", "floor_", "log1p_", "negative_", "sin_",
               "tan_", "trunc_", "erf_", "erfc_"]
BINARY = ["divide_", "multiply_", "subtract_", "true_divide_", "eq_", "ne_", "lt_", "le_",
          "gt_", "ge_", "greater_", "less_", "greater_equal_", "less_equal_", "not_equal_",
          "logical_and_", "logical_or_", "logical_xor_"]


def test_elementwise_inplace_writes_back_and_records():
    x = ag.tensor([0.3, -1.2, 2.5], dtype=ag.float64, requires_grad=True)
    y = x * 1.0
    assert y.sin_() is y
    y.sum().backward()
    assert x.grad.tolist() == pytest.approx([math.cos(v) for v in (0.3, -1.2, 2.5)])
    t = ag.tensor([1.5, -0.5])
    t.floor_()
    assert t.tolist() == [1.0, -1.0]


def test_comparisons_in_place_keep_the_dtype():
    a = ag.tensor([1.0, 2.0, 3.0])
    a.lt_(ag.tensor([2.0, 2.0, 2.0]))
    assert a.dtype == ag.float32 and a.tolist() == [1.0, 0.0, 0.0]
    b = ag.tensor([5, 3])
    b.bitwise_and_(ag.tensor([1, 1]))
    assert b.tolist() == [1, 1]
    assert ag.tensor([6, 3]).bitwise_xor(ag.tensor([3, 3])).tolist() == [5, 0]
    c = ag.tensor([1.0, 2.0, 3.0])
    c.cumsum_(0)
    assert c.tolist() == [1.0, 3.0, 6.0]


def test_view_inplace_changes_shape_and_keeps_gradients():
    w = ag.ones(2, 3, requires_grad=True)
    y = w * 2
    y.unsqueeze_(0)
    assert y.shape == (1, 2, 3)
    y.squeeze_(0)
    y.transpose_(0, 1)
    assert y.shape == (3, 2) and not y.is_contiguous()
    (y * ag.arange(6.0).reshape(3, 2)).sum().backward()
    assert w.grad.tolist() == [[0.0, 4.0, 8.0], [2.0, 6.0, 10.0]]
    plain = ag.zeros(2, 3)
    plain.swapdims_(0, 1)
    assert plain.shape == (3, 2) and plain._base is None
    base = ag.zeros(2, 3)
    row = base[1]
    row.unsqueeze_(0)
    row.add_(7)
    assert base.tolist() == [[0.0] * 3, [7.0] * 3]  # still a view of base


def test_view_inplace_on_a_leaf_that_requires_grad_is_refused():
    leaf = ag.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.unsqueeze_(0)
    assert leaf.shape == (2,)
    with pytest.raises(IndexError):
        ag.ones(2).transpose_(0, 5)


@needs_torch
@pytest.mark.parametrize("name", ELEMENTWISE + BINARY)
def test_inplace_methods_match_torch(name):
    data = [0.25, -1.5, 2.0, 0.0]
    other = [0.25, 1.0, -2.0, 3.0]
    ours, theirs = ag.tensor(data, dtype=ag.float64), torch.tensor(data, dtype=torch.float64)
    args_o = (ag.tensor(other, dtype=ag.float64),) if name in BINARY else ()
    args_t = (torch.tensor(other, dtype=torch.float64),) if name in BINARY else ()
    getattr(ours, name)(*args_o)
    getattr(theirs, name)(*args_t)
    assert ours.dtype == ag.float64
    assert ours.tolist() == pytest.approx(theirs.tolist(), rel=1e-12, nan_ok=True)
