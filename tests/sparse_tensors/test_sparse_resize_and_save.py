"""Sparse tensors resized in place (``sparse_resize_``, ``sparse_resize_and_clear_``,
``resize_as_sparse_``) and saved: ``arraygrad.save`` writes PyTorch's zip format for a COO
tensor (``torch._utils._rebuild_sparse_tensor``), which ``torch.load`` reads with its default
``weights_only=True``, and ``arraygrad.load`` reads PyTorch's files."""

import warnings

import pytest

import arraygrad as ag
from sparse_pairs import coo, needs_torch, same_sparse, torch


@needs_torch
@pytest.mark.parametrize("call", [
    lambda L, s: s.sparse_resize_((3, 4), 2, 0),
    lambda L, s: s.sparse_resize_and_clear_((5, 5, 2), 1, 2),
    lambda L, s: s.resize_as_sparse_(L.sparse_coo_tensor(size=(4, 4))),
    lambda L, s: L.resize_as_sparse_(s, L.sparse_coo_tensor(size=(2, 5))),
    lambda L, s: L.sparse_coo_tensor([[0, 1]], L.ones(2, 3), (2, 3)).sparse_resize_((4, 3), 1, 1),
    lambda L, s: L.sparse_coo_tensor(size=(2, 2)).sparse_resize_((3, 2, 2), 1, 2),
])
def test_resized_as_pytorch_resizes(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = call(torch, coo(torch))
    s = coo(ag)
    before = s._version
    ours = call(ag, s)
    same_sparse(ours, theirs)
    assert ours._version == before + 1 or ours is not s


@needs_torch
@pytest.mark.parametrize("args", [((1, 4), 2, 0), ((3, 4, 2), 3, 0), ((3, 4, 2), 2, 1),
                                  ((3,), 1, 0)])
def test_resizing_a_tensor_with_entries_refuses_what_pytorch_refuses(args):
    with pytest.raises(RuntimeError) as theirs:
        coo(torch).sparse_resize_(*args)
    s = coo(ag)
    with pytest.raises(RuntimeError) as ours:
        s.sparse_resize_(*args)
    assert str(ours.value) == str(theirs.value)
    assert tuple(s.shape) == (2, 3) and s._nnz() == 4  # unchanged


def test_a_grown_dense_dimension_is_padded_with_zeros():
    h = ag.sparse_coo_tensor([[0, 1]], [[1.0, 2.0], [3.0, 4.0]], (2, 2))
    h.sparse_resize_((3, 3), 1, 1)
    assert h.to_dense().tolist() == [[1.0, 2.0, 0.0], [3.0, 4.0, 0.0], [0.0, 0.0, 0.0]]


def roundtrip(tmp_path, obj):
    path = tmp_path / "sparse.pt"
    ag.save(obj, path)
    return path


@needs_torch
def test_pytorch_loads_what_arraygrad_saves(tmp_path):
    h = ag.sparse_coo_tensor([[0, 2]], [[1.0, 2.0], [3.0, 4.0]], (4, 2)).coalesce()
    path = roundtrip(tmp_path, {"adj": coo(ag), "hybrid": h, "w": ag.ones(2),
                                "layout": ag.sparse_coo})
    loaded = torch.load(path)  # weights_only=True, PyTorch's default
    same_sparse(coo(ag), loaded["adj"])
    same_sparse(h, loaded["hybrid"])
    assert loaded["layout"] is torch.sparse_coo


@needs_torch
def test_arraygrad_loads_what_pytorch_saves(tmp_path):
    path = tmp_path / "t.pt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = coo(torch)
        torch.save({"adj": t, "c": t.coalesce().float(), "layout": torch.strided}, path)
    loaded = ag.load(path)
    same_sparse(loaded["adj"], t)
    same_sparse(loaded["c"], t.coalesce().float())
    assert loaded["layout"] is ag.strided


def test_a_saved_sparse_tensor_round_trips(tmp_path):
    s = coo(ag)
    back = ag.load(roundtrip(tmp_path, [s, s.coalesce()]))
    assert back[0]._indices().tolist() == s._indices().tolist()
    assert back[0]._values().tolist() == s._values().tolist()
    assert not back[0].is_coalesced() and back[1].is_coalesced()


def test_a_checkpoint_with_indices_out_of_range_is_refused(tmp_path):
    from arraygrad.serialization import _rebuild

    bad = (ag.tensor([[0, 7]]), ag.tensor([1.0, 2.0]), (3,), False)
    with pytest.raises(RuntimeError, match="invalid sparse tensor in the checkpoint"):
        _rebuild._rebuild_sparse_tensor(ag.sparse_coo, bad)
    with pytest.raises(RuntimeError, match="COO only"):
        _rebuild._rebuild_sparse_tensor(ag.sparse_csr, bad)
    with pytest.raises(RuntimeError, match="invalid layout"):
        _rebuild._get_layout("torch.not_a_layout")
