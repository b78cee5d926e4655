"""PyTorch's zip checkpoint format as arraygrad writes and reads it, without PyTorch: the archive
layout (records, order, 64-byte alignment, version/byteorder/serialization_id), data.pkl's
opcodes exactly as torch.save writes them, shared storages, every kind of ``f``, the
weights-only allow-list API, map_location, whole objects with ``weights_only=False`` and the
rarer rebuild paths of PyTorch files."""

from __future__ import annotations

import dataclasses
import io
import os
import pathlib
import pickle
import pickletools
import struct
import warnings
import zipfile
from collections import OrderedDict

import pytest

import arraygrad as ag
from arraygrad import nn, serialization


def _saved(obj, **kwargs) -> bytes:
    buf = io.BytesIO()
    ag.save(obj, buf, **kwargs)
    return buf.getvalue()


def _records(raw: bytes) -> dict:
    zf = zipfile.ZipFile(io.BytesIO(raw))
    return {n: zf.read(n) for n in zf.namelist()}


def _ops(pkl: bytes) -> list:
    return [(op.name, arg) for op, arg, _ in pickletools.genops(pkl)]


# -- layout ------------------------------------------------------------------------------------

def test_records_order_and_contents(tmp_path):
    ag.save({"w": ag.ones(2, 3), "b": ag.zeros(3, dtype=ag.int64)}, tmp_path / "model.v2.pt")
    raw = (tmp_path / "model.v2.pt").read_bytes()
    zf = zipfile.ZipFile(io.BytesIO(raw))
    assert zf.namelist() == [f"model.v2/{n}" for n in (
        "data.pkl", ".format_version", ".storage_alignment", "byteorder", "data/0", "data/1",
        "version", ".data/serialization_id")]
    rec = _records(raw)
    assert rec["model.v2/.format_version"] == b"1" and rec["model.v2/version"] == b"3\n"
    assert rec["model.v2/.storage_alignment"] == b"64" and rec["model.v2/byteorder"] == b"little"
    sid = rec["model.v2/.data/serialization_id"]
    assert len(sid) == 40 and sid.isdigit()
    assert rec["model.v2/data/0"] == struct.pack("<6f", *[1.0] * 6)
    assert rec["model.v2/data/1"] == struct.pack("<3q", 0, 0, 0)
    assert all(i.compress_type == zipfile.ZIP_STORED for i in zf.infolist())
    assert zf.testzip() is None  # CRCs are right
    # a file object's archive is named "archive", as PyTorch names it
    assert zipfile.ZipFile(io.BytesIO(_saved(ag.ones(1)))).namelist()[0] == "archive/data.pkl"


def test_every_record_is_64_byte_aligned():
    raw = _saved({f"t{i}": ag.ones(i + 1) for i in range(7)} | {"s": "x" * 333})
    for info in zipfile.ZipFile(io.BytesIO(raw)).infolist():
        start = info.header_offset
        name_len, extra_len = struct.unpack("<HH", raw[start + 26:start + 30])
        data = start + 30 + name_len + extra_len
        assert data % 64 == 0, info.filename
        extra = raw[start + 30 + name_len:data]
        assert extra[:2] == b"FB" and set(extra[4:]) <= {ord("Z")}  # PyTorch's padding field


def test_serialization_id_follows_content():
    a, b = _saved({"w": ag.ones(2)}), _saved({"w": ag.ones(2)})
    c = _saved({"w": ag.zeros(2)})
    sid = lambda raw: _records(raw)["archive/.data/serialization_id"]  # noqa: E731
    assert sid(a) == sid(b) != sid(c)


def test_byteorder_record_can_be_left_out():
    names = _records(_saved(ag.ones(1), _disable_byteorder_record=True))
    assert "archive/byteorder" not in names
    assert ag.load(io.BytesIO(_saved(ag.ones(1), _disable_byteorder_record=True))).tolist() == [1.0]


def test_data_pkl_is_what_torch_save_writes():
    w = ag.arange(6, dtype=ag.float32).reshape(2, 3)
    pkl = _records(_saved(OrderedDict(w=w, t=w.t())))["archive/data.pkl"]
    ops = _ops(pkl)
    assert ops[0] == ("PROTO", 2)
    globals_ = [arg for name, arg in ops if name == "GLOBAL"]
    assert globals_ == ["collections OrderedDict", "torch._utils _rebuild_tensor_v2",
                        "torch FloatStorage"]
    # the persistent id tuple, then offset, size, stride, requires_grad, an empty OrderedDict
    i = [n for n, _ in ops].index("BINPERSID")
    mark = max(j for j in range(i) if ops[j][0] == "MARK")
    assert [a for n, a in ops[mark + 1:i] if n not in ("BINPUT", "TUPLE")] == [
        "storage", "torch FloatStorage", "0", "cpu", 6]
    # both tensors name storage "0" (written once) with their own strides
    rebuilt = []

    class Spy(pickle.Unpickler):
        def find_class(self, module, name):
            if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
                return lambda *args: rebuilt.append(args) or len(rebuilt)
            if module == "torch":
                return name
            return super().find_class(module, name)

        def persistent_load(self, pid):
            return pid

    Spy(io.BytesIO(pkl)).load()
    assert rebuilt[0][0] == ("storage", "FloatStorage", "0", "cpu", 6)
    assert rebuilt[0][1:5] == (0, (2, 3), (3, 1), False)
    assert rebuilt[1][0] == ("storage", "FloatStorage", "0", "cpu", 6)  # written once
    assert rebuilt[1][1:5] == (0, (3, 2), (1, 3), False)
    assert type(rebuilt[0][5]) is OrderedDict and not rebuilt[0][5]


@pytest.mark.parametrize("dtype, name", [(ag.float16, "HalfStorage"), (ag.float32, "FloatStorage"),
                                         (ag.float64, "DoubleStorage"), (ag.int32, "IntStorage"),
                                         (ag.int64, "LongStorage"), (ag.bool, "BoolStorage")])
def test_storage_types_and_parameters(dtype, name):
    pkl = _records(_saved([ag.zeros(2, dtype=dtype), nn.Parameter(ag.ones(1))]))["archive/data.pkl"]
    globals_ = [arg for n, arg in _ops(pkl) if n == "GLOBAL"]
    assert f"torch {name}" in globals_ and "torch._utils _rebuild_parameter" in globals_


def test_size_device_dtype_bytes_are_written_under_torch_names():
    pkl = _records(_saved([ag.Size([2, 3]), ag.device("cuda", 1), ag.float16, b"\x00"]))[
        "archive/data.pkl"]
    globals_ = [arg for n, arg in _ops(pkl) if n == "GLOBAL"]
    assert globals_ == ["torch Size", "torch device", "torch float16", "_codecs encode"]


@pytest.mark.parametrize("protocol", [1, 2, 3, 4, 5])
def test_every_pickle_protocol_round_trips(protocol):
    obj = {"w": ag.arange(4, dtype=ag.float64).reshape(2, 2).t(), "s": ag.Size([1]),
           "d": ag.int32, "p": nn.Parameter(ag.ones(2)), "b": b"ab", "o": OrderedDict(a=1)}
    back = ag.load(io.BytesIO(_saved(obj, pickle_protocol=protocol)))
    assert back["w"].tolist() == [[0.0, 2.0], [1.0, 3.0]] and back["w"].stride() == (1, 2)
    assert back["s"] == ag.Size([1]) and back["d"] is ag.int32 and back["b"] == b"ab"
    assert isinstance(back["p"], nn.Parameter) and back["o"] == OrderedDict(a=1)


# -- f ----------------------------------------------------------------------------------------

class _PathLike:
    def __init__(self, path):
        self.path = path

    def __fspath__(self):
        return str(self.path)


class _Stream:
    """A read-only, unseekable stream (a socket, a pipe)."""

    def __init__(self, data):
        self._buf = io.BytesIO(data)

    def read(self, n=-1):
        return self._buf.read(n)

    def seekable(self):
        return False


def test_every_kind_of_f(tmp_path):
    obj = {"w": ag.tensor([1.5, -2.0])}
    for f in (str(tmp_path / "a.pt"), tmp_path / "b.pt", _PathLike(tmp_path / "c.pt")):
        ag.save(obj, f)
        assert ag.load(f)["w"].tolist() == [1.5, -2.0]
    with open(tmp_path / "d.pt", "wb") as fh:
        fh.write(b"junk before")
        start = fh.tell()
        ag.save(obj, fh)
    with open(tmp_path / "d.pt", "rb") as fh:
        fh.seek(start)
        assert ag.load(fh)["w"].tolist() == [1.5, -2.0]
    assert ag.load(_Stream(_saved(obj)))["w"].tolist() == [1.5, -2.0]
    with pytest.raises(AttributeError, match="file object"):
        ag.save(obj, 3)
    with pytest.raises(AttributeError, match="file object"):
        ag.load(3.5)


def test_mmap_argument(tmp_path):
    ag.save({"w": ag.ones(2)}, tmp_path / "m.pt")
    assert ag.load(tmp_path / "m.pt", mmap=True)["w"].tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="file path in order to use the mmap"):
        ag.load(io.BytesIO((tmp_path / "m.pt").read_bytes()), mmap=True)
    ag.save_safetensors({"w": ag.ones(2)}, tmp_path / "s.ag")
    with pytest.raises(RuntimeError, match="mmap can only be used"):
        ag.load(tmp_path / "s.ag", mmap=True)


def test_legacy_format_is_not_written():
    with pytest.raises(NotImplementedError, match="legacy"):
        ag.save(ag.ones(1), io.BytesIO(), _use_new_zipfile_serialization=False)


# -- what loads come back as ----------------------------------------------------------------

def test_requires_grad_non_leaf_and_tied_tensors():
    x = ag.ones(2, requires_grad=True)
    y = x * 2  # a non-leaf: saved as a leaf that requires grad, as PyTorch does
    w = ag.arange(3, dtype=ag.float32)
    back = ag.load(io.BytesIO(_saved({"y": y, "a": w, "b": w.detach(), "c": w})))
    assert back["y"].requires_grad and back["y"].is_leaf and back["y"].tolist() == [2.0, 2.0]
    assert back["c"] is back["a"]  # the same object saved twice is one object
    # two tensors over the same storage place share memory after loading, as in PyTorch
    back["a"].add_(1)
    assert back["b"].tolist() == [1.0, 2.0, 3.0]


def test_user_attributes_of_tensors_and_subclasses():
    t = ag.ones(2)
    t.note = "hello"
    back = ag.load(io.BytesIO(_saved({"t": t})))["t"]
    assert type(back) is ag.Tensor and back.note == "hello"
    pkl = _records(_saved({"t": t}))["archive/data.pkl"]
    assert b"torch._tensor\n_rebuild_from_type_v2" in pkl and b"torch\nTensor" in pkl


class _TaggedParameter(nn.Parameter):
    """A Parameter subclass (allow-listed where loaded)."""


def test_parameter_attributes_and_subclasses():
    p = nn.Parameter(ag.ones(2))
    p.tag = "embedding"
    back = ag.load(io.BytesIO(_saved({"p": p})))["p"]
    assert type(back) is nn.Parameter and back.tag == "embedding" and back.requires_grad
    pkl = _records(_saved({"p": p}))["archive/data.pkl"]
    assert b"torch._utils\n_rebuild_parameter_with_state" in pkl
    sub = _TaggedParameter(ag.ones(3), requires_grad=False)
    raw = _saved({"s": sub})
    with pytest.raises(pickle.UnpicklingError, match="_TaggedParameter"):
        ag.load(io.BytesIO(raw))
    with serialization.safe_globals([_TaggedParameter]):
        back = ag.load(io.BytesIO(raw))["s"]
    assert type(back) is _TaggedParameter and not back.requires_grad
    assert back.tolist() == [1.0, 1.0, 1.0]


def test_whole_objects_need_weights_only_false(tmp_path):
    model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
    opt = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(ag.randn(4, 2)).sum().backward()
    opt.step()
    ag.save({"model": model, "opt": opt}, tmp_path / "whole.pt")
    with pytest.raises(pickle.UnpicklingError) as info:
        ag.load(tmp_path / "whole.pt")
    msg = str(info.value)
    assert "Unsupported global: GLOBAL arraygrad.nn.modules.container.Sequential" in msg
    assert "weights_only` set to `False`" in msg and "add_safe_globals" in msg
    assert serialization.get_unsafe_globals_in_checkpoint(tmp_path / "whole.pt")[:1] == [
        "arraygrad.nn.modules.container.Sequential"]
    back = ag.load(tmp_path / "whole.pt", weights_only=False)
    x = ag.randn(3, 2)
    assert back["model"](x).tolist() == model(x).tolist()
    assert back["opt"].param_groups[0]["params"][0] is back["model"][0].weight
    assert ag.load(tmp_path / "whole.pt", pickle_module=pickle)["model"][0].in_features == 2
    with pytest.warns(UserWarning, match="pickle_load_args only works"):
        with pytest.raises(pickle.UnpicklingError):
            ag.load(tmp_path / "whole.pt", encoding="latin1")


@dataclasses.dataclass
class Config:
    """A user class a checkpoint holds (allow-listed in the tests below)."""

    depth: int
    name: str


@dataclasses.dataclass
class Other:
    """A second user class of the same module (its module name is memoized in the pickle)."""

    x: int


@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_unsafe_globals_are_listed_without_running_anything(protocol):
    raw = _saved({"a": Config(1, "a"), "b": Other(2), "c": Config(3, "c"), "w": ag.ones(1)},
                 pickle_protocol=protocol)
    assert serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(raw)) == [
        f"{Config.__module__}.Config", f"{Other.__module__}.Other"]
    with serialization.safe_globals([Config, Other]):
        assert serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(raw)) == []
        assert ag.load(io.BytesIO(raw))["b"] == Other(2)


def test_safe_globals_api(tmp_path):
    serialization.clear_safe_globals()
    path = tmp_path / "cfg.pt"
    ag.save({"cfg": Config(3, "net"), "w": ag.ones(1)}, path)
    full = f"{Config.__module__}.Config"
    with pytest.raises(pickle.UnpicklingError, match=f"GLOBAL {full} was not an allowed"):
        ag.load(path)
    with serialization.safe_globals([Config]):
        assert Config in serialization.get_safe_globals()
        assert ag.load(path)["cfg"] == Config(3, "net")
        assert serialization.get_unsafe_globals_in_checkpoint(path) == []
    assert serialization.get_safe_globals() == []
    with pytest.raises(pickle.UnpicklingError):
        ag.load(path)
    serialization.add_safe_globals([(Config, full)])
    try:
        assert ag.load(path)["cfg"].depth == 3
    finally:
        serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []
    for bad, err in (((Config, full, 1), ValueError), ((Config, 3), TypeError)):
        with serialization.safe_globals([bad]):
            with pytest.raises(err):
                ag.load(path)


def test_map_location_forms():
    raw = _saved({"w": ag.ones(2)})
    for loc in ("cpu", b"cpu", ag.device("cpu"), {"cpu": "cpu"}, {"cuda:0": "cpu"},
                lambda storage, loc: None, lambda storage, loc: storage.cpu(),
                lambda storage, loc: storage.to("cpu")):
        assert ag.load(io.BytesIO(raw), map_location=loc)["w"].device == ag.device("cpu")
    seen = []
    ag.load(io.BytesIO(raw), map_location=lambda storage, loc: seen.append(
        (type(storage).__name__, loc, storage.nbytes(), storage.size(), storage.dtype)))
    assert seen == [("Storage", "cpu", 8, 2, ag.float32)]
    with pytest.raises(TypeError, match="map_location must return"):
        ag.load(io.BytesIO(raw), map_location=lambda storage, loc: "cpu")
    with pytest.raises(TypeError, match="map_location must be"):
        ag.load(io.BytesIO(raw), map_location=2.5)
    with pytest.raises(RuntimeError, match="map_location='cpu'"):
        ag.load(io.BytesIO(raw), map_location="nosuchdevice")


def _archive(pkl: bytes, storages: dict, byteorder: bytes | None = b"little") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("archive/data.pkl", pkl)
        if byteorder is not None:
            zf.writestr("archive/byteorder", byteorder)
        for key, data in storages.items():
            zf.writestr(f"archive/data/{key}", data)
    return buf.getvalue()


def _tensor_pkl(location="cpu", stype="FloatStorage", rebuild="_rebuild_tensor_v2", extra=b""):
    v = lambda x: pickle.dumps(x, protocol=2)[2:-1]  # noqa: E731
    return (b"\x80\x02" + f"ctorch._utils\n{rebuild}\n".encode() + b"(" + b"(" + v("storage")
            + f"ctorch\n{stype}\n".encode() + v("0") + v(location)
            + v(4 if stype != "UntypedStorage" else 16)
            + b"tQ" + v(0) + v((2, 2)) + v((2, 1)) + b"\x89"
            + b"ccollections\nOrderedDict\n)R" + extra + b"tR.")


def test_saved_device_locations_and_map_location():
    raw = _archive(_tensor_pkl(location="cuda:0"), {"0": struct.pack("<4f", 1, 2, 3, 4)})
    try:
        ag.load(io.BytesIO(raw))
    except RuntimeError as exc:  # no CUDA backend here: PyTorch's hint
        assert "map_location='cpu'" in str(exc)
    back = ag.load(io.BytesIO(raw), map_location="cpu")
    assert back.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert ag.load(io.BytesIO(raw), map_location={"cuda:0": "cpu"}).device == ag.device("cpu")
    assert ag.load(io.BytesIO(raw), map_location=lambda s, loc: s.cpu()).device.type == "cpu"


def test_big_endian_checkpoints_are_swapped():
    raw = _archive(_tensor_pkl(), {"0": struct.pack(">4f", 1.5, 2, 3, -4)}, byteorder=b"big")
    assert ag.load(io.BytesIO(raw)).tolist() == [[1.5, 2.0], [3.0, -4.0]]
    bad = _archive(_tensor_pkl(), {"0": b"\0" * 16}, byteorder=b"middle")
    with pytest.raises(ValueError, match="Unknown endianness type: middle"):
        ag.load(io.BytesIO(bad))
    # no byteorder record (PyTorch < 1.11 files): little-endian unless told otherwise
    old = _archive(_tensor_pkl(), {"0": struct.pack("<4f", 1, 2, 3, 4)}, byteorder=None)
    assert serialization.get_default_load_endianness() is None
    assert ag.load(io.BytesIO(old)).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    old_big = _archive(_tensor_pkl(), {"0": struct.pack(">4f", 1, 2, 3, 4)}, byteorder=None)
    serialization.set_default_load_endianness(serialization.LoadEndianness.BIG)
    try:
        assert ag.load(io.BytesIO(old_big)).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    finally:
        serialization.set_default_load_endianness(None)
    with pytest.raises(TypeError):
        serialization.set_default_load_endianness("big")


def test_rebuild_tensor_v3_reads_untyped_storages():
    pkl = _tensor_pkl(stype="UntypedStorage", rebuild="_rebuild_tensor_v3",
                      extra=b"ctorch\nfloat32\n")
    raw = _archive(pkl, {"0": struct.pack("<4f", 1, 2, 3, 4)})
    assert ag.load(io.BytesIO(raw)).tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_tensor_kinds_and_dtypes_arraygrad_lacks_are_named():
    raw = _archive(_tensor_pkl(stype="QInt8Storage"), {"0": b"\0" * 4})
    with pytest.raises(RuntimeError, match="dtype arraygrad does not have"):
        ag.load(io.BytesIO(raw))
    raw = _archive(b"\x80\x02ctorch\ncomplex32\n.", {})
    with pytest.raises(pickle.UnpicklingError, match="torch.complex32, which arraygrad does not"):
        ag.load(io.BytesIO(raw))
    raw = _archive(b"\x80\x02ctorch._utils\n_rebuild_qtensor\n)R.", {})
    with pytest.raises(RuntimeError, match="quantized tensors"):
        ag.load(io.BytesIO(raw))


def test_full_unpickler_maps_torch_names(tmp_path):
    raw = _archive(b"\x80\x02ctorch.nn.modules.activation\nReLU\n)R"
                   b"ctorch.optim.sgd\nSGD\n" + b"\x86.", {})
    relu, sgd = ag.load(io.BytesIO(raw), weights_only=False)
    assert type(relu) is nn.ReLU and sgd is ag.optim.SGD
    raw = _archive(b"\x80\x02ctorch.nn\nNoSuchLayer\n.", {})
    with pytest.raises(pickle.UnpicklingError, match="no arraygrad equivalent"):
        ag.load(io.BytesIO(raw), weights_only=False)


def test_loaded_parameter_subclass_state_is_guarded():
    v = lambda x: pickle.dumps(x, protocol=2)[2:-1]  # noqa: E731
    inner = _tensor_pkl()[2:-2]  # the _rebuild_tensor_v2 call's GLOBAL and argument tuple
    args = inner[len(b"ctorch._utils\n_rebuild_tensor_v2\n"):]
    base = (b"\x80\x02ctorch._tensor\n_rebuild_from_type_v2\n(ctorch._utils\n_rebuild_tensor_v2\n"
            b"ctorch.nn.parameter\nParameter\n" + args)
    ok = _archive(base + b"}" + v("tag") + v("x") + b"stR.", {"0": b"\0" * 16})
    p = ag.load(io.BytesIO(ok))
    assert isinstance(p, nn.Parameter) and p.tag == "x"
    bad = _archive(base + b"}" + v("_data") + v("x") + b"stR.", {"0": b"\0" * 16})
    with pytest.raises(RuntimeError, match="refusing to set attribute '_data'"):
        ag.load(io.BytesIO(bad))


def test_pickle_load_args_only_warn_when_weights_only():
    raw = _saved({"w": ag.ones(1)})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.load(io.BytesIO(raw), weights_only=False, encoding="latin1")
    with pytest.warns(UserWarning, match="pickle_load_args"):
        ag.load(io.BytesIO(raw), encoding="latin1")


def test_files_are_closed(tmp_path):
    path = tmp_path / "c.pt"
    ag.save({"w": ag.ones(1)}, path)
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    for _ in range(20):
        ag.load(path)
        with pytest.raises(pickle.UnpicklingError):
            ag.load(_archive_path(tmp_path))
    if before is not None:
        assert len(os.listdir("/proc/self/fd")) <= before + 2


def _archive_path(tmp_path) -> pathlib.Path:
    p = tmp_path / "evil.pt"
    if not p.exists():
        p.write_bytes(_archive(b"\x80\x02cos\nsystem\n.", {}))
    return p
