"""Making sparse COO tensors: ``sparse_coo_tensor`` (size inference, dtype, requires_grad,
is_coalesced, hybrid values), ``Tensor.to_sparse``, the legacy ``sparse.FloatTensor``,
``spdiags``; their reprs and the errors of bad input, against PyTorch."""

import warnings

import numpy as np
import pytest

import arraygrad as ag
from sparse_pairs import INDICES, SHAPE, VALUES, coo, needs_torch, same_sparse, torch


def test_a_sparse_tensor_is_a_tensor_with_the_coo_layout():
    s = coo(ag)
    assert isinstance(s, ag.Tensor) and ag.is_tensor(s)
    assert s.is_sparse and not s.is_sparse_csr
    assert s.layout is ag.sparse_coo and s.layout != ag.strided
    assert (s.shape, s.ndim, s.numel(), s.dtype) == (ag.Size([2, 3]), 2, 6, ag.float64)
    assert (s._nnz(), s.sparse_dim(), s.dense_dim(), s.is_coalesced()) == (4, 2, 0, False)
    assert s.device == ag.device("cpu") and not s.requires_grad and s.is_leaf
    assert not ag.ones(2).is_sparse and ag.ones(2).layout is ag.strided


def test_the_dense_tensor_it_stands_for_adds_repeated_entries():
    assert coo(ag).to_dense().tolist() == [[4.0, -1.5, 0.0], [0.0, 0.0, 8.0]]


@needs_torch
@pytest.mark.parametrize("make", [
    lambda L: L.sparse_coo_tensor(L.tensor(INDICES), L.tensor(VALUES), SHAPE),
    lambda L: L.sparse_coo_tensor(L.tensor(INDICES), L.tensor(VALUES)),  # size inferred
    lambda L: L.sparse_coo_tensor(INDICES, [1, 2, 3, 4], SHAPE),  # lists; int64 values
    lambda L: L.sparse_coo_tensor(INDICES, VALUES, SHAPE, dtype=L.float64),
    lambda L: L.sparse_coo_tensor(L.tensor(INDICES, dtype=L.int32), L.tensor(VALUES), SHAPE),
    lambda L: L.sparse_coo_tensor(size=(2, 3)),
    lambda L: L.sparse_coo_tensor((4, 5)),
    lambda L: L.sparse_coo_tensor(L.empty(2, 0, dtype=L.int64), L.empty(0), (2, 3)),
    lambda L: L.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (2,), is_coalesced=True),
    lambda L: L.sparse_coo_tensor([[1]], [7.0], (3,)),  # one entry: coalesced
    lambda L: L.sparse_coo_tensor([[0, 2]], [[1.0, 2.0], [3.0, 4.0]], (3, 2)),  # hybrid
    lambda L: L.sparse_coo_tensor(L.empty(0, 1, dtype=L.int64), L.tensor([2.0]), ()),
    lambda L: L.tensor([[0.0, 1.5, 0.0], [2.0, 0.0, 0.0]]).to_sparse(),
    lambda L: L.tensor([[0.0, 1.5, 0.0], [0.0, 0.0, 0.0]]).to_sparse(1),
    lambda L: L.tensor([[0, 1], [2, 0]]).to_sparse_coo(),
    lambda L: L.tensor([[0.0, 1.5], [0.0, 0.0]]).to_sparse(layout=L.sparse_coo),
    lambda L: L.zeros(2, 3, 2).to_sparse(dense_dim=1),
    lambda L: L.sparse.spdiags(L.tensor([[1.0, 2, 3], [4, 5, 6]]), L.tensor([0, -1]), (3, 3)),
    lambda L: L.sparse.spdiags(L.tensor([[1.0, 2, 3, 4]]), L.tensor([1]), (3, 4)),
])
def test_made_as_pytorch_makes_it(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's invariant-check notice
        theirs = make(torch)
    ours = make(ag)
    same_sparse(ours, theirs)
    assert repr(ours) == repr(theirs).replace("torch.", "arraygrad.")


@needs_torch
def test_reprs_match_pytorchs():
    def reprs(L):
        v = L.tensor(VALUES, requires_grad=True)
        return [repr(coo(L, requires_grad=True)), repr(coo(L, dtype=L.float32)),
                repr(L.sparse_coo_tensor(L.tensor(INDICES), v, SHAPE) * 2),
                repr(L.sparse_coo_tensor([[0, 1]], [1e-8, 12345.678], (3,))),
                repr(L.sparse_coo_tensor(L.arange(30).reshape(1, 30), L.arange(30.0) / 7, (40,)))]
    for ours, theirs in zip(reprs(ag), reprs(torch)):
        assert ours == theirs.replace("torch.", "arraygrad.")


def test_values_that_require_grad_put_the_tensor_in_the_graph():
    v = ag.tensor(VALUES, requires_grad=True)
    s = ag.sparse_coo_tensor(INDICES, v, SHAPE)
    assert s.requires_grad and not s.is_leaf
    assert s.grad_fn.name() == "SparseCooTensorWithDimsAndTensorsBackward0"
    leaf = ag.sparse_coo_tensor(INDICES, VALUES, SHAPE, requires_grad=True)
    assert leaf.requires_grad and leaf.is_leaf and leaf.grad_fn is None


def test_legacy_typed_constructors_warn_and_build():
    with pytest.warns(UserWarning, match=r"torch.sparse.SparseTensor\(indices, values, shape"):
        s = ag.sparse.FloatTensor(ag.tensor(INDICES), ag.tensor(VALUES, dtype=ag.float64),
                                  ag.Size(SHAPE))
    assert s.dtype is ag.float32 and tuple(s.shape) == SHAPE
    assert isinstance(s, ag.sparse.FloatTensor) and not isinstance(s, ag.sparse.DoubleTensor)
    assert not isinstance(ag.ones(2), ag.sparse.FloatTensor)
    with pytest.warns(UserWarning, match=r"SparseTensor\(shape"):
        empty = ag.sparse.DoubleTensor(2, 3)
    assert empty._nnz() == 0 and empty.dtype is ag.float64 and tuple(empty.shape) == (2, 3)
    assert s.type() == "arraygrad.sparse.FloatTensor"
    assert ag.cuda.sparse.FloatTensor.__module__ == "arraygrad.cuda.sparse"


@needs_torch
@pytest.mark.parametrize("call", [
    lambda L: L.sparse_coo_tensor(L.tensor([0, 1]), L.tensor([1.0, 2]), (2, 3)),
    lambda L: L.sparse_coo_tensor(L.tensor([[0, 1], [1, 1]]), L.tensor([1.0, 2, 3]), (2, 3)),
    lambda L: L.sparse_coo_tensor(L.tensor([[0, 1], [1, 1]]), L.tensor([1.0, 2]), (2,)),
    lambda L: L.sparse_coo_tensor(L.tensor([[0, 1]]), L.tensor([[1.0, 2], [3, 4]]), (2, 3)),
    lambda L: L.sparse_coo_tensor(L.tensor([[-1], [0]]), L.tensor([1.0]), (2, 3),
                                  check_invariants=True),
    lambda L: L.sparse_coo_tensor(L.tensor([[0, 5], [0, 0]]), L.tensor([1.0, 2]), (2, 3),
                                  check_invariants=True),
    lambda L: L.ones(2, 3).to_sparse(3),
    lambda L: L.ones(2, 3).to_sparse(sparse_dim=0),
])
def test_bad_input_raises_pytorchs_error(call):
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(ag)
    assert str(ours.value) == str(theirs.value)


def test_indices_out_of_range_are_refused_even_unchecked():
    # PyTorch skips the check by default and reads out of bounds later; arraygrad checks
    with pytest.raises(RuntimeError, match="for dim 0, size is 2 but found index 5"):
        ag.sparse_coo_tensor([[0, 5], [0, 0]], [1.0, 2.0], (2, 3))
    with pytest.raises(RuntimeError, match="found negative index -1 for dim 0"):
        ag.sparse_coo_tensor([[-1], [0]], [1.0])
    with pytest.raises(RuntimeError, match="floating point"):
        ag.sparse_coo_tensor([[0], [1]], [1], (2, 3), requires_grad=True)


def test_to_sparse_of_a_sparse_tensor_is_itself():
    s = coo(ag)
    assert s.to_sparse() is s and s.to_sparse_coo() is s
    with pytest.raises(RuntimeError, match="sparse_dim"):
        s.to_sparse(1)
    with pytest.raises(NotImplementedError, match="sparse COO layout only"):
        ag.ones(2, 2).to_sparse(layout=ag.sparse_csr)


def test_the_invariant_switch_keeps_pytorchs_api():
    check = ag.sparse.check_sparse_tensor_invariants
    assert not check.is_enabled()
    with check():
        assert check.is_enabled()
    assert not check.is_enabled()

    @check(enable=True)
    def inside():
        return check.is_enabled()

    assert inside() and not check.is_enabled()
    check.enable()
    assert check.is_enabled()
    check.disable()


def test_absent_sparse_names_say_why():
    with pytest.raises(AttributeError, match="CSR"):
        ag.sparse.sampled_addmm
    with pytest.raises(AttributeError, match="semi-structured"):
        ag.sparse.to_sparse_semi_structured


def test_to_sparse_keeps_nonzero_rows_of_dense_dimensions():
    x = ag.tensor(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0]]).tolist())
    s = x.to_sparse(1)
    assert s._indices().tolist() == [[1]] and s._values().tolist() == [[1.0, 0.0]]
    assert s.is_coalesced() and ag.equal(s.to_dense(), x)


@needs_torch
@pytest.mark.parametrize("make", [
    lambda L: L.zeros(2, 3, layout=L.sparse_coo), lambda L: L.empty((4,), layout=L.sparse_coo),
    lambda L: L.zeros_like(coo(L)), lambda L: L.empty_like(coo(L, dtype=L.float32)),
    lambda L: L.zeros_like(coo(L), dtype=L.float32),
])
def test_zeros_and_empty_make_sparse_tensors_for_the_coo_layout(make):
    same_sparse(make(ag), make(torch))


def test_other_factories_refuse_the_coo_layout():
    with pytest.raises(NotImplementedError, match="ones makes dense tensors"):
        ag.ones(2, layout=ag.sparse_coo)
    with pytest.raises(NotImplementedError, match="dense .strided. or sparse COO"):
        ag.zeros(2, layout=ag.sparse_csr)


def test_indices_and_values_on_two_devices_are_refused():
    pytest.importorskip("array_api_strict")
    with pytest.raises(RuntimeError, match=r"device of indices \(strict\) must match device of "
                                           r"values \(cpu\)"):
        ag.sparse_coo_tensor(ag.tensor(INDICES, device="strict"), ag.tensor(VALUES), SHAPE)
    moved = ag.sparse_coo_tensor(ag.tensor(INDICES, device="strict"), ag.tensor(VALUES), SHAPE,
                                 device="strict")
    assert moved.device == ag.device("strict") and moved._indices().device == moved.device
