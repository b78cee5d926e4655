"""safetensors files between arraygrad and PyTorch: arraygrad names a state dict's tensors by
its keys (they were ``t0..tN`` before, so PyTorch's ``load_file`` + ``load_state_dict``
failed), PyTorch's files load into arraygrad modules, tensors sharing memory are refused as
``safetensors.torch`` refuses them, and ``save_model``/``load_model`` tie them again, in both
directions. arraygrad's side needs no safetensors package; PyTorch's side skips without it."""

from __future__ import annotations

import io
import json
import struct
from collections import OrderedDict

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.serialization import safetensors as st

try:
    import torch
    import safetensors.torch as torch_st
except ImportError:
    torch = torch_st = None
needs_torch = pytest.mark.skipif(torch_st is None,
                                 reason="PyTorch and the safetensors package are not installed")


def _header(path):
    raw = open(path, "rb").read()
    (n,) = struct.unpack("<Q", raw[:8])
    return json.loads(raw[8:8 + n])


def _ours_model():
    ag.manual_seed(0)
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))


def _their_model():
    return torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(),
                               torch.nn.Linear(4, 2))


def _same_state(ours, theirs):
    assert list(ours) == list(theirs)
    for k in ours:
        np.testing.assert_array_equal(ours[k].detach().numpy(), theirs[k].detach().numpy())


def test_tensors_are_named_by_their_keys(tmp_path):
    state = OrderedDict(model=_ours_model().state_dict(), step=ag.tensor(3),
                        groups=[ag.ones(2), {"m": ag.zeros(1)}])
    ag.save_safetensors(state, tmp_path / "c.safetensors")
    names = [k for k in _header(tmp_path / "c.safetensors") if k != "__metadata__"]
    assert names == ["model.0.weight", "model.0.bias", "model.1.weight", "model.1.bias",
                     "model.1.running_mean", "model.1.running_var",
                     "model.1.num_batches_tracked", "model.3.weight", "model.3.bias", "step",
                     "groups.0", "groups.1.m"]
    ag.save_safetensors(ag.ones(2), tmp_path / "t.safetensors")
    assert [k for k in _header(tmp_path / "t.safetensors") if k != "__metadata__"] == ["tensor"]


def test_clashing_names_made_unique(tmp_path):
    ag.save_safetensors({"a.b": ag.ones(1), "a": {"b": ag.zeros(1)}, "__metadata__": ag.ones(2)},
                        tmp_path / "x.safetensors")
    header = _header(tmp_path / "x.safetensors")
    assert sorted(header) == ["__metadata__", "__metadata__#1", "a.b", "a.b#1"]
    back = ag.load_safetensors(tmp_path / "x.safetensors")
    assert back["a"]["b"].tolist() == [0.0] and back["a.b"].tolist() == [1.0]


@needs_torch
def test_pytorch_loads_what_arraygrad_saves(tmp_path):
    ours = _ours_model()
    ag.save_safetensors(ours.state_dict(), tmp_path / "m.safetensors")
    theirs = _their_model()
    loaded = torch_st.load_file(tmp_path / "m.safetensors")
    assert str(theirs.load_state_dict(loaded)) == "<All keys matched successfully>"
    _same_state(ours.state_dict(), theirs.state_dict())
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    ours.eval(), theirs.eval()
    np.testing.assert_allclose(ours(ag.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


@needs_torch
def test_arraygrad_loads_what_pytorch_saves(tmp_path):
    theirs = _their_model()
    torch_st.save_file(theirs.state_dict(), tmp_path / "m.safetensors", metadata={"by": "torch"})
    for load in (ag.load_safetensors, st.load_file, ag.load):
        ours = _ours_model()
        ours.load_state_dict(load(tmp_path / "m.safetensors"))
        _same_state(ours.state_dict(), theirs.state_dict())
    with open(tmp_path / "m.safetensors", "rb") as f:
        assert set(st.load(f.read())) == set(theirs.state_dict())  # the file's order


@needs_torch
def test_flat_functions_round_trip_with_pytorchs(tmp_path):
    tensors = {"a": ag.arange(6.0).reshape(2, 3), "b": ag.tensor([1, 2], dtype=ag.int32),
               "c": ag.tensor([True, False]), "d": ag.ones(2, dtype=ag.bfloat16)}
    st.save_file(tensors, tmp_path / "f.safetensors", metadata={"note": "x"})
    theirs = torch_st.load_file(tmp_path / "f.safetensors")
    for k, v in tensors.items():
        assert theirs[k].tolist() == v.tolist() and str(theirs[k].dtype) == f"torch.{v.dtype.name}"
    assert torch_st.load(st.save(tensors)).keys() == tensors.keys()
    back = st.load(torch_st.save({k: theirs[k] for k in theirs}))
    assert {k: v.tolist() for k, v in back.items()} == {k: v.tolist() for k, v in tensors.items()}


@needs_torch
def test_shared_tensors_refused_as_pytorch(tmp_path):
    ours = nn.Sequential(nn.Embedding(5, 3), nn.Linear(3, 5, bias=False))
    ours[1].weight = ours[0].weight
    theirs = torch.nn.Sequential(torch.nn.Embedding(5, 3), torch.nn.Linear(3, 5, bias=False))
    theirs[1].weight = theirs[0].weight
    with pytest.raises(RuntimeError) as their_error:
        torch_st.save_file(theirs.state_dict(), tmp_path / "t.safetensors")
    for save in (ag.save_safetensors, st.save_file):
        with pytest.raises(RuntimeError) as our_error:
            save(ours.state_dict(), tmp_path / "o.safetensors")
        assert type(our_error.value) is type(their_error.value)
        assert "Some tensors share memory" in str(our_error.value)
        assert "{'0.weight', '1.weight'}" in str(our_error.value)
    assert not (tmp_path / "o.safetensors").exists()  # checked before anything is written


def test_what_shares_memory():
    base = ag.arange(6.0)
    st.save({"a": base[:3], "b": base[3:]})  # disjoint slices of one allocation: allowed
    st.save({"a": ag.ones(4), "b": ag.ones(4)})
    for overlapping in ({"a": base, "b": base[2:4]}, {"a": base[:4], "b": base[3:]},
                        {"a": base, "b": base.view(2, 3).t()}, {"a": base, "b": base}):
        with pytest.raises(RuntimeError, match="share memory"):
            st.save(overlapping)


def test_same_tensor_twice_is_stored_once_and_tied_again(tmp_path):
    w = ag.randn(2, 2)
    ag.save_safetensors({"enc": w, "dec": w}, tmp_path / "w.safetensors")
    header = _header(tmp_path / "w.safetensors")
    assert [k for k in header if k != "__metadata__"] == ["enc"]
    assert header["__metadata__"]["dec"] == "enc"  # as safetensors' save_model records drops
    back = ag.load_safetensors(tmp_path / "w.safetensors")
    assert back["dec"] is back["enc"]


@needs_torch
@pytest.mark.parametrize("writer", ["arraygrad", "pytorch"])
def test_save_model_and_load_model_tie_weights_both_ways(tmp_path, writer):
    ours = nn.Sequential(nn.Embedding(5, 3), nn.Linear(3, 5, bias=False))
    ours[1].weight = ours[0].weight
    theirs = torch.nn.Sequential(torch.nn.Embedding(5, 3), torch.nn.Linear(3, 5, bias=False))
    theirs[1].weight = theirs[0].weight
    path = tmp_path / "tied.safetensors"
    if writer == "arraygrad":
        st.save_model(ours, path)
        assert torch_st.load_model(theirs, path) == (set(), [])
    else:
        torch_st.save_model(theirs, path)
        assert st.load_model(ours, path) == ([], [])
    assert ours[1].weight is ours[0].weight
    np.testing.assert_array_equal(ours[0].weight.detach().numpy(),
                                  theirs[0].weight.detach().numpy())
    assert list(st.load_file(path)) == list(torch_st.load_file(path)) == ["0.weight"]


def test_load_model_strict(tmp_path):
    st.save_file({"weight": ag.ones(2, 3)}, tmp_path / "w.safetensors")
    model = nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "bias"'):
        st.load_model(model, tmp_path / "w.safetensors")
    assert st.load_model(model, tmp_path / "w.safetensors", strict=False) == (["bias"], [])
    assert model.weight.tolist() == [[1.0] * 3] * 2


def test_flat_functions_check_their_input():
    with pytest.raises(ValueError, match="Expected a dict"):
        st.save([ag.ones(1)])
    with pytest.raises(ValueError, match="Key `a` is invalid"):
        st.save({"a": 1})
    with pytest.raises(TypeError, match="metadata"):
        st.save({"a": ag.ones(1)}, metadata={"k": 1})
    with pytest.raises(RuntimeError, match="pickle"):
        st.load(b"\x80\x04" + b"\x00" * 20)
    data = st.save({"a": ag.ones(1)})
    assert st.load(io.BytesIO(data).getvalue())["a"].tolist() == [1.0]
