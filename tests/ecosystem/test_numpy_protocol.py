"""NumPy's array protocol on tensors: ``np.asarray`` shares, ``np.array`` copies, NumPy 2's
``copy=`` keyword, tensors that require grad refused, NumPy ufuncs giving tensors in PyTorch's
dtypes (PyTorch computes them through NumPy too), and what users do next with NumPy
(``from_numpy`` writing through, ``numpy(force=True)``, ``np.testing``). Compared with PyTorch
where it is installed; docs/interop.md."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag

from torch_numpy import QUIET_PYTORCH_ARRAY_PROTOCOL, needs_torch, torch

pytestmark = QUIET_PYTORCH_ARRAY_PROTOCOL


def test_asarray_shares_and_array_copies():
    t = ag.tensor([1.0, 2.0, 3.0])
    shared = np.asarray(t)
    copied = np.array(t)  # shared memory before the fix: PyTorch copies here
    assert np.shares_memory(shared, t.numpy())
    assert not np.shares_memory(copied, t.numpy())
    t.add_(1)
    assert shared.tolist() == [2.0, 3.0, 4.0] and copied.tolist() == [1.0, 2.0, 3.0]


def test_numpy_2_copy_keyword():
    t = ag.arange(6.0).reshape(2, 3)
    assert np.shares_memory(np.array(t, copy=False), t.numpy())
    assert np.shares_memory(np.array(t, copy=None), t.numpy())
    assert np.shares_memory(np.asarray(t, dtype=np.float32), t.numpy())
    converted = np.asarray(t, dtype=np.float64)
    assert converted.dtype == np.float64 and not np.shares_memory(converted, t.numpy())
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        np.array(t, dtype=np.float64, copy=False)  # a dtype change needs a copy
    assert t.__array__(copy=True) is not t.numpy()
    assert not np.shares_memory(t.__array__(copy=True), t.numpy())


def test_copy_false_refused_off_the_cpu():
    t = ag.tensor([1.0, 2.0], device="strict")
    assert np.asarray(t).tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="Unable to avoid copy.*strict"):
        np.array(t, copy=False)


@needs_torch
@pytest.mark.parametrize("convert", [np.asarray, np.array, lambda t: np.exp(t)],
                         ids=["asarray", "array", "ufunc"])
def test_requires_grad_refused_as_pytorch(convert):
    with pytest.raises(RuntimeError) as theirs:
        convert(torch.ones(2, requires_grad=True))
    with pytest.raises(RuntimeError) as ours:
        convert(ag.ones(2, requires_grad=True))
    assert str(ours.value) == str(theirs.value)
    with ag.no_grad():  # as PyTorch: allowed where no graph is recorded
        assert np.asarray(ag.ones(2, requires_grad=True)).tolist() == [1.0, 1.0]


UFUNCS = [np.exp, np.sqrt, np.negative, np.sign, np.floor, np.square, np.abs, np.sin,
          lambda x: np.add(x, 1), lambda x: np.multiply(x, 2.5), lambda x: np.maximum(x, 2),
          lambda x: np.add(x, x), lambda x: np.power(x, 2)]


@needs_torch
@pytest.mark.parametrize("ufunc", UFUNCS, ids=lambda f: getattr(f, "__name__", "lambda"))
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "float16"])
def test_ufuncs_give_pytorchs_tensor(ufunc, dtype):
    values = np.array([[1, 4, 9], [2, 3, 5]], dtype=dtype)
    theirs = ufunc(torch.from_numpy(values.copy()))
    ours = ufunc(ag.from_numpy(values.copy()))  # a NumPy array before the fix
    assert isinstance(ours, ag.Tensor)
    assert ours.dtype.name == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@needs_torch
def test_ufunc_results_keep_shape_and_0d():
    for lib in (torch, ag):
        r = np.exp(lib.tensor(1.0))
        assert r.ndim == 0 and abs(float(r) - np.e) < 1e-6
    left, right = np.modf(ag.tensor([1.5, -2.25]))
    assert isinstance(left, ag.Tensor) and left.tolist() == [0.5, -0.25] and right.tolist() == [1, -2]
    assert isinstance(np.add.reduce(ag.tensor([1.0, 2.0])), ag.Tensor)


def test_ufunc_predicates_are_bool_tensors():
    # PyTorch's __array_wrap__ turns NumPy's bool results into uint8 (from before torch had
    # bool tensors); arraygrad keeps bool (docs/differences.md)
    mask = np.isnan(ag.tensor([1.0, float("nan")]))
    assert isinstance(mask, ag.Tensor) and mask.dtype is ag.bool and mask.tolist() == [False, True]


def test_ufunc_output_into_a_numpy_array():
    out = np.empty(2, dtype=np.float32)
    assert np.sqrt(ag.tensor([4.0, 9.0]), out=out) is out and out.tolist() == [2.0, 3.0]


def test_numpy_functions_read_tensors():
    t = ag.tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(t, [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(t, t)
    assert np.allclose(t, t.numpy()) and np.stack([t, t]).shape == (2, 2, 2)
    assert np.concatenate([t, t]).shape == (4, 2) and np.where(t > 2)[0].tolist() == [1, 1]
    assert np.array([ag.tensor(1.0), ag.tensor(2.0)]).tolist() == [1.0, 2.0]
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(t, [[1.0, 2.0], [3.0, 5.0]])


def test_from_numpy_writes_through_both_ways():
    a = np.zeros(3)
    t = ag.from_numpy(a)
    a[0] = 5.0
    t.add_(1)
    assert t.tolist() == [6.0, 1.0, 1.0] and a.tolist() == [6.0, 1.0, 1.0]


@needs_torch
def test_numpy_force_shares_and_leaves_the_graph():
    for lib in (torch, ag):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="Can't call numpy"):
            x.numpy()
        forced = x.numpy(force=True)
        assert forced.tolist() == [1.0, 2.0]
        with lib.no_grad():
            x.add_(1)
        assert forced.tolist() == [2.0, 3.0]  # shares the tensor's memory on the CPU
