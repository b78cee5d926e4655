"""NumPy arrays and scalars as operands of tensor operators (``t + a``, ``a * t``, ``t < a``,
``t @ a``, ``np.bool_(True) * t``): tensors in PyTorch's result dtypes (NumPy's promotion, since
PyTorch hands the array to NumPy), values equal to PyTorch's, and gradients where PyTorch
refuses (docs/differences.md). Each of these raised TypeError before."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.autograd import gradcheck

from torch_numpy import QUIET_PYTORCH_ARRAY_PROTOCOL, needs_torch, torch

pytestmark = QUIET_PYTORCH_ARRAY_PROTOCOL

ARITHMETIC = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
              "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
              "pow": operator.pow}
COMPARISONS = {"eq": operator.eq, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
               "ge": operator.ge, "ne": operator.ne}
DTYPES = ["float32", "float64", "float16", "int64", "int32", "uint8", "bool"]


def _values(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    if dtype == "bool":  # all True: no integer division by zero (PyTorch's and NumPy's differ)
        return np.ones(shape, dtype=bool)
    return np.asarray(rng.integers(1, 5, shape).astype(dtype))  # positive: pow and division stay defined


def _same(ours, theirs, numpy_bool=False):
    """Equal to PyTorch's answer; ``numpy_bool``: NumPy answered bool, which PyTorch turns into
    uint8 and arraygrad keeps (docs/differences.md)."""
    assert isinstance(ours, ag.Tensor)
    expected = "bool" if numpy_bool else str(theirs.dtype).removeprefix("torch.")
    assert ours.dtype.name == expected
    np.testing.assert_allclose(ours.numpy().astype(float), theirs.numpy().astype(float),
                               rtol=1e-3 if ours.dtype is ag.float16 else 1e-6)


def _torch_or_skip(fn, t, a):
    try:
        return fn(t, a)
    except (TypeError, RuntimeError) as exc:  # e.g. bool - bool: no result to compare with
        pytest.skip(f"PyTorch refuses: {exc}")


@needs_torch
@pytest.mark.parametrize("name", list(ARITHMETIC))
@pytest.mark.parametrize("tdtype", DTYPES)
@pytest.mark.parametrize("adtype", DTYPES)
def test_tensor_op_array_as_pytorch(name, tdtype, adtype):
    fn = ARITHMETIC[name]
    if tdtype == adtype == "bool" and name in ("floordiv", "mod"):
        pytest.skip("NumPy's int8 answer for two bools; arraygrad's bool // bool raises")
    tv, av = _values(tdtype, (2, 3), 0), _values(adtype, (3,), 1)
    theirs = _torch_or_skip(fn, torch.from_numpy(tv.copy()), av)
    _same(fn(ag.from_numpy(tv.copy()), av), theirs, numpy_bool=fn(tv, av).dtype == bool)


@needs_torch
@pytest.mark.parametrize("name", list(ARITHMETIC))
@pytest.mark.parametrize("tdtype", ["float32", "int64", "float64"])
def test_array_op_tensor_as_tensor_op_array(name, tdtype):
    # PyTorch raises TypeError for ``a + t`` (while ``t + a`` works): arraygrad answers with
    # what PyTorch gives for the same operands as tensors, in NumPy's dtype (differences.md)
    fn = ARITHMETIC[name]
    tv, av = _values(tdtype, (3,), 2), _values("float64", (2, 3), 3)
    theirs = fn(torch.from_numpy(av.copy()), torch.from_numpy(tv.copy()).double())
    ours = fn(av, ag.from_numpy(tv.copy()))
    assert isinstance(ours, ag.Tensor) and ours.dtype is ag.float64
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("name", list(COMPARISONS))
def test_comparisons_both_ways(name):
    # PyTorch: ``t == a`` a tensor, ``t != a`` the bool True, ``t < a`` TypeError; arraygrad
    # compares elementwise in every case (docs/differences.md)
    fn = COMPARISONS[name]
    t, a = ag.tensor([1.0, 2.0, 3.0]), np.array([3, 2, 1])
    for result, expected in ((fn(t, a), fn(t.numpy(), a)), (fn(a, t), fn(a, t.numpy()))):
        assert isinstance(result, ag.Tensor) and result.dtype is ag.bool
        assert result.tolist() == expected.tolist()


@needs_torch
def test_matmul_and_bitwise_with_arrays():
    t, a = ag.tensor([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0], [2.0]])
    _same(t @ a, torch.tensor([[1.0, 2.0], [3.0, 4.0]]) @ a)
    assert (a.T @ t).tolist() == (a.T @ t.numpy()).tolist()
    mask = ag.tensor([True, False, True])
    assert (mask & np.array([True, True, False])).tolist() == [True, False, False]
    assert (np.array([False, False, True]) | mask).tolist() == [True, False, True]


@needs_torch
@pytest.mark.parametrize("scalar", [np.bool_(True), np.float32(2.5), np.float64(2.5),
                                    np.int64(3), np.int8(-2), np.float16(0.5)],
                         ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("name", ["add", "mul", "sub", "truediv"])
def test_numpy_scalars_are_numbers(scalar, name):
    # the Python number each holds, as PyTorch takes them (except that PyTorch takes np.bool_
    # as the float 1.0: ``int_tensor + np.bool_(True)`` is float32 there, int64 here)
    fn = ARITHMETIC[name]
    if name == "sub" and isinstance(scalar, np.bool_):
        pytest.skip("PyTorch refuses subtracting a bool")
    number = scalar.item()
    for tdtype in ("float32", "int64", "float16"):
        tv = _values(tdtype, (3,), 4)
        _same(fn(ag.from_numpy(tv.copy()), scalar), fn(torch.from_numpy(tv.copy()), number))
        _same(fn(scalar, ag.from_numpy(tv.copy())), fn(number, torch.from_numpy(tv.copy())))
        if not isinstance(scalar, np.bool_):  # PyTorch itself, with the NumPy scalar
            _same(fn(ag.from_numpy(tv.copy()), scalar), fn(torch.from_numpy(tv.copy()), scalar))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["float32", "float64", "int64"]), st.sampled_from(DTYPES),
       st.lists(st.integers(1, 3), min_size=0, max_size=3), st.integers(0, 3),
       st.sampled_from(["add", "mul", "truediv", "eq"]))
def test_broadcasting_and_promotion_follow_numpy(tdtype, adtype, shape, cut, name):
    fn = {**ARITHMETIC, **COMPARISONS}[name]
    tv, av = _values(tdtype, tuple(shape), 5), _values(adtype, tuple(shape[cut:]), 6)
    t = ag.from_numpy(tv.copy())
    # what PyTorch hands back for ``t op a``: NumPy's answer, as a tensor
    for result, expected in ((fn(t, av), fn(tv, av)), (fn(av, t), fn(av, tv))):
        assert isinstance(result, ag.Tensor)
        assert result.numpy().dtype == np.asarray(expected).dtype
        np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)


def test_gradients_flow_through_array_operands():
    a = np.array([[0.5, -1.5, 2.0], [1.0, 3.0, -0.25]])
    x = ag.tensor([0.3, -0.7, 1.1], dtype=ag.float64, requires_grad=True)
    assert gradcheck(lambda x: (x * a + a / x - (a - x) ** 2, x @ a.T, a @ x), (x,))
    y = ag.tensor([1.0, 2.0], requires_grad=True)  # float32, promoted to float64 by the array
    out = (y * np.array([3.0, 4.0])).sum()
    assert out.dtype is ag.float64
    out.backward()
    assert y.grad.dtype is ag.float32 and y.grad.tolist() == [3.0, 4.0]


def test_inplace_with_an_array_stays_in_place():
    t = ag.ones(3)
    before = id(t)
    t += np.array([1.0, 2.0, 3.0])  # PyTorch rebinds t to a new float64 tensor (differences.md)
    assert id(t) == before and t.dtype is ag.float32 and t.tolist() == [2.0, 3.0, 4.0]
    t.mul_(np.array([2, 2, 2]))
    assert t.tolist() == [4.0, 6.0, 8.0]
    ints = ag.ones(2, dtype=ag.int64)
    with pytest.raises(RuntimeError, match="can't be cast"):
        ints += np.array([0.5, 0.5])
    assert ints.tolist() == [1, 1]  # unchanged after the error


def test_function_forms_take_arrays_too():
    t = ag.tensor([1.0, 2.0])
    assert ag.add(t, np.array([1, 1])).tolist() == [2.0, 3.0]
    assert ag.maximum(t, np.array([1.5, 1.5])).tolist() == [1.5, 2.0]
    assert ag.eq(t, np.array([1.0, 0.0])).tolist() == [True, False]


def test_arrays_need_a_cpu_tensor():
    t = ag.tensor([1.0, 2.0], device="strict")
    with pytest.raises(TypeError, match="can't convert strict device type tensor to numpy"):
        t + np.ones(2)
    with pytest.raises(TypeError, match="can't convert strict"):
        np.ones(2) * t


def test_other_operands_still_refused():
    t = ag.tensor([1.0, 2.0])
    with pytest.raises(TypeError):
        t + [1.0, 2.0]
    with pytest.raises(TypeError):
        t + "a"
    with pytest.raises(TypeError, match="common arraygrad dtype"):
        t + np.array(["a", "b"])


def test_compiled_steps_take_array_operands_without_a_graph_break():
    import warnings

    w = ag.ones(3, requires_grad=True)
    a = np.array([1.0, 2.0, 3.0])

    @ag.compile
    def step(x):
        loss = (w * x * a).sum()
        loss.backward()
        return loss

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a graph break warns
        losses = []
        for scale in (1.0, 2.0, 3.0):
            a[:] = [scale, 2 * scale, 3 * scale]  # the replay reads the array afresh
            losses.append(step(ag.ones(3)).item())
    assert losses == [6.0, 12.0, 18.0]
    assert w.grad.tolist() == [6.0, 12.0, 18.0]  # (1 + 2 + 3) * [1, 2, 3]
