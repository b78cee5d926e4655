"""The namespace's array type (``arraygrad.array_api.Array``): what the official suite's
operator tests and ``test_getitem`` need, against NumPy (whose promotion since NumPy 2 is the
standard's) and float64 finite differences; and what must not change for a PyTorch user's
plain tensors (PyTorch's promotion, its refusal of negative steps)."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import arraygrad as ag
from arraygrad import array_api as xp
from arraygrad.autograd import gradcheck

FAST = settings(max_examples=40, deadline=None)
INTEGERS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
OPERATORS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "<": operator.lt,
             "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
             "&": operator.and_, "|": operator.or_, "^": operator.xor,
             "<<": operator.lshift, ">>": operator.rshift, "//": operator.floordiv}


def _promotable(a: str, b: str) -> bool:
    return "uint64" not in (a, b) or a == b or (a.startswith("u") and b.startswith("u"))


@st.composite
def integer_pairs(draw):
    a, b = draw(st.sampled_from(INTEGERS)), draw(st.sampled_from(INTEGERS))
    if not _promotable(a, b):
        b = a
    shapes = draw(st.sampled_from([((), (3,)), ((3,), ()), ((2, 3), (3,)), ((), ())]))
    values = [draw(hnp.arrays(np.dtype(d), s, elements=st.integers(1, 6)))
              for d, s in zip((a, b), shapes)]
    return values


@FAST
@given(integer_pairs(), st.sampled_from(sorted(OPERATORS)))
def test_operators_promote_as_the_standard(pair, symbol) -> None:
    # uint16/32/64 with other integers and 0-d arrays by their own dtype: PyTorch's operators
    # refuse the first and let the dimensioned operand's dtype win in the second
    a, b = pair
    fn = OPERATORS[symbol]
    out = fn(xp.asarray(a), xp.asarray(b))
    expected = np.asarray(fn(a, b))
    assert type(out) is xp.Array
    assert out.dtype.name == expected.dtype.name, (a.dtype, b.dtype, symbol)
    np.testing.assert_array_equal(out.numpy(), expected)


def test_in_place_operators_promote_as_the_standard() -> None:
    x = xp.asarray([1, 2, 3], dtype=xp.int32)
    x += xp.asarray(4, dtype=xp.uint16)  # PyTorch refuses int32 += uint16
    x <<= xp.asarray([1, 0, 2], dtype=xp.uint8)
    assert type(x) is xp.Array and x.dtype == xp.int32 and x.tolist() == [10, 6, 28]
    f = xp.asarray([7.0, -7.0, 1.0], dtype=xp.float32)
    f //= xp.asarray([2.0, 2.0, float("inf")], dtype=xp.float32)
    assert f.tolist() == [3.0, -4.0, 0.0]  # floor(1 / inf), the standard's special case
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        y = xp.asarray(1, dtype=xp.int32)
        y += xp.asarray([1, 2], dtype=xp.int32)


def test_plain_tensors_keep_pytorchs_promotion() -> None:
    torch = pytest.importorskip("torch")
    small, wide = ag.tensor(3, dtype=ag.int16), ag.tensor([1, 2], dtype=ag.int8)
    assert (small >> wide).dtype == ag.int8  # PyTorch's: the dimensioned operand's dtype
    assert (torch.tensor(3, dtype=torch.int16) >> torch.tensor([1, 2], dtype=torch.int8)).dtype \
        == torch.int8
    # a namespace array with a plain tensor: the plain tensor's rules, either way round
    assert (xp.asarray(small) >> wide).dtype == ag.int8
    assert (wide << xp.asarray(small)).dtype == ag.int8
    with pytest.raises(RuntimeError):
        torch.tensor([1], dtype=torch.uint16) + torch.tensor([1], dtype=torch.int8)
    with pytest.raises(RuntimeError):
        ag.tensor([1], dtype=ag.uint16) + ag.tensor([1], dtype=ag.int8)


def test_where_the_standard_defines_no_promotion_the_tensors_rule_answers() -> None:
    flags = xp.asarray([True, False])
    assert (flags != 0).tolist() == [True, False]  # bool with int: left to the library
    assert (flags + 1).dtype == ag.int64


def test_results_are_namespace_arrays_and_keep_their_graph() -> None:
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = xp.square(x)
    assert type(x) is ag.Tensor and type(y) is xp.Array and y.grad_fn is not None
    z = (y * 2)[::-1] + xp.asarray(1.0)
    assert type(z) is xp.Array and type(xp.reshape(z, (1, 3)).mT) is xp.Array
    xp.sum(z).backward()
    assert x.grad.tolist() == [4.0, 8.0, 12.0]
    same = xp.asarray(x)  # the caller's tensor is aliased, never retyped
    assert type(x) is ag.Tensor and type(same) is xp.Array and same.data_ptr() == x.data_ptr()
    Q, R = xp.linalg.qr(xp.reshape(xp.arange(4.0), (2, 2)) + xp.eye(2))
    assert type(Q) is xp.Array and type(R) is xp.Array


@st.composite
def sliced(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=5))
    key = []
    for size in shape:
        start = draw(st.none() | st.integers(-size - 2, size + 2))
        stop = draw(st.none() | st.integers(-size - 2, size + 2))
        step = draw(st.sampled_from([None, 1, 2, -1, -2, -3]))
        key.append(slice(start, stop, step))
    if draw(st.booleans()):
        key.insert(draw(st.integers(0, len(key))), None)
    if len(shape) > 1 and draw(st.booleans()):
        key[-1] = Ellipsis
    return np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape), tuple(key)


@FAST
@given(sliced())
def test_getitem_with_negative_steps_matches_numpy(case) -> None:
    a, key = case
    out = xp.asarray(a)[key]
    assert type(out) is xp.Array
    np.testing.assert_array_equal(out.numpy(), a[key])


@FAST
@given(sliced())
def test_setitem_with_negative_steps_matches_numpy(case) -> None:
    a, key = case
    expected = a.copy()
    values = -np.arange(expected[key].size, dtype=np.float64).reshape(expected[key].shape) - 1
    expected[key] = values
    x = xp.asarray(a)
    view = x[...]  # a view sees the write
    x[key] = xp.asarray(values)
    np.testing.assert_array_equal(x.numpy(), expected)
    np.testing.assert_array_equal(view.numpy(), expected)


def test_negative_steps_are_differentiable() -> None:
    base = ag.tensor(np.random.default_rng(0).standard_normal((4, 5)), requires_grad=True)
    value = ag.tensor(np.random.default_rng(1).standard_normal((2, 5)), requires_grad=True)
    assert gradcheck(lambda t: xp.asarray(t)[::-2, 3:0:-1] * 1.5, (base,))

    def written(t, v):
        out = xp.asarray(t) * 1.0
        out[3:0:-2, ::-1] = v
        return out

    assert gradcheck(written, (base, value))


def test_plain_tensors_refuse_negative_steps_as_pytorch() -> None:
    with pytest.raises(ValueError, match="step must be greater than zero"):
        ag.arange(4)[::-1]
    x = ag.arange(4)
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1] = ag.arange(4)
