"""Checkpoints cross between arraygrad and real PyTorch both ways (skipped without PyTorch):
state_dicts of a conv net and of an LSTM saved by each and loaded by the other give identical
values, dtypes, shapes, strides and outputs; a training checkpoint with an optimizer's nested
state; views sharing a storage; PyTorch's own weights-only loader accepts what arraygrad writes,
memory-maps it (the 64-byte alignment) and finds no unsafe global in it."""

from __future__ import annotations

import io
import pickle

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
pytestmark = needs_torch


def _torch_conv_net():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.BatchNorm2d(4),
                               torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                               torch.nn.Linear(64, 5))


def _ag_conv_net():
    return nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 5))


def _trained_torch_conv_net():
    net = _torch_conv_net()
    net.train()
    for _ in range(2):  # BatchNorm running statistics and num_batches_tracked move
        net(torch.randn(6, 3, 8, 8)).sum().backward()
    net.eval()
    return net


def _same(ag_t, torch_t):
    assert ag_t.dtype.name == str(torch_t.dtype).removeprefix("torch.")
    assert tuple(ag_t.shape) == tuple(torch_t.shape)
    np.testing.assert_array_equal(ag_t.detach().numpy(), torch_t.detach().numpy())


def test_conv_state_dict_saved_by_torch_loads_into_arraygrad(tmp_path):
    tnet = _trained_torch_conv_net()
    torch.save(tnet.state_dict(), tmp_path / "conv.pt")
    sd = ag.load(tmp_path / "conv.pt")  # weights_only by default
    assert list(sd) == list(tnet.state_dict())
    for k, v in tnet.state_dict().items():
        _same(sd[k], v)
    anet = _ag_conv_net()
    anet.load_state_dict(sd)
    anet.eval()
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(anet(ag.tensor(x)).detach().numpy(),
                               tnet(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_conv_state_dict_saved_by_arraygrad_loads_into_torch(tmp_path):
    anet = _ag_conv_net()
    anet.train()
    anet(ag.randn(6, 3, 8, 8)).sum().backward()
    anet.eval()
    ag.save(anet.state_dict(), tmp_path / "conv.pt")
    sd = torch.load(tmp_path / "conv.pt", weights_only=True)
    assert list(sd) == list(anet.state_dict())
    for k, v in anet.state_dict().items():
        _same(v, sd[k])
    tnet = _torch_conv_net()
    tnet.load_state_dict(sd)
    tnet.eval()
    x = np.random.default_rng(1).standard_normal((2, 3, 8, 8)).astype(np.float32)
    np.testing.assert_allclose(tnet(torch.tensor(x)).detach().numpy(),
                               anet(ag.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.filterwarnings("ignore:LSTM with projections")
def test_lstm_state_dict_round_trips_through_arraygrad(tmp_path):
    """torch LSTM -> torch.save -> arraygrad.load -> arraygrad.save -> torch.load -> a fresh
    LSTM: identical outputs (arraygrad holds the LSTM's tensors under its key names)."""
    torch.manual_seed(0)
    lstm = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    torch.save(lstm.state_dict(), tmp_path / "lstm.pt")
    sd = ag.load(tmp_path / "lstm.pt")
    assert list(sd) == list(lstm.state_dict())
    assert "weight_hr_l1_reverse" in sd
    for k, v in lstm.state_dict().items():
        _same(sd[k], v)
    ag.save(sd, tmp_path / "lstm_ag.pt")
    fresh = torch.nn.LSTM(3, 4, num_layers=2, bidirectional=True, proj_size=2)
    fresh.load_state_dict(torch.load(tmp_path / "lstm_ag.pt", weights_only=True))
    x = torch.randn(5, 2, 3)
    out, (h, c) = lstm(x)
    out2, (h2, c2) = fresh(x)
    assert torch.equal(out, out2) and torch.equal(h, h2) and torch.equal(c, c2)


DTYPES = ["float16", "float32", "float64", "int32", "int64", "bool"]


def _torch_sample(dtype):
    base = torch.arange(24).reshape(4, 6) - 11
    if dtype == "bool":
        return base % 3 == 0
    if dtype.startswith("float"):
        return base.to(getattr(torch, dtype)) / 7
    return base.to(getattr(torch, dtype)) * (2 ** 33 if dtype == "int64" else 1000)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_and_views_torch_to_arraygrad(tmp_path, dtype):
    base = _torch_sample(dtype)
    obj = {"base": base, "t": base.t(), "row": base[2], "cols": base[:, 1::2],
           "expanded": base[1, :1].expand(3, 2), "scalar": base[0, 0].clone(),
           "empty": base[:0]}
    torch.save(obj, tmp_path / "v.pt")
    back = ag.load(tmp_path / "v.pt")
    for k, v in obj.items():
        _same(back[k], v)
        if v.numel() > 1:
            assert back[k].stride() == v.stride(), k


@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes_and_views_arraygrad_to_torch(tmp_path, dtype):
    base = ag.tensor(_torch_sample(dtype).numpy())
    obj = {"base": base, "t": base.t(), "row": base[2], "cols": base[:, 1::2],
           "expanded": base[1, :1].expand(3, 2), "scalar": base[0, 0], "empty": base[:0]}
    ag.save(obj, tmp_path / "v.pt")
    back = torch.load(tmp_path / "v.pt", weights_only=True)
    for k, v in obj.items():
        _same(v, back[k])
        assert back[k].stride() == v.stride(), k
    # views of one tensor share one storage (written once), at PyTorch's offsets
    ptr = back["base"].untyped_storage().data_ptr()
    for k in ("t", "row", "cols", "expanded", "scalar"):
        assert back[k].untyped_storage().data_ptr() == ptr, k
    assert back["row"].storage_offset() == 12 and back["cols"].storage_offset() == 1
    assert back["scalar"].storage_offset() == 0 and back["expanded"].storage_offset() == 6
    import zipfile

    assert sum("/data/" in n for n in zipfile.ZipFile(tmp_path / "v.pt").namelist()) == 1


def test_training_checkpoint_torch_to_arraygrad(tmp_path):
    tnet = _torch_conv_net()
    opt = torch.optim.Adam(tnet.parameters(), lr=0.01)
    for _ in range(3):
        opt.zero_grad()
        tnet(torch.randn(4, 3, 8, 8)).sum().backward()
        opt.step()
    torch.save({"epoch": 3, "model": tnet.state_dict(), "optim": opt.state_dict()},
               tmp_path / "ckpt.pt")
    ck = ag.load(tmp_path / "ckpt.pt")
    assert ck["epoch"] == 3
    tosd = opt.state_dict()
    assert ck["optim"]["param_groups"] == tosd["param_groups"]
    assert list(ck["optim"]["state"]) == list(tosd["state"])
    for i, st in tosd["state"].items():
        assert set(ck["optim"]["state"][i]) == set(st)
        for k, v in st.items():
            _same(ck["optim"]["state"][i][k], v)
    anet = _ag_conv_net()
    anet.load_state_dict(ck["model"])
    aopt = ag.optim.Adam(anet.parameters(), lr=1.0)
    aopt.load_state_dict(ck["optim"])
    assert aopt.param_groups[0]["lr"] == 0.01


def test_training_checkpoint_arraygrad_to_torch(tmp_path):
    anet = _ag_conv_net()
    aopt = ag.optim.Adam(anet.parameters(), lr=0.01)
    for _ in range(3):
        aopt.zero_grad()
        anet(ag.randn(4, 3, 8, 8)).sum().backward()
        aopt.step()
    ag.save({"epoch": 3, "model": anet.state_dict(), "optim": aopt.state_dict()},
            tmp_path / "ckpt.pt")
    ck = torch.load(tmp_path / "ckpt.pt", weights_only=True)
    assert ck["epoch"] == 3
    aosd = aopt.state_dict()
    assert ck["optim"]["param_groups"] == aosd["param_groups"]
    for i, st in aosd["state"].items():
        for k, v in st.items():
            _same(v, ck["optim"]["state"][i][k])
    tnet = _torch_conv_net()
    tnet.load_state_dict(ck["model"])
    topt = torch.optim.Adam(tnet.parameters(), lr=1.0)
    topt.load_state_dict(ck["optim"])  # PyTorch accepts arraygrad's optimizer state as its own
    assert topt.param_groups[0]["lr"] == 0.01
    x = torch.randn(2, 3, 8, 8)
    tnet.eval()
    anet.eval()
    np.testing.assert_allclose(tnet(x).detach().numpy(),
                               anet(ag.tensor(x.numpy())).detach().numpy(), rtol=1e-5,
                               atol=1e-6)


def test_torch_reads_arraygrad_files_with_its_own_tools(tmp_path):
    from arraygrad.nn import Parameter

    obj = {"p": Parameter(ag.ones(2, 3)), "x": ag.ones(3, requires_grad=True),
           "size": ag.Size([2, 3]), "dtype": ag.float64, "device": ag.device("cpu"),
           "bytes": b"\x00\x01", "big": ag.arange(100, dtype=ag.float32)}
    ag.save(obj, tmp_path / "a.pt")
    assert torch.serialization.get_unsafe_globals_in_checkpoint(tmp_path / "a.pt") == []
    back = torch.load(tmp_path / "a.pt", weights_only=True, mmap=True)  # needs the alignment
    assert isinstance(back["p"], torch.nn.Parameter) and back["p"].requires_grad
    assert back["x"].requires_grad and back["size"] == torch.Size([2, 3])
    assert back["dtype"] is torch.float64 and back["device"] == torch.device("cpu")
    assert back["bytes"] == b"\x00\x01" and back["big"].sum().item() == 4950.0


def test_whole_modules_cross_with_weights_only_false(tmp_path):
    tmodel = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    torch.save(tmodel, tmp_path / "tm.pt")
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.container.Sequential"):
        ag.load(tmp_path / "tm.pt")
    amodel = ag.load(tmp_path / "tm.pt", weights_only=False)  # torch.nn.* -> arraygrad.nn.*
    assert type(amodel) is nn.Sequential and type(amodel[0]) is nn.Linear
    x = np.random.default_rng(2).standard_normal((5, 3)).astype(np.float32)
    np.testing.assert_allclose(amodel(ag.tensor(x)).detach().numpy(),
                               tmodel(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    # arraygrad's own whole module: PyTorch's weights-only loader refuses it by name, like ours
    ag.save(amodel, tmp_path / "am.pt")
    with pytest.raises(pickle.UnpicklingError, match="arraygrad.nn.modules.container.Sequential"):
        torch.load(tmp_path / "am.pt", weights_only=True)
    with pytest.raises(pickle.UnpicklingError, match="arraygrad.nn.modules.container.Sequential"):
        ag.load(tmp_path / "am.pt")


def test_checkpoint_saved_to_a_buffer_loads_in_torch():
    buf = io.BytesIO()
    ag.save({"w": ag.ones(2)}, buf)
    buf.seek(0)
    assert torch.load(buf, weights_only=True)["w"].tolist() == [1.0, 1.0]
