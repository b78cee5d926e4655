"""``i + 1`` of an int64 tensor with a Python int takes the fast operands (no promotion to
compute) and gives what the general path gives: int64 results, the same values, the same
answers for numbers int64 cannot hold and for the other integer dtypes."""

from __future__ import annotations

import operator

import pytest

import arraygrad as ag
from arraygrad.ops import fast
from arraygrad.ops.rule import reference_mode

OPS = [operator.add, operator.sub, operator.mul, operator.floordiv, operator.mod,
       operator.lt, operator.eq, operator.and_, operator.lshift, operator.truediv, operator.pow]


def _both(fn):
    got = fn()
    with reference_mode():
        ref = fn()
    return got, ref


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("number", [3, -2, 0, 2 ** 40])
def test_int64_with_an_int_is_the_general_paths(op, number):
    t = ag.tensor([7, -5, 0, 2 ** 40], dtype=ag.int64)
    for swap in (False, True):
        def run():
            try:
                return op(number, t) if swap else op(t, number)
            except Exception as e:  # the same error either way
                return type(e)
        got, ref = _both(run)
        if isinstance(ref, type):
            assert got is ref
        else:
            assert got.dtype == ref.dtype
            assert repr(got.tolist()) == repr(ref.tolist())  # (NaN as NaN)


def test_taken_only_for_int64_and_ints_it_holds():
    from arraygrad.ops.rule import fast_paths

    t = ag.tensor([1, 2])
    if not fast_paths.on:
        pytest.skip("reference mode: no fast path")
    assert fast.operands(t, 1) is not None and fast.operands(1, t) is not None
    assert fast.operands(t, 2 ** 63) is None and fast.operands(t, True) is None
    assert fast.operands(t.int(), 1) is None and fast.operands(t, 1.5) is None


def test_results_keep_pytorchs_dtypes():
    torch = pytest.importorskip("torch")
    for dtype, tdtype in [(ag.int64, torch.int64), (ag.int32, torch.int32), (ag.uint8, torch.uint8)]:
        a, ta = ag.tensor([5, 6], dtype=dtype), torch.tensor([5, 6], dtype=tdtype)
        for op in (operator.add, operator.mul, operator.floordiv, operator.truediv):
            assert str(op(a, 3).dtype).split(".")[-1] == str(op(ta, 3).dtype).split(".")[-1]
            assert op(a, 3).tolist() == op(ta, 3).tolist()


def test_the_operators_fast_case_takes_int64_with_an_int_but_not_division():
    from arraygrad.ops import elementwise as ew
    from arraygrad.ops.rule import fast_paths

    if not fast_paths.on:
        pytest.skip("reference mode: no fast path")
    t = ag.tensor([4, -3])
    for spec in (ew._ADD, ew._SUB, ew._MUL):
        out = fast.binary(t, 3, spec)
        assert out is not None and out.dtype == ag.int64 and not out.requires_grad
        assert fast.binary(3, t, spec).tolist() == spec.native(3, t._data).tolist()
    assert fast.binary(t, 3, ew._DIV) is None  # true division makes floats: the general path
    assert fast.binary(t.int(), 3, ew._ADD) is None and fast.binary(t, 2 ** 63, ew._ADD) is None


@pytest.mark.parametrize("value", [3, -2, True, 0])
def test_a_zero_d_integer_tensor_as_an_index(value):
    t = ag.tensor(value)
    got, ref = _both(lambda: operator.index(t))
    assert got == ref == operator.index(value) and type(got) is int
    data = ag.arange(10)
    got, ref = _both(lambda: data[t:t + 4].tolist())
    assert got == ref == list(range(10))[operator.index(value):operator.index(value) + 4]
    for bad in (ag.tensor(1.0), ag.tensor([1, 2]), ag.tensor(1j)):
        with pytest.raises(TypeError, match="only integer tensors of a single element"):
            operator.index(bad)
