"""Issue #12 indexing fixes, each failing before: PyTorch's placement of advanced dimensions
beside integers, bool scalars as keys, refused negative steps and strings, the error classes
of gather/index_select, and take_along_dim's broadcasting."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_integer_beside_slice_and_array_selects_first():
    x = ag.arange(24.).reshape(2, 4, 3)
    out = x[0, 1:4, [0, 2]]
    assert tuple(out.shape) == (3, 2)
    assert out.tolist() == [[3.0, 5.0], [6.0, 8.0], [9.0, 11.0]]


def _torch_key(k):
    return tuple(torch.tensor(j) if isinstance(j, list) else j for j in k)


KEYS = [(0, slice(1, 4), [0, 2]), ([0], slice(1, 4), 0), ([0, 1], 1, [0, 2]),
        (slice(None), 1, [0, 2]), (1, slice(None), [0, 2]), ([1], slice(None), 0, [0, 2]),
        ([1, 0], slice(None), [0, 1]), (0, [1], slice(None), [2]), (0, 1, [2]),
        (slice(None), 0, [1], slice(None)), (None, 0, slice(None), [1, 2])]


@needs_torch
@pytest.mark.parametrize("key", KEYS, ids=str)
def test_mixed_keys_match_torch_read_write_and_grad(key):
    data = np.arange(120.).reshape(2, 4, 3, 5)
    x = ag.tensor(data, requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    out, ref = x[key], t[_torch_key(key)]
    assert tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    up = np.random.default_rng(0).standard_normal(tuple(ref.shape))
    out.backward(ag.tensor(up))
    ref.backward(torch.tensor(up))
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
    y, s = ag.tensor(data), torch.tensor(data)
    y[key] = ag.tensor(up)
    s[_torch_key(key)] = torch.tensor(up)
    np.testing.assert_array_equal(y.numpy(), s.numpy())


@pytest.mark.parametrize("key, shape", [
    (True, (1, 3, 4)), (False, (0, 3, 4)), ((None, True, 1), (1, 1, 4)), ((1, False), (0, 4)),
    ((Ellipsis, True), (3, 4, 1)), ((slice(None), False, 0), (3, 0))])
def test_bool_scalar_adds_a_dimension(key, shape):
    assert tuple(ag.zeros(3, 4)[key].shape) == shape


def test_bool_tensor_scalar_and_setitem():
    x = ag.zeros(3, 4)
    assert tuple(x[ag.tensor(True)].shape) == (1, 3, 4)
    x[True] = 1.0
    x[False] = 5.0
    assert x.sum().item() == 12.0


@pytest.mark.parametrize("step", [-1, 0])
def test_negative_or_zero_step_is_a_value_error(step):
    with pytest.raises(ValueError, match="step must be greater than zero"):
        ag.zeros(3)[::step]


def test_string_index_is_a_type_error():
    with pytest.raises(TypeError):
        ag.zeros(3)["a"]


def test_gather_refuses_negative_and_out_of_range_with_runtime_error():
    x = ag.zeros(3, 4)
    for bad in (-1, 3):
        with pytest.raises(RuntimeError, match="gather"):
            x.gather(0, ag.tensor([[bad, 0, 0, 0]]))


def test_index_select_refuses_negative_indices():
    with pytest.raises(IndexError, match="index out of range in self"):
        ag.zeros(3, 4).index_select(0, ag.tensor([-1]))


@needs_torch
@pytest.mark.parametrize("idx, dim", [([[-1]], 1), ([[1], [2], [0]], 1), ([[1, 2, 0, 0]], 0),
                                      ([[0, 1]], 1), ([5, 3], None), ([[1]], -2), ([[[1]]], None)])
def test_take_along_dim_broadcasts_as_torch(idx, dim):
    data = np.arange(12.).reshape(3, 4)
    x = ag.tensor(data, requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    out = ag.take_along_dim(x, ag.tensor(idx), dim)
    ref = torch.take_along_dim(t, torch.tensor(idx), dim)
    np.testing.assert_array_equal(out.detach().numpy(), ref.detach().numpy())
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())


@pytest.mark.parametrize("idx, dim, words", [
    ([[1, 2]], 0, "take_along_dim.*size of tensor"), ([[[1]]], 0, "take_along_dim.*same number"),
    ([[4]], 1, "take_along_dim.*out of bounds"), ([-13], None, "take_along_dim.*out of bounds"),
    ([-1], None, "take_along_dim.*out of bounds")])
def test_take_along_dim_errors_name_it(idx, dim, words):
    with pytest.raises(RuntimeError, match=words):
        ag.take_along_dim(ag.zeros(3, 4), ag.tensor(idx), dim)
    with pytest.raises(RuntimeError, match="take_along_dim.*Long"):
        ag.take_along_dim(ag.zeros(3, 4), ag.zeros(1, 1), 1)
