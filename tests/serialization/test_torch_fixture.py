"""Loading a checkpoint real PyTorch wrote (fixtures/torch_checkpoint.pt, made by
make_torch_fixture.py) without PyTorch: every value, dtype, shape, stride, the shared storage of
views, parameters, an optimizer state and plain Python values come back as PyTorch saved them."""

from __future__ import annotations

import io
import math
import pickle
from collections import OrderedDict

import pytest

import arraygrad as ag
from make_torch_fixture import FIXTURE, _formula, expected

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _values(shape, dtype):
    n = math.prod(shape)
    return [_formula(i, dtype) for i in range(n)]


def _flat(t):
    return ag.reshape(t, (-1,)).tolist() if t.ndim else [t.item()]


@pytest.fixture(scope="module")
def ckpt():
    return ag.load(FIXTURE)


def test_state_dicts_and_dtypes(ckpt):
    spec = expected()
    for group in ("conv", "lstm", "dtypes"):
        loaded = ckpt[group if group != "conv" else "model"]
        assert list(loaded) == list(spec[group])
        for name, (shape, dtype) in spec[group].items():
            t = loaded[name]
            assert type(t) is ag.Tensor and not t.requires_grad
            assert t.dtype is getattr(ag, dtype) and tuple(t.shape) == shape, name
            assert _flat(t) == _values(shape, dtype), name
    assert type(ckpt["model"]) is OrderedDict
    assert ckpt["model"]._metadata == OrderedDict([("", {"version": 1}), ("bn", {"version": 2})])
    assert ckpt["dtypes"]["dtype_int64"].tolist()[0][1] == _formula(1, "int64") > 2 ** 40


def test_conv_state_dict_loads_into_an_arraygrad_net(ckpt):
    from arraygrad import nn

    net = nn.ModuleDict({"conv": nn.Conv2d(1, 2, 3), "bn": nn.BatchNorm2d(2),
                         "fc": nn.Linear(8, 3)})
    net.load_state_dict(ckpt["model"])
    assert net["conv"].weight.tolist() == ag.tensor(
        _values((2, 1, 3, 3), "float32")).reshape(2, 1, 3, 3).tolist()
    assert net["bn"].num_batches_tracked.item() == _formula(0, "int64")


def test_views_keep_their_storage_layout(ckpt):
    v = ckpt["views"]
    base = ag.arange(24, dtype=ag.float32).reshape(4, 6) / 4
    assert v["base"].tolist() == base.tolist()
    assert v["t"].tolist() == base.t().tolist() and v["t"].stride() == (1, 6)
    assert v["row"].tolist() == base[2].tolist()
    assert v["cols"].tolist() == base[:, 1::2].tolist() and v["cols"].stride() == (6, 2)
    assert v["expanded"].tolist() == [[0.0, 0.0]] * 3 and v["expanded"].stride() == (0, 0)
    assert v["scalar"].ndim == 0 and v["scalar"].item() == 2.5
    assert tuple(v["empty"].shape) == (0, 3)
    assert not v["t"].is_contiguous() and v["base"].is_contiguous()


def test_parameter_optimizer_state_and_plain_values(ckpt):
    from arraygrad.nn import Parameter

    p = ckpt["param"]
    assert isinstance(p, Parameter) and p.requires_grad and _flat(p) == _values((2, 2), "float32")
    opt = ckpt["optim"]
    assert list(opt["state"]) == [0]
    assert opt["state"][0]["step"].item() == 3.0 and opt["state"][0]["step"].ndim == 0
    assert opt["param_groups"][0]["betas"] == (0.9, 0.999)
    assert opt["param_groups"][0]["params"] == [0] and opt["param_groups"][0]["foreach"] is None
    assert ckpt["epoch"] == 7
    extras = ckpt["extras"]
    assert extras["name"] == "fixture" and extras["best"] == math.inf and extras["ratio"] == 0.25
    assert extras["bytes"] == b"\x00\xff" and extras["set"] == {1, 2}
    assert extras["size"] == ag.Size([2, 3]) and type(extras["size"]) is ag.Size
    assert extras["dtype"] is ag.float16 and extras["device"] == ag.device("cpu")
    assert extras["none"] is None and extras["tuple"] == (1, "a")


def test_fixture_resaved_by_arraygrad_loads_back_identically(ckpt):
    buf = io.BytesIO()
    ag.save(ckpt, buf)
    again = ag.load(io.BytesIO(buf.getvalue()))
    for group in ("model", "lstm", "dtypes", "views"):
        for name, t in ckpt[group].items():
            u = again[group][name]
            assert u.dtype is t.dtype and u.tolist() == t.tolist()
            if name != "cols":  # transposed/expanded layouts are written in memory order
                assert u.stride() == t.stride(), name
    # a gather out of a larger storage (strides (6, 2)) no longer has that storage: arraygrad
    # keeps no storage behind loaded tensors, so it is written compact (docs/differences)
    assert again["views"]["cols"].stride() == (3, 1)
    assert again["extras"] == ckpt["extras"]


def test_fixture_is_refused_by_nothing_and_loads_full_too():
    full = ag.load(FIXTURE, weights_only=False)
    assert full["epoch"] == 7 and full["model"]["conv.weight"].shape == (2, 1, 3, 3)
    assert ag.serialization.get_unsafe_globals_in_checkpoint(FIXTURE) == []
    # the same file naming one global outside the allow-list is refused as a whole
    import zipfile

    zf = zipfile.ZipFile(FIXTURE)
    names = zf.namelist()
    pkl = zf.read(names[0]).replace(b"collections\nOrderedDict", b"collections\nUserDict123")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as out:
        for n in names:
            out.writestr(n, pkl if n == names[0] else zf.read(n))
    with pytest.raises(pickle.UnpicklingError, match="GLOBAL collections.UserDict123 was not"):
        ag.load(io.BytesIO(buf.getvalue()))
    assert ag.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(buf.getvalue())) == [
        "collections.UserDict123"]


@needs_torch
def test_fixture_matches_what_the_script_makes_now(tmp_path, monkeypatch):
    import make_torch_fixture

    monkeypatch.setattr(make_torch_fixture, "FIXTURE", str(tmp_path / "fresh.pt"))
    make_torch_fixture.main()
    fresh = torch.load(tmp_path / "fresh.pt", weights_only=True)
    committed = torch.load(FIXTURE, weights_only=True)
    for group in ("model", "lstm", "dtypes", "views"):
        for name, t in fresh[group].items():
            old = committed[group][name]
            assert torch.equal(t, old) and t.dtype == old.dtype
