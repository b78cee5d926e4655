"""Error cases: PyTorch's exception classes, messages naming the op and shapes, and inputs
left untouched after a failed op."""

from __future__ import annotations

import re

import pytest

import arraygrad as ag


def snapshot(t):
    return (t.tolist(), t.requires_grad, None if t.grad is None else t.grad.tolist(), t._version,
            t.grad_fn, tuple(t.shape), t.dtype)


def make_leaves():
    a = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    b = ag.tensor([1.0, 2.0], requires_grad=True)
    # give them a gradient so we can see it is not touched
    (a.sum() + b.sum()).backward()
    return a, b


def assert_raises_unchanged(exc, match, fn, *tensors):
    before = [snapshot(t) for t in tensors]
    with pytest.raises(exc, match=match):
        fn(*tensors)
    assert [snapshot(t) for t in tensors] == before


BINARY_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "floor_divide": lambda a, b: a // b,
    "remainder": lambda a, b: a % b,
    "pow": lambda a, b: a ** b,
    "maximum": ag.maximum,
    "minimum": ag.minimum,
    "eq": lambda a, b: a == b,
    "lt": lambda a, b: a < b,
    "ge": lambda a, b: a >= b,
    "logical_and": ag.logical_and,
    "where": lambda a, b: ag.where(a > 0, a, b),
}


@pytest.mark.parametrize("name", sorted(BINARY_OPS))
def test_binary_broadcast_mismatch_names_op_and_shapes(name):
    a, b = make_leaves()  # shapes [2, 3] and [2]
    pattern = rf"{name}.*\[2, 3\].*\[2\]"
    assert_raises_unchanged(RuntimeError, pattern, BINARY_OPS[name], a, b)
    assert_raises_unchanged(RuntimeError, rf"\[2\].*\[2, 3\]", lambda x, y: BINARY_OPS[name](y, x),
                            a, b)


@pytest.mark.parametrize("name", ["add", "mul", "sub", "div", "maximum"])
def test_binary_broadcast_mismatch_in_leading_dims(name):
    a = ag.ones(2, 3, 4, requires_grad=True)
    b = ag.ones(3, 3, 1)
    assert_raises_unchanged(RuntimeError, rf"{name}.*\[2, 3, 4\].*\[3, 3, 1\]", BINARY_OPS[name],
                            a, b)


def test_inplace_broadcast_mismatch_leaves_tensor_unchanged():
    x = ag.ones(2, 3)
    y = ag.ones(3, 1)
    assert_raises_unchanged(RuntimeError, r"\[2, 3\].*\[3, 1\]", lambda p, q: p.add_(q), x, y)
    z = ag.ones(3)
    assert_raises_unchanged(RuntimeError, r"\[3\].*\[2, 3\]", lambda p, q: p.mul_(q), z, x)


@pytest.mark.parametrize("sa, sb", [((2, 3), (2, 3)), ((3,), (4,)), ((2, 3), (4,)),
                                    ((5,), (2, 3)), ((2, 2, 3), (2, 4, 2))])
def test_matmul_inner_dim_mismatch(sa, sb):
    a = ag.ones(*sa, requires_grad=True)
    b = ag.ones(*sb, requires_grad=True)
    pattern = "x".join(map(str, sa)) + r".*" + "x".join(map(str, sb))
    assert_raises_unchanged(RuntimeError, pattern, lambda x, y: x @ y, a, b)


def test_matmul_batch_mismatch_and_linalg_shape_checks():
    a, b = ag.ones(2, 2, 3), ag.ones(3, 3, 2)
    assert_raises_unchanged(RuntimeError, "matmul", lambda x, y: x @ y, a, b)
    assert_raises_unchanged(RuntimeError, "mm", ag.mm, ag.ones(2, 3), ag.ones(3))
    assert_raises_unchanged(RuntimeError, "bmm", ag.bmm, ag.ones(2, 2, 3), ag.ones(3, 3, 2))
    assert_raises_unchanged(RuntimeError, "mv", ag.mv, ag.ones(2, 3), ag.ones(2))
    assert_raises_unchanged(RuntimeError, "dot", ag.dot, ag.ones(3), ag.ones(4))
    assert_raises_unchanged(RuntimeError, "1D", ag.dot, ag.ones(3), ag.ones(3, 1))
    assert_raises_unchanged(RuntimeError, r"dtype", ag.matmul, ag.ones(2, 2),
                            ag.ones(2, 2, dtype=ag.float64))
    assert_raises_unchanged(RuntimeError, r"1 dimension", ag.matmul, ag.ones(2), ag.tensor(1.0))


def test_cat_and_stack_shape_mismatch():
    a = ag.ones(2, 3, requires_grad=True)
    b = ag.ones(2, 4, requires_grad=True)
    assert_raises_unchanged(RuntimeError, r"Sizes of tensors must match.*\[2, 3\].*\[2, 4\]",
                            lambda x, y: ag.cat([x, y], 0), a, b)
    assert_raises_unchanged(RuntimeError, "stack expects each tensor to be equal size",
                            lambda x, y: ag.stack([x, y]), a, b)
    assert_raises_unchanged(RuntimeError, "Sizes of tensors",
                            lambda x, y: ag.cat([x, y.reshape(8)]), a, b)
    assert_raises_unchanged(RuntimeError, "zero-dimensional",
                            lambda x: ag.cat([x, x]), ag.tensor(1.0))
    assert_raises_unchanged(IndexError, "Dimension out of range",
                            lambda x: ag.cat([x, x], 2), a)
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
        ag.cat([])  # PyTorch's class for an empty list (was a RuntimeError here)
    with pytest.raises(RuntimeError, match="stack expects a non-empty TensorList"):
        ag.stack([])
    with pytest.raises(TypeError):
        ag.cat(a)


def test_out_of_range_int_index():
    x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert_raises_unchanged(IndexError, "out of bounds", lambda t: t[2], x)
    assert_raises_unchanged(IndexError, "out of bounds", lambda t: t[-3], x)
    assert_raises_unchanged(IndexError, "out of bounds", lambda t: t[0, 5], x)
    assert_raises_unchanged(IndexError, "out of bounds", lambda t: t[ag.tensor([0, 2])], x)
    assert_raises_unchanged(IndexError, "out of bounds", lambda t: t[[0, -3]], x)
    assert_raises_unchanged(IndexError, "too many indices", lambda t: t[0, 0, 0], x)
    assert_raises_unchanged(IndexError, "mask", lambda t: t[ag.tensor([True, False, True])], x)
    assert_raises_unchanged(IndexError, None, lambda t: t[ag.tensor([0.5])], x)
    assert_raises_unchanged(IndexError, None, lambda t: t[1.5], x)
    # gather: a RuntimeError in PyTorch (issue #12)
    assert_raises_unchanged(RuntimeError, "out of bounds",
                            lambda t: t.gather(1, ag.tensor([[0, 2], [0, 0]])), x)
    assert_raises_unchanged(IndexError, "out of bounds",
                            lambda t: t.index_select(0, ag.tensor([3])), x)


def test_setitem_out_of_range_leaves_tensor_unchanged():
    x = ag.tensor([1.0, 2.0, 3.0])
    before = snapshot(x)
    with pytest.raises(IndexError):
        x[3] = 1.0
    with pytest.raises(IndexError):
        x[ag.tensor([0, 5])] = 1.0
    with pytest.raises(RuntimeError):
        x[:2] = ag.tensor([1.0, 2.0, 3.0])
    assert snapshot(x) == before


DIM_OPS = {
    "sum": lambda t: t.sum(2),
    "sum-tuple": lambda t: t.sum((0, 5)),
    "mean": lambda t: t.mean(-3),
    "prod": lambda t: t.prod(2),
    "max": lambda t: t.max(2),
    "min": lambda t: t.min(-3),
    "amax": lambda t: t.amax(2),
    "argmax": lambda t: t.argmax(2),
    "var": lambda t: t.var(2),
    "std": lambda t: t.std(2),
    "logsumexp": lambda t: t.logsumexp(2),
    "norm": lambda t: t.norm(dim=2),
    "cumsum": lambda t: t.cumsum(2),
    "softmax": lambda t: t.softmax(2),
    "log_softmax": lambda t: t.log_softmax(-3),
    "squeeze": lambda t: t.squeeze(2),
    "unsqueeze": lambda t: t.unsqueeze(4),
    "transpose": lambda t: t.transpose(0, 2),
    "permute": lambda t: t.permute(0, 2),
    "flatten": lambda t: t.flatten(0, 2),
    "flip": lambda t: t.flip(2),
    "split": lambda t: t.split(1, 2),
    "chunk": lambda t: t.chunk(2, 2),
    "unbind": lambda t: t.unbind(2),
    "index_select": lambda t: t.index_select(2, ag.tensor([0])),
    "gather": lambda t: t.gather(2, ag.tensor([[0]])),
    "size": lambda t: t.size(2),
    "stack": lambda t: ag.stack([t, t], 3),
    "narrow": lambda t: t.narrow(2, 0, 1),
}


@pytest.mark.parametrize("name", sorted(DIM_OPS))
def test_bad_dim_raises_index_error(name):
    x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert_raises_unchanged(IndexError, r"out of range", DIM_OPS[name], x)


def test_duplicate_dims_raise():
    x = ag.ones(2, 3)
    assert_raises_unchanged(RuntimeError, "multiple times", lambda t: t.sum((0, 0)), x)
    assert_raises_unchanged(RuntimeError, "repeated dim", lambda t: t.permute(0, 0), x)


@pytest.mark.parametrize("shape", [(4,), (2, 2), (5, -1), (-1, -1), (7,), (-2, 3), (0, -1)])
def test_reshape_to_incompatible_shape(shape):
    x = ag.ones(2, 3, requires_grad=True)
    assert_raises_unchanged(RuntimeError, None, lambda t: t.reshape(shape), x)
    assert_raises_unchanged(RuntimeError, None, lambda t: t.view(shape), x)


def test_reshape_message_names_shape_and_size():
    x = ag.ones(2, 3)
    with pytest.raises(RuntimeError, match=re.escape("shape '[4]' is invalid for input of size 6")):
        x.reshape(4)


@pytest.mark.parametrize("dtype", [ag.int32, ag.int64, ag.bool])
def test_integer_tensor_cannot_require_grad(dtype):
    x = ag.zeros(2, dtype=dtype)
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype"):
        x.requires_grad_(True)
    with pytest.raises(RuntimeError, match="floating point"):
        x.requires_grad = True
    with pytest.raises(RuntimeError, match="floating point"):
        ag.ones(2, dtype=dtype, requires_grad=True)
    assert not x.requires_grad
    x.requires_grad_(False)  # allowed


def test_item_of_multi_element_tensor():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    assert_raises_unchanged(RuntimeError, "a Tensor with 2 elements cannot be converted to Scalar",
                            lambda t: t.item(), x)
    assert_raises_unchanged(RuntimeError, "0 elements", lambda t: t.item(), ag.zeros(0))
    with pytest.raises(ValueError, match="only one element tensors"):  # PyTorch's class
        float(ag.ones(2))


def test_bool_of_multi_element_tensor():
    x = ag.tensor([1.0, 2.0])
    assert_raises_unchanged(RuntimeError, "Boolean value of Tensor with more than one value is "
                            "ambiguous", lambda t: bool(t), x)
    with pytest.raises(RuntimeError, match="ambiguous"):
        if ag.tensor([True, False]):
            pass
    assert bool(ag.tensor([0.0])) is False


@pytest.mark.parametrize("sizes", [(3, 2), (4, 1), (3,), (-1, 3, 3), (1, 2)])
def test_expand_to_incompatible_size(sizes):
    x = ag.ones(2, 1, requires_grad=True)
    assert_raises_unchanged(RuntimeError, None, lambda t: t.expand(*sizes), x)


def test_expand_message_names_sizes():
    with pytest.raises(RuntimeError, match=r"expanded size of the tensor \(3\) must match the "
                       r"existing size \(2\) at non-singleton dimension 0"):
        ag.ones(2, 1).expand(3, 2)


def test_other_argument_errors():
    x = ag.ones(2, 3, requires_grad=True)
    assert_raises_unchanged(RuntimeError, "clamp", lambda t: t.clamp(), x)
    assert_raises_unchanged(RuntimeError, "Subtraction", lambda t: t - t,
                            ag.tensor([True, False]))
    assert_raises_unchanged(RuntimeError, "Negation", lambda t: -t, ag.tensor([True]))
    assert_raises_unchanged(RuntimeError, "negative integer powers",
                            lambda t: t ** -2, ag.tensor([2, 3]))
    assert_raises_unchanged(RuntimeError, "mean", lambda t: t.mean(), ag.tensor([1, 2]))
    assert_raises_unchanged(RuntimeError, "bool", lambda t: ag.where(t, t, t), x)
    assert_raises_unchanged(RuntimeError, "rounding_mode",
                            lambda t: ag.div(t, 2, rounding_mode="nope"), x)
    assert_raises_unchanged(RuntimeError, "repeat", lambda t: t.repeat(2), x)
    assert_raises_unchanged(RuntimeError, "split", lambda t: t.split([1, 1], 1), x)
    assert_raises_unchanged(RuntimeError, "chunk", lambda t: t.chunk(0), x)
    assert_raises_unchanged(RuntimeError, "t\\(\\)", lambda t: t.t(), ag.ones(2, 2, 2))
    assert_raises_unchanged(RuntimeError, "permute", lambda t: t.permute(0), x)
    assert_raises_unchanged(RuntimeError, "gather", lambda t: t.gather(1, ag.tensor([0])), x)
    assert_raises_unchanged(RuntimeError, "Expected dtype",
                            lambda t: t.gather(1, ag.tensor([[0.0]])), x)
    assert_raises_unchanged(RuntimeError, "numel", lambda t: t.max(), ag.zeros(0))
    with pytest.raises(TypeError):
        x + "a"
    with pytest.raises(TypeError):
        x @ 2


def test_backward_errors_leave_leaves_unchanged():
    a, b = make_leaves()
    before = [snapshot(a), snapshot(b)]
    with pytest.raises(RuntimeError, match="scalar outputs"):
        (a * 2).backward()
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (a * 2).backward(ag.ones(3))
    assert [snapshot(a), snapshot(b)] == before


@pytest.mark.parametrize("fn", [lambda a, b: a // b, lambda a, b: a % b], ids=["//", "%"])
def test_floor_divide_and_remainder_of_bools_raise_runtime_error(fn):
    a = ag.tensor([True, False])
    assert_raises_unchanged(RuntimeError, "Bool", fn, a, ag.tensor([True, True]))


@pytest.mark.parametrize("key", ["tensors", "lists"])
@pytest.mark.parametrize("write", [False, True])
def test_index_tensors_that_do_not_broadcast_raise_indexerror(key, write):
    # PyTorch: IndexError naming the shapes (NumPy's ValueError leaked through before)
    x = ag.zeros(5, 4)
    index = (ag.arange(3), ag.arange(2)) if key == "tensors" else ([0, 1, 2], [0, 1])
    with pytest.raises(IndexError, match=r"could not be broadcast together with shapes "
                                         r"\[3\], \[2\]"):
        if write:
            x[index] = 1.0
        else:
            x[index]
