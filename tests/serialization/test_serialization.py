"""arraygrad.save / arraygrad.load: exact round trips in both formats (PyTorch's zip checkpoint,
what ``save`` writes, and the safetensors layout of ``save_safetensors``, which ``load`` still
recognises), the documented safetensors layout, and hostile safetensors files (truncated,
corrupted, oversized header, pickle) rejected without executing. The zip format's own layout and
hostile files are in test_checkpoint_format.py and tests/reliability/test_safe_loading.py."""

from __future__ import annotations

import io
import json
import math
import pickle
import struct
from collections import OrderedDict

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import serialization

ALL_DTYPES = [ag.float16, ag.float32, ag.float64, ag.int32, ag.int64, ag.bool]


@pytest.fixture(params=["torch-zip", "safetensors"])
def save(request):
    """Each round trip runs through both writers; ``ag.load`` reads both."""
    return ag.save if request.param == "torch-zip" else ag.save_safetensors


def _sample(dtype):
    if dtype is ag.bool:
        return ag.tensor([[True, False, True], [False, False, True]])
    if dtype.is_floating_point:
        base = np.array([[0.1, -2.5, 65504.0], [math.inf, -0.0, 1e-7]])
        return ag.tensor(base, dtype=dtype)
    info = {ag.int32: 2 ** 31 - 1, ag.int64: 2 ** 63 - 1}[dtype]
    return ag.tensor([[info, -info - 1, 0], [1, -1, 7]], dtype=dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_round_trip_is_exact_for_every_dtype(save, tmp_path, dtype):
    t = _sample(dtype)
    save(t, tmp_path / "t.ag")
    back = ag.load(tmp_path / "t.ag")
    assert back.dtype is dtype and tuple(back.shape) == (2, 3)
    assert back.numpy().tobytes() == t.numpy().tobytes()  # bit-exact (incl. -0.0, inf)


def test_round_trip_nan_and_odd_shapes(save):
    buf = io.BytesIO()
    obj = [ag.tensor(float("nan")), ag.zeros(0, 3), ag.ones(1, 1, 1, dtype=ag.int32)]
    save(obj, buf)
    buf.seek(0)
    a, b, c = ag.load(buf)
    assert math.isnan(a.item()) and a.ndim == 0
    assert tuple(b.shape) == (0, 3) and tuple(c.shape) == (1, 1, 1) and c.dtype is ag.int32


def test_nested_state_dicts_round_trip(save, tmp_path):
    w = ag.randn(3, 2)
    state = OrderedDict(
        model=OrderedDict([("fc.weight", w), ("fc.bias", ag.zeros(3))]),
        optimizer={"state": {0: {"step": ag.tensor(5.0), "exp_avg": ag.ones(3, 2)}},
                   "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "amsgrad": False,
                                     "foreach": None, "params": [0, 1], "name": "g0"}]},
        epoch=7, best=float("inf"), tag="run-1", again=w,
    )
    save(state, tmp_path / "ckpt.ag")
    back = ag.load(tmp_path / "ckpt.ag")
    assert type(back) is OrderedDict and list(back) == list(state)
    assert type(back["model"]) is OrderedDict
    np.testing.assert_array_equal(back["model"]["fc.weight"].numpy(), w.numpy())
    opt = back["optimizer"]
    assert list(opt["state"]) == [0]  # integer keys survive
    assert opt["state"][0]["step"].item() == 5.0
    assert opt["param_groups"][0]["betas"] == (0.9, 0.999)
    assert opt["param_groups"][0]["foreach"] is None and opt["param_groups"][0]["amsgrad"] is False
    assert back["epoch"] == 7 and back["best"] == math.inf and back["tag"] == "run-1"
    assert back["again"] is back["model"]["fc.weight"]  # a shared tensor stays shared


def test_optimizer_and_module_state_round_trip(save, tmp_path):
    from arraygrad import nn

    model = nn.Linear(3, 2)
    opt = ag.optim.Adam(model.parameters(), lr=0.01)
    model(ag.randn(4, 3)).sum().backward()
    opt.step()
    save({"model": model.state_dict(), "opt": opt.state_dict()}, tmp_path / "c.ag")
    ck = ag.load(tmp_path / "c.ag")
    model2 = nn.Linear(3, 2)
    model2.load_state_dict(ck["model"])
    opt2 = ag.optim.Adam(model2.parameters(), lr=1.0)
    opt2.load_state_dict(ck["opt"])
    assert opt2.param_groups[0]["lr"] == 0.01
    np.testing.assert_array_equal(model2.weight.detach().numpy(), model.weight.detach().numpy())


def test_requires_grad_and_parameters_are_restored(save):
    from arraygrad.nn import Parameter

    buf = io.BytesIO()
    save({"p": Parameter(ag.ones(2)), "x": ag.ones(2, requires_grad=True), "y": ag.ones(2)}, buf)
    back = ag.load(io.BytesIO(buf.getvalue()))
    assert isinstance(back["p"], Parameter) and back["p"].requires_grad
    assert back["x"].requires_grad and back["x"].is_leaf and not back["y"].requires_grad


def test_layout_is_safetensors(tmp_path):
    ag.save_safetensors({"a": ag.tensor([1.0, 2.0])}, tmp_path / "f.ag")
    raw = (tmp_path / "f.ag").read_bytes()
    (n,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + n])
    assert header["a"] == {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}  # the key names it
    assert header["__metadata__"]["format"] == "arraygrad"
    assert raw[8 + n:] == struct.pack("<2f", 1.0, 2.0)
    assert (8 + n) % 8 == 0


def test_plain_safetensors_file_loads_as_dict(tmp_path):
    header = json.dumps({"w": {"dtype": "I64", "shape": [2], "data_offsets": [0, 16]}}).encode()
    (tmp_path / "x.safetensors").write_bytes(struct.pack("<Q", len(header)) + header
                                             + struct.pack("<2q", 3, -4))
    out = ag.load(tmp_path / "x.safetensors")
    assert list(out) == ["w"] and out["w"].tolist() == [3, -4] and out["w"].dtype is ag.int64


def test_portable_path_without_from_bytes(save, monkeypatch):
    """Backends without the optional ``from_bytes`` go through struct + from_host."""
    backend = ag.zeros(1)._backend
    if hasattr(type(backend), "from_bytes"):
        monkeypatch.delattr(type(backend), "from_bytes")
    buf = io.BytesIO()
    tensors = [_sample(d) for d in ALL_DTYPES]
    save(tensors, buf)
    for t, back in zip(tensors, ag.load(io.BytesIO(buf.getvalue()))):
        assert back.dtype is t.dtype and back.numpy().tobytes() == t.numpy().tobytes()


def test_map_location(save, tmp_path):
    save(ag.ones(2), tmp_path / "m.ag")
    assert ag.load(tmp_path / "m.ag", map_location="cpu").device.type == "cpu"
    assert ag.load(tmp_path / "m.ag", map_location={"cpu": "cpu"}).device.type == "cpu"
    assert ag.load(tmp_path / "m.ag", map_location=b"cpu").device.type == "cpu"


def test_unsupported_objects_are_rejected(tmp_path):
    with pytest.raises(TypeError, match="cannot save an object of type object"):
        ag.save_safetensors({"x": object()}, io.BytesIO())
    # the zip format pickles anything picklable; what is not fails before the file is touched
    path = tmp_path / "never.pt"
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        ag.save({"w": ag.ones(2), "f": lambda x: x}, path)
    assert not path.exists()


# -- hostile files --------------------------------------------------------------------------

def _valid_bytes():
    buf = io.BytesIO()
    ag.save_safetensors({"w": ag.arange(6, dtype=ag.float32), "n": 3}, buf)
    return buf.getvalue()


@pytest.mark.parametrize("cut", [0, 5, 8, 20, -1])
def test_truncated_file(tmp_path, cut):
    raw = _valid_bytes()
    (tmp_path / "t.ag").write_bytes(raw[:cut] if cut >= 0 else raw[:-4])
    with pytest.raises(RuntimeError, match="truncated|outside"):
        ag.load(tmp_path / "t.ag")
    with pytest.raises(RuntimeError, match="truncated|outside"):
        ag.load_safetensors(tmp_path / "t.ag")


def test_bit_flipped_header(tmp_path):
    raw = bytearray(_valid_bytes())
    (n,) = struct.unpack("<Q", raw[:8])
    failures = 0
    for pos in range(8, 8 + n, 7):  # flip a bit at many places of the JSON header
        bad = bytearray(raw)
        bad[pos] ^= 0x40
        (tmp_path / "b.ag").write_bytes(bytes(bad))
        try:
            ag.load(tmp_path / "b.ag")
        except (RuntimeError, ValueError):
            failures += 1
    assert failures > 0
    bad = bytearray(raw)
    bad[8] = ord("[")  # header is no longer a JSON object
    (tmp_path / "b.ag").write_bytes(bytes(bad))
    with pytest.raises(RuntimeError, match="JSON"):
        ag.load(tmp_path / "b.ag")


def test_offsets_and_sizes_are_validated(tmp_path):
    def write(header, data=b"\x00" * 8):
        raw = json.dumps(header).encode()
        (tmp_path / "h.ag").write_bytes(struct.pack("<Q", len(raw)) + raw + data)

    write({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})
    with pytest.raises(RuntimeError, match="outside"):
        ag.load(tmp_path / "h.ag")
    write({"a": {"dtype": "F32", "shape": [1000000000], "data_offsets": [0, 8]}})
    with pytest.raises(RuntimeError, match="do not match"):
        ag.load(tmp_path / "h.ag")
    write({"a": {"dtype": "F8_E4M3", "shape": [1], "data_offsets": [0, 8]}})
    with pytest.raises(RuntimeError, match="unsupported dtype"):
        ag.load(tmp_path / "h.ag")
    write({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})
    with pytest.raises(RuntimeError, match="invalid shape"):
        ag.load(tmp_path / "h.ag")
    write({"__metadata__": {"format": "arraygrad", "structure": json.dumps({"T": "zz"})}}, b"")
    with pytest.raises(RuntimeError, match="missing tensor"):
        ag.load(tmp_path / "h.ag")
    write({"__metadata__": {"format": "arraygrad", "structure": json.dumps({"eval": "1"})}}, b"")
    with pytest.raises(RuntimeError, match="malformed"):
        ag.load(tmp_path / "h.ag")


def test_oversized_header_is_rejected_before_reading(tmp_path):
    big = serialization.MAX_HEADER_BYTES + 1
    (tmp_path / "o.ag").write_bytes(struct.pack("<Q", big) + b"{}")
    with pytest.raises(RuntimeError, match="exceeds"):
        ag.load(tmp_path / "o.ag")
    (tmp_path / "o.ag").write_bytes(struct.pack("<Q", 2 ** 64 - 1))
    with pytest.raises(RuntimeError, match="exceeds"):
        ag.load(tmp_path / "o.ag")


class _Payload:
    """Unpickling this would create the marker file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.mark.parametrize("protocol", [0, 2, 4, 5])
def test_pickle_file_is_never_unpickled(tmp_path, protocol):
    marker = tmp_path / "PWNED"
    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps({"state": _Payload(marker)}, protocol=protocol))
    assert not marker.exists()
    with pytest.raises(RuntimeError):
        ag.load(path)
    assert not marker.exists()


def test_torch_zip_file_with_payload_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    marker = tmp_path / "PWNED"
    torch.save({"w": torch.ones(2), "evil": _Payload(marker)}, tmp_path / "model.pt")
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL io.open"):
        ag.load(tmp_path / "model.pt")
    assert not marker.exists()
    with pytest.raises(RuntimeError, match="zip archive"):  # not a safetensors file
        ag.load_safetensors(tmp_path / "model.pt")
    assert not marker.exists()


def test_pickle_arguments_are_checked():
    import json as not_pickle

    with pytest.raises(ValueError, match="pickle_module"):
        ag.save(ag.ones(1), io.BytesIO(), pickle_module=not_pickle)
    for protocol in (0, 99):
        with pytest.raises(ValueError, match="protocol"):
            ag.save(ag.ones(1), io.BytesIO(), pickle_protocol=protocol)
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        ag.load(io.BytesIO(_valid_bytes()), pickle_module=pickle, weights_only=True)
    # weights_only=False on a safetensors file: there is no pickle to trust; it just loads
    assert ag.load(io.BytesIO(_valid_bytes()), weights_only=False)["n"] == 3
