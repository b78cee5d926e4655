"""``arraygrad.load`` runs nothing from a file: hostile pickles in PyTorch zip checkpoints are
refused by the weights-only unpickler (a marker file proves no payload ran, and the same payload
does run under ``weights_only=False``, so the test is not vacuous); damaged zips, storages out
of bounds, huge claimed sizes and zip bombs raise clear errors without allocating more than the
file holds; the safetensors layout keeps its own checks. The fuzz runs print how many mutated
files they tried."""

from __future__ import annotations

import io
import json
import os
import pickle
import random
import struct
import time
import tracemalloc
import zipfile

import pytest

import arraygrad as ag
from hostile_files import global_op as _global
from hostile_files import pkl_archive as _pkl_archive
from hostile_files import tensor_pkl as _tensor_pkl
from hostile_files import val as _val
from hostile_files import zip_records as _zip
from reliability_helpers import report

CLEAN_ERRORS = (RuntimeError, ValueError, pickle.UnpicklingError)


def _load_bytes(raw: bytes, **kwargs):
    return ag.load(io.BytesIO(raw), **kwargs)


class _System:
    """Unpickling runs ``os.system(command)``."""

    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


class _Exec:
    """Unpickling runs ``builtins.exec(source)``."""

    def __init__(self, source):
        self.source = source

    def __reduce__(self):
        return (exec, (self.source,))


class _Eval:
    def __init__(self, source):
        self.source = source

    def __reduce__(self):
        return (eval, (self.source,))


class _Open:
    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def _payloads(marker):
    touch = f"open({str(marker)!r}, 'w').close()"
    return {
        "os.system": (_System(f"touch {marker}"), f"GLOBAL {os.system.__module__}.system"),
        "builtins.exec": (_Exec(touch), "GLOBAL exec"),
        "builtins.eval": (_Eval(touch), "GLOBAL eval"),
        "io.open": (_Open(str(marker)), "GLOBAL io.open"),
    }


@pytest.mark.parametrize("kind", ["os.system", "builtins.exec", "builtins.eval", "io.open"])
@pytest.mark.parametrize("protocol", [2, 4])
def test_malicious_pickle_in_a_checkpoint_is_refused_and_never_runs(tmp_path, kind, protocol):
    marker = tmp_path / "pwned"
    payload, named = _payloads(marker)[kind]
    path = tmp_path / "model.pt"
    # arraygrad.save pickles the payload's __reduce__ as a real attacker's file would
    ag.save({"w": ag.ones(3), "evil": payload}, path, pickle_protocol=protocol)
    with pytest.raises(pickle.UnpicklingError) as info:
        ag.load(path)
    msg = str(info.value)
    assert msg.startswith("Weights only load failed") and named in msg.replace("builtins.", "")
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError):
        ag.load(path, weights_only=True, map_location="cpu")
    assert not marker.exists()
    # the payload is live: the explicit opt-in runs it (proving the refusal above mattered)
    ag.load(path, weights_only=False)
    assert marker.exists()


def test_blocked_modules_stay_blocked_even_when_allow_listed(tmp_path):
    marker = tmp_path / "pwned"
    path = tmp_path / "m.pt"
    ag.save({"evil": _System(f"touch {marker}")}, path)
    with ag.serialization.safe_globals([os.system]):
        with pytest.raises(pickle.UnpicklingError, match="is blocked"):
            ag.load(path)
    assert not marker.exists()


@pytest.mark.parametrize("pkl, match", [
    # REDUCE on something that is not an allow-listed callable
    (b"\x80\x02" + _val("os.getcwd") + b")R.", "unrecognized function"),
    # the Tensor class is allowed as a type, never as a constructor (Tensor(n, m) allocates)
    (b"\x80\x02" + _global("torch", "Tensor") + _val((10 ** 6, 10 ** 6)) + b"R.",
     "unrecognized function"),
    (b"\x80\x02" + _global("torch", "Tensor") + b")\x81.", "Can only create new object"),
    # BUILD may set state only on OrderedDict and allow-listed types
    (b"\x80\x02" + _global("builtins", "set") + b")R}" + _val("__class__") + b"N" + b"sb.",
     "Can only build"),
    (_tensor_pkl((2,), (1,))[:-1] + b"}" + _val("_data") + b"Nsb.", "Can only build"),
    # INST/OBJ (protocols 0/1) instantiate classes: refused outright
    (b"(icollections\nOrderedDict\n.", "INST and OBJ"),
    (b"\x80\x02(" + _global("collections", "OrderedDict") + b"o.", "INST and OBJ"),
    # containers are filled only through their own type
    (b"\x80\x02" + _global("torch", "Size") + _val(((1,),)) + b"R" + _val(1) + b"a.",
     "append to lists"),
    (b"\x80\x02" + _global("torch", "device") + _val(("cpu",)) + b"R" + _val("k") + _val(1)
     + b"s.", "SETITEM"),
    # persistent ids must be storages
    (b"\x80\x02(" + _val("module") + _val("os") + b"tQ.", "persistent_load of storage"),
    (b"\x80\x02" + _val("storage") + b"Q.", "persistent_load of storage"),
    (b"\x80\x02(" + _val("storage") + _val("FloatStorage") + _val("0") + _val("cpu") + _val(2)
     + b"tQ.", "invalid storage type"),
    # a global through STACK_GLOBAL is checked like GLOBAL
    (b"\x80\x04" + b"\x8c\x08builtins\x8c\x04exec\x93" + _val(("1",)) + b"R.",
     "GLOBAL exec"),
    # garbage and truncation inside data.pkl
    (b"\x80\x02" + b"h\x05.", "Memo value not found"),
    (b"\x80\x02(K\x01", "malformed"),
    # a length the data does not have must not be allocated (pickle's BYTEARRAY8 would)
    (b"\x80\x05\x96" + struct.pack("<Q", 2 ** 45) + b"ab.", "BYTEARRAY8 claims more"),
])
def test_pickle_tricks_are_refused(tmp_path, pkl, match):
    raw = _pkl_archive(pkl, {"0": b"\0" * 16})
    with pytest.raises(pickle.UnpicklingError, match=match):
        _load_bytes(raw)


def test_order_dict_state_is_only_data():
    # a state_dict's _metadata arrives by BUILD on an OrderedDict: allowed, and inert
    pkl = (b"\x80\x02" + _global("collections", "OrderedDict") + b")R" + b"}"
           + _val("_metadata") + _val({"": {"version": 1}}) + b"sb.")
    out = _load_bytes(_pkl_archive(pkl))
    assert type(out).__name__ == "OrderedDict" and out._metadata == {"": {"version": 1}}


@pytest.mark.parametrize("size, stride, offset, numel, match", [
    ((5,), (1,), 0, 4, "out of bounds"),
    ((2, 2), (2, 1), 1, 4, "out of bounds"),
    ((2, 2), (3, 1), 0, 4, "out of bounds"),
    ((4,), (1,), 10 ** 15, 4, "out of bounds"),
    ((10 ** 12,), (1,), 0, 4, "out of bounds"),
    ((2 ** 31, 2 ** 31), (0, 0), 0, 4, "MAX_EXPANDED_BYTES"),
    ((2,), (-1,), 1, 4, "invalid tensor geometry"),
    ((2, 2), (1,), 0, 4, "invalid tensor geometry"),
    ((-1,), (1,), 0, 4, "invalid tensor geometry"),
])
def test_storages_out_of_bounds_are_refused(size, stride, offset, numel, match):
    raw = _pkl_archive(_tensor_pkl(size, stride, offset, numel), {"0": b"\0" * (4 * numel)})
    with pytest.raises(RuntimeError, match=match):
        _load_bytes(raw)


def test_huge_claimed_storage_allocates_nothing():
    tracemalloc.start()
    for numel in (2 ** 40, 2 ** 62, 5):
        raw = _pkl_archive(_tensor_pkl((1,), (1,), 0, numel), {"0": b"\0" * 16})
        with pytest.raises(RuntimeError, match="holds 16 bytes where the checkpoint's pickle "
                                               "expects"):
            _load_bytes(raw)
    missing = _pkl_archive(_tensor_pkl((1,), (1,), 0, 4, key="7"), {"0": b"\0" * 16})
    with pytest.raises(RuntimeError, match="file not found"):
        _load_bytes(missing)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 16 * 2 ** 20, f"{peak} bytes allocated for 16-byte storages"


def test_zip_bomb_lite_is_refused():
    numel = 8 * 1024 * 1024  # 32 MB of zeros deflate to ~32 KB
    raw = _zip({"data.pkl": _tensor_pkl((numel,), (1,), 0, numel),
                "data/0": b"\0" * (4 * numel)}, compression=zipfile.ZIP_DEFLATED)
    assert len(raw) < 100_000
    with pytest.raises(RuntimeError, match="zip bomb"):
        _load_bytes(raw)
    # a deflated archive of real (barely compressible) data still loads, as in PyTorch
    values = struct.pack("<4f", 1.5, -2.0, 3.25, 0.1)
    raw = _zip({"data.pkl": _tensor_pkl((4,), (1,)), "data/0": values},
               compression=zipfile.ZIP_DEFLATED)
    assert _load_bytes(raw).tolist() == list(struct.unpack("<4f", values))


def test_overlapping_and_renamed_records_are_refused():
    raw = bytearray(_pkl_archive(_tensor_pkl((4,), (1,)), {"0": b"\1" * 16}))
    # point the central directory entry of data/0 (the last one) at data.pkl's local header
    cd = raw.rfind(b"PK\x01\x02")
    assert raw[cd + 46:cd + 60] == b"archive/data/0"
    raw[cd + 42:cd + 46] = struct.pack("<I", 0)
    with pytest.raises(RuntimeError):
        _load_bytes(bytes(raw))


def test_torchscript_and_legacy_files_are_refused_clearly(tmp_path):
    ts = _zip({"data.pkl": b"\x80\x02).", "constants.pkl": b"\x80\x02).", "code/m.py": b""})
    with pytest.raises(RuntimeError, match="TorchScript"):
        _load_bytes(ts)
    with pytest.raises(RuntimeError, match="TorchScript"):
        _load_bytes(ts, weights_only=False)
    marker = tmp_path / "pwned"
    # PyTorch's legacy format is a bare pickle stream (magic number first): never unpickled
    legacy = pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2) + pickle.dumps(_Open(str(marker)))
    with pytest.raises(RuntimeError, match="legacy"):
        _load_bytes(legacy)
    with pytest.raises(RuntimeError, match="legacy"):
        _load_bytes(legacy, weights_only=False)
    assert not marker.exists()


def _good_checkpoint() -> bytes:
    buf = io.BytesIO()
    w = ag.arange(12, dtype=ag.float32).reshape(3, 4)
    ag.save({"a": w, "t": w.t(), "b": ag.tensor([1, 2, 3]), "c": ag.tensor([True, False]),
             "nested": {"x": ag.randn(2, dtype=ag.float64), "n": 3, "s": "text"}}, buf)
    return buf.getvalue()


def test_truncated_checkpoints_raise_cleanly(tmp_path):
    raw = _good_checkpoint()
    marker_free = 0
    for cut in sorted({0, 1, 4, 30, 64, 100, len(raw) // 3, len(raw) // 2, len(raw) - 22,
                       len(raw) - 1, *range(0, len(raw), max(1, len(raw) // 60))}):
        if cut >= len(raw):
            continue
        with pytest.raises(CLEAN_ERRORS):
            _load_bytes(raw[:cut])
        marker_free += 1
    assert marker_free > 50


def _fuzz(target_bytes, mutate_zip: bool, seconds: float, label: str):
    rng = random.Random(1)
    tried = loaded = rejected = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and tried < 3000:
        mutated = bytearray(target_bytes)
        for _ in range(rng.randint(1, 4)):
            kind = rng.random()
            pos = rng.randrange(len(mutated))
            if kind < 0.6:
                mutated[pos] ^= 1 << rng.randrange(8)
            elif kind < 0.8:
                del mutated[pos:pos + rng.randint(1, 8)]
            else:
                mutated[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        raw = bytes(mutated) if mutate_zip else _pkl_archive(bytes(mutated), STORAGES)
        tried += 1
        try:
            _load_bytes(raw)
            loaded += 1
        except CLEAN_ERRORS:
            rejected += 1
    report(label, f"{tried} (rejected cleanly {rejected}, still valid {loaded})")
    return tried, rejected


STORAGES: dict = {}


def test_fuzzed_checkpoint_zips_raise_cleanly():
    tried, rejected = _fuzz(_good_checkpoint(), True, 2.0, "fuzzed checkpoint zips tried")
    assert tried >= 200 and rejected > 0


def test_fuzzed_data_pkl_raises_cleanly(tmp_path):
    """Mutations inside data.pkl (with valid CRCs around it): the unpickler itself is fuzzed."""
    raw = _good_checkpoint()
    zf = zipfile.ZipFile(io.BytesIO(raw))
    pkl = zf.read("archive/data.pkl")
    STORAGES.clear()
    STORAGES.update({n.split("/data/")[1]: zf.read(n) for n in zf.namelist() if "/data/" in n})
    try:
        tried, rejected = _fuzz(pkl, False, 2.0, "fuzzed data.pkl tried")
    finally:
        STORAGES.clear()
    assert tried >= 200 and rejected > 0


# -- the safetensors layout ----------------------------------------------------------------------

def test_pickle_payload_is_refused_and_never_executed(tmp_path):
    marker = tmp_path / "pwned"
    bad = tmp_path / "model.pt"
    bad.write_bytes(pickle.dumps({"weight": _Open(str(marker))}))
    with pytest.raises((RuntimeError, ValueError), match="(?i)pickle|not an arraygrad"):
        ag.load(bad)
    assert not marker.exists()


def test_truncated_and_oversized_header(tmp_path):
    good = tmp_path / "good.safetensors"
    ag.save_safetensors({"w": ag.randn(4, 4), "n": {"b": ag.arange(3)}}, good)
    data = good.read_bytes()
    for cut in (0, 4, 8, 20, len(data) // 2, len(data) - 1):
        p = tmp_path / f"cut{cut}"
        p.write_bytes(data[:cut])
        with pytest.raises((RuntimeError, ValueError)):
            ag.load(p)
    huge = tmp_path / "huge"
    huge.write_bytes(struct.pack("<Q", 1 << 62) + b"{}")
    with pytest.raises((RuntimeError, ValueError), match="(?i)header"):
        ag.load(huge)


def test_lying_offsets_do_not_allocate(tmp_path):
    header = json.dumps({"w": {"dtype": "F32", "shape": [1 << 20, 1 << 20],
                               "data_offsets": [0, 4 << 40]}}).encode()
    p = tmp_path / "lies"
    p.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 16)
    with pytest.raises((RuntimeError, ValueError)):
        ag.load(p)


def test_fuzzed_files_raise_cleanly_within_time_budget(tmp_path):
    good = tmp_path / "good.safetensors"
    ag.save_safetensors({"a": ag.randn(3, 5), "b": ag.tensor([1, 2, 3]),
                         "c": ag.tensor([True, False]),
                         "nested": {"x": ag.randn(2, dtype=ag.float64)}}, good)
    data = bytearray(good.read_bytes())
    rng = random.Random(0)
    tried = loaded = rejected = 0
    deadline = time.monotonic() + 5.0
    target = tmp_path / "fuzz"
    while time.monotonic() < deadline and tried < 3000:
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            kind = rng.random()
            pos = rng.randrange(len(mutated))
            if kind < 0.6:
                mutated[pos] ^= 1 << rng.randrange(8)  # bit flip
            elif kind < 0.8:
                del mutated[pos:pos + rng.randint(1, 8)]
            else:
                mutated[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        target.write_bytes(bytes(mutated))
        tried += 1
        try:
            ag.load(target)
            loaded += 1  # a flip inside tensor data is still a valid file
        except (RuntimeError, ValueError):
            rejected += 1
    report("fuzzed safetensors files tried",
           f"{tried} (rejected cleanly {rejected}, still valid {loaded})")
    assert tried >= 200 and rejected > 0
