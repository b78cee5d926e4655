"""What sparse tensors do not do, said as PyTorch says it: an op without a sparse kernel raises
NotImplementedError naming the op and the sparse backend key, whether reached as a method or
as a function; storage and NumPy conversions raise PyTorch's errors; the sparse queries on a
dense tensor raise PyTorch's errors; nothing changes on error."""

import numpy as np
import pytest

import arraygrad as ag
from sparse_pairs import coo, needs_torch, torch


@pytest.mark.parametrize("call, op", [
    (lambda s: s.exp(), "exp"), (lambda s: s.view(6), "view"), (lambda s: s.reshape(6), "reshape"),
    (lambda s: s == s, "eq"), (lambda s: s < 1, "lt"), (lambda s: s.mean(), "mean"),
    (lambda s: s.log_softmax(0), "log_softmax"), (lambda s: s[0], "index"),
    (lambda s: s.exp_(), "exp_"), (lambda s: s.cumsum(0), "cumsum"),
    (lambda s: s.flatten(), "flatten"), (lambda s: s.view_as(s), "view"),
])
def test_a_method_without_a_sparse_kernel_names_itself(call, op):
    s = coo(ag)
    with pytest.raises(NotImplementedError,
                       match=rf"Could not run 'aten::{op}' with arguments from the 'SparseCPU'"):
        call(s)
    assert s._nnz() == 4 and s.to_dense().tolist() == [[4.0, -1.5, 0.0], [0.0, 0.0, 8.0]]


@pytest.mark.parametrize("call", [
    lambda s: ag.exp(s), lambda s: ag.cat([s, s]), lambda s: ag.nn.functional.relu(s),
    lambda s: ag.where(s > 0, s, s), lambda s: ag.stack([s]), lambda s: ag.cumsum(s, 0),
])
def test_a_function_reached_with_a_sparse_tensor_refuses(call):
    with pytest.raises(NotImplementedError, match="'SparseCPU' backend"):
        call(coo(ag))


@needs_torch
@pytest.mark.parametrize("call", [
    lambda L, s: s.exp(), lambda L, s: s.view(6), lambda L, s: s + 1,
    lambda L, s: s.numpy(), lambda L, s: s.tolist(), lambda L, s: s.data_ptr(),
    lambda L, s: s.indices(), lambda L, s: s.values(), lambda L, s: s.to_dense(L.float32),
    lambda L, s: s ** 0, lambda L, s: s / L.ones(2, 3), lambda L, s: 2 / s,
    lambda L, s: L.mm(s, L.ones(2, 2, dtype=L.float64)),
    lambda L, s: L.mm(s, L.ones(3, 2)),
    lambda L, s: s.t().transpose(0, 0).sparse_resize_((1, 4), 2, 0),
    lambda L, s: L.native_norm(s, 2, [0], False, None),
    lambda L, s: L.ones(2, 3).indices(), lambda L, s: L.ones(2, 3)._indices(),
    lambda L, s: L.ones(2, 3).values(), lambda L, s: L.ones(2, 3)._values(),
    lambda L, s: L.ones(2, 3).coalesce(), lambda L, s: L.ones(2, 3).is_coalesced(),
    lambda L, s: L.ones(2, 3)._nnz(), lambda L, s: L.ones(2, 3).sparse_mask(L.ones(2, 3)),
    lambda L, s: L.ones(2).sparse_resize_((3,), 1, 0), lambda L, s: L.native_norm(L.ones(2)),
    lambda L, s: L.sparse.sum(L.ones(2)),
    lambda L, s: L.sparse_coo_tensor([[0], [1]], [1.0], (2, 3)).transpose(0, 0).t().coalesce()
    .transpose(1, 1).to_sparse(1),
])
def test_errors_have_pytorchs_class(call):
    with pytest.raises(Exception) as theirs:
        call(torch, coo(torch))
    with pytest.raises(type(theirs.value)):
        call(ag, coo(ag))


def test_dense_sparse_queries_answer_as_pytorchs():
    x = ag.ones(2, 3)
    assert x.sparse_dim() == 0 and x.dense_dim() == 2 and x.to_dense() is x
    assert not x.is_sparse and x.layout is ag.strided


def test_numpy_and_storage_are_refused():
    s = coo(ag)
    with pytest.raises(TypeError, match="Use Tensor.to_dense"):
        np.asarray(s)
    with pytest.raises(RuntimeError, match="doesn't have storage"):
        s.untyped_storage()
    assert s.stride() == (0, 0) and s.stride(1) == 0 and not s.is_contiguous()


def test_a_sparse_tensor_cannot_be_saved_as_safetensors(tmp_path):
    with pytest.raises(Exception, match="(?i)sparse"):
        ag.save_safetensors({"adj": coo(ag)}, str(tmp_path / "a.safetensors"))
    assert not (tmp_path / "a.safetensors").exists()


def test_a_numpy_operand_is_refused_with_a_type_error():
    s = coo(ag)
    for call in (lambda: s + np.ones((2, 3)), lambda: np.ones((2, 3)) + s,
                 lambda: s * np.ones((2, 3))):
        with pytest.raises(TypeError, match="a sparse tensor and a ndarray"):
            call()
    assert (s + ag.as_tensor(np.ones((2, 3)))).layout is ag.strided
