"""Resource attacks on ``arraygrad.load`` (issue 29, "Checkpoint files"): the limits hold over
the whole load, not per tensor. Deflated records are inflated a chunk at a time (a record that
lies about its size costs what it claims), expanded tensors are charged to one budget
(``ARRAYGRAD_LOAD_MAX_EXPANDED_BYTES``, set low here so the files stay tiny), views of one
storage stay views of one array, a pickle's shared tuples cannot make a dict key or set
member whose hashing never ends (or recurses a million deep), and ``torch.Size``/
``torch.device`` from a file are checked as PyTorch checks them.

Memory is measured with ``tracemalloc`` (NumPy reports its buffers to it), never with the
clock; the attacks that used to hang or crash the interpreter run in a child process with a
timeout, so a regression fails the test instead of hanging the run."""

from __future__ import annotations

import io
import json
import pickle
import struct
import subprocess
import sys
import textwrap
import tracemalloc
import zipfile

import pytest

import arraygrad as ag
from hostile_files import global_op, pkl_archive, tensor_ops, tensor_pkl, val, zip_records


def _load(raw: bytes, **kwargs):
    return ag.load(io.BytesIO(raw), **kwargs)


def _peak_bytes(fn) -> int:
    """The peak of Python-tracked allocations (NumPy's buffers included) while ``fn`` runs."""
    tracemalloc.start()
    try:
        try:
            fn()
        except Exception:  # the caller checks the outcome separately
            pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- a deflated record that inflates past what it claims -------------------------------------

def _lying_deflated_archive(real: int, claimed: int) -> bytes:
    """A checkpoint whose ``data/0`` claims ``claimed`` bytes but inflates to ``real`` zeros."""
    raw = bytearray(pkl_archive(tensor_pkl((claimed // 4,), (1,), 0, claimed // 4),
                                {"0": bytes(real)}, zipfile.ZIP_DEFLATED))
    info = zipfile.ZipFile(io.BytesIO(bytes(raw))).getinfo("archive/data/0")
    assert info.compress_size * 500 < real  # a small record...
    raw[info.header_offset + 22:info.header_offset + 26] = struct.pack("<I", claimed)
    cd = bytes(raw).rfind(b"archive/data/0") - 46  # its central directory entry
    assert raw[cd:cd + 4] == b"PK\x01\x02"
    raw[cd + 24:cd + 28] = struct.pack("<I", claimed)
    return bytes(raw)


def test_a_deflated_record_inflates_no_further_than_it_claims():
    real, claimed = 32 * 1024 * 1024, 4096
    raw = _lying_deflated_archive(real, claimed)
    assert len(raw) < 100_000
    with pytest.raises(RuntimeError, match="invalid record data/0"):  # its CRC is wrong
        _load(raw)
    # zipfile's read() inflated all 32 MB before checking; read a chunk at a time, the load
    # never holds much more than the claimed 4 KB
    assert _peak_bytes(lambda: _load(raw)) < 4 * 1024 * 1024


def test_the_deflate_ratio_limit_is_configurable(monkeypatch):
    values = bytes(4096)  # zeros: 4 KB deflate to a few bytes
    raw = pkl_archive(tensor_pkl((1024,), (1,), 0, 1024), {"0": values}, zipfile.ZIP_DEFLATED)
    assert _load(raw).tolist() == [0.0] * 1024  # within the default's 4096-byte allowance
    big = pkl_archive(tensor_pkl((65536,), (1,), 0, 65536), {"0": bytes(262144)},
                      zipfile.ZIP_DEFLATED)
    with pytest.raises(RuntimeError, match="ARRAYGRAD_LOAD_MAX_DEFLATE_RATIO=32 times"):
        _load(big)
    monkeypatch.setenv("ARRAYGRAD_LOAD_MAX_DEFLATE_RATIO", "2000")
    assert _load(big).shape == (65536,)
    monkeypatch.setenv("ARRAYGRAD_LOAD_MAX_DEFLATE_RATIO", "lots")
    with pytest.raises(ValueError, match="ARRAYGRAD_LOAD_MAX_DEFLATE_RATIO must be"):
        _load(big)


# -- expanded tensors: one budget for the whole load ---------------------------------------------

def _expanded_archive(count: int, numel: int) -> bytes:
    """``count`` tensors of ``numel`` float32 elements, all stride 0 over one 4-byte storage."""
    items = b"".join(val(f"t{i}") + tensor_ops((numel,), (0,), 0, 1) for i in range(count))
    pkl = b"\x80\x02}(" + items + b"u."
    return pkl_archive(pkl, {"0": struct.pack("<f", 2.5)})


def test_expanded_tensors_share_one_budget(monkeypatch):
    monkeypatch.setenv("ARRAYGRAD_LOAD_MAX_EXPANDED_BYTES", str(3 * 4096))
    out = _load(_expanded_archive(3, 1024))  # 3 x 4 KB: exactly the budget
    assert sorted(out) == ["t0", "t1", "t2"] and out["t2"].tolist() == [2.5] * 1024
    assert out["t0"].stride() == (0,)
    # eight of them, each far below the budget on its own, exceed it together
    with pytest.raises(RuntimeError, match="ARRAYGRAD_LOAD_MAX_EXPANDED_BYTES=12288") as info:
        _load(_expanded_archive(8, 1024))
    assert "16384 in all for this load" in str(info.value)
    # each load has its own budget
    assert len(_load(_expanded_archive(3, 1024))) == 3


def test_expanded_bytes_default_is_documented():
    from arraygrad import serialization

    assert serialization.MAX_EXPANDED_BYTES == 256 * 1024 * 1024
    assert serialization.MAX_DEFLATE_RATIO == 32


# -- views of one storage stay views ----------------------------------------------------------

def _overlapping_views_archive(numel: int, views: int) -> bytes:
    items = b"".join(tensor_ops((numel - i,), (1,), i, numel) + b"a" for i in range(views))
    pkl = b"\x80\x02]" + items + b"."
    data = struct.pack(f"<{numel}f", *range(numel))
    return pkl_archive(pkl, {"0": data})


def test_overlapping_views_share_one_array():
    numel, views = 64 * 1024, 64  # a 256 KB storage, 64 views of (almost) all of it
    raw = _overlapping_views_archive(numel, views)
    out = _load(raw)
    assert len(out) == views and out[5][0].item() == 5.0 and out[5].shape == (numel - 5,)
    out[0][10] = -1.0  # one storage: a write through one view is seen by the others
    assert out[3][7].item() == -1.0 and out[10][0].item() == -1.0
    assert out[0]._version == 1 and out[3]._version == 0  # separate tensors, as PyTorch's
    assert out[3]._base is None
    # 64 copies would be ~16 MB; views of one array hold the storage once (plus the record)
    assert _peak_bytes(lambda: _load(raw)) < 4 * 1024 * 1024


def test_loaded_views_behave_as_pytorchs():
    torch = pytest.importorskip("torch")
    results = []
    for lib in (torch, ag):
        w = lib.arange(12.0).reshape(3, 4)
        buf = io.BytesIO()
        lib.save({"w": w, "t": w.t(), "row": w[1]}, buf)
        buf.seek(0)
        out = lib.load(buf)
        start = {k: v._version for k, v in out.items()}
        out["w"].add_(1)
        results.append((out["t"].tolist(), out["row"].tolist(), out["t"].stride(),
                        {k: v._version - start[k] for k, v in out.items()}))
    assert results[0] == results[1]


def test_strided_copies_are_charged_where_the_backend_cannot_view(monkeypatch):
    n = 8
    raw = pkl_archive(tensor_pkl((n, n), (1, n), 0, n * n),
                      {"0": struct.pack(f"<{n * n}f", *range(n * n))})
    assert _load(raw, map_location="strict")[1, 0].item() == 1.0  # a copy, within the budget
    monkeypatch.setenv("ARRAYGRAD_LOAD_MAX_EXPANDED_BYTES", "100")
    with pytest.raises(RuntimeError, match="a copy of a strided tensor of size"):
        _load(raw, map_location="strict")
    assert _load(raw).stride() == (1, n)  # NumPy views it: nothing charged


def test_strided_float16_tensors_are_views_too():
    n = 256
    pkl = tensor_pkl((n, n), (1, n), 0, n * n, stype="HalfStorage")  # a transposed matrix
    data = struct.pack(f"<{n * n}e", *[float(i % 2048) for i in range(n * n)])
    out = _load(pkl_archive(pkl, {"0": data}))
    assert out.stride() == (1, n) and not out.is_contiguous()
    assert out[3, 2].item() == float((2 * n + 3) % 2048)
    reference = ag.tensor([float(i % 2048) for i in range(n * n)],
                          dtype=ag.float16).reshape(n, n).t()
    assert ag.equal(out, reference)


# -- hashed keys: shared tuples and deep nesting ------------------------------------------------

def _tuple_graph(levels: int) -> bytes:
    """Opcodes memoising ``t = (t, t)`` ``levels`` times from ``()``: memo[levels] holds a
    tuple of ``2**levels`` leaves made of ``levels`` small tuples. Leaves the stack as is."""
    ops = b")q\x00"
    for i in range(levels):
        ops += b"h" + bytes([i]) + b"h" + bytes([i]) + b"\x86q" + bytes([i + 1]) + b"0"
    return ops


def _hashing_attacks(levels: int, depth: int) -> dict[str, bytes]:
    """data.pkl of each way a weights-only load hashes a value, around the tuple graph."""
    g, top = _tuple_graph(levels), b"h" + bytes([levels])
    deep = b")" + b"\x85" * depth  # a tuple nested ``depth`` deep
    return {
        "set": b"\x80\x02" + g + global_op("builtins", "set") + b"]" + top + b"a\x85R.",
        "frozenset": b"\x80\x02" + g + global_op("builtins", "frozenset") + b"]" + top
                     + b"a\x85R.",
        "dict key (SETITEM)": b"\x80\x02" + g + b"}" + top + b"K\x01s.",
        "dict key (DICT)": b"\x80\x02" + g + b"(" + top + b"K\x01d.",
        "OrderedDict of pairs": b"\x80\x02" + g + global_op("collections", "OrderedDict")
                                + b"](" + top + b"K\x01ta\x85R.",
        "Counter": b"\x80\x02" + g + global_op("collections", "Counter") + b"]" + top
                   + b"a\x85R.",
        "EMPTY_SET ADDITEMS": b"\x80\x04" + g + b"\x8f(" + top + b"\x90.",
        "FROZENSET": b"\x80\x04" + g + b"(" + top + b"\x91.",
        "deep set member": b"\x80\x02" + global_op("builtins", "set") + b"]" + deep
                           + b"a\x85R.",
        "deep dict key": b"\x80\x02}" + deep + b"K\x01s.",
    }


_CHILD = textwrap.dedent("""
    import io, json, pickle, sys, zipfile
    import arraygrad as ag

    cases = pickle.load(open(sys.argv[1], "rb"))
    results = {}
    for name, pkl in cases.items():
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            zf.writestr("archive/data.pkl", pkl)
        try:
            ag.load(io.BytesIO(buf.getvalue()))
            results[name] = ["loaded", ""]
        except Exception as exc:
            results[name] = [type(exc).__name__, str(exc)]
        print(name, results[name][0], file=sys.stderr, flush=True)
    print(json.dumps(results))
""")


def test_shared_and_deep_keys_are_refused_in_bounded_time(tmp_path):
    cases = _hashing_attacks(levels=40, depth=1_000_000)
    path = tmp_path / "cases.pkl"
    path.write_bytes(pickle.dumps(cases))
    # a child process: before the fix hashing 2**40 leaves never ended, and the deep key
    # crashed the interpreter; the timeout turns either into a failure, never a hang
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout.strip().splitlines()[-1])
    assert sorted(results) == sorted(cases)
    for name, (kind, message) in results.items():
        assert kind == "UnpicklingError", (name, kind, message)
        limit = "NESTING" if name.startswith("deep") else "KEY_ELEMENTS"
        assert f"ARRAYGRAD_LOAD_MAX_{limit}" in message, (name, message)


def test_ordinary_tuple_keys_and_modest_sharing_still_load(monkeypatch):
    state = {(1, 2): "a", ("x", (3, 4)): frozenset({(5, 6)}), "s": {(7,), (8, 9)}}
    buf = io.BytesIO()
    ag.save(state, buf)
    assert ag.load(io.BytesIO(buf.getvalue())) == state
    cases = _hashing_attacks(levels=10, depth=50)  # 1024 leaves, 50 deep: fine
    for name, pkl in cases.items():
        out = _load(zip_records({"data.pkl": pkl}))
        assert out, name
    monkeypatch.setenv("ARRAYGRAD_LOAD_MAX_KEY_ELEMENTS", "1000")
    with pytest.raises(pickle.UnpicklingError,
                       match="more than ARRAYGRAD_LOAD_MAX_KEY_ELEMENTS=1000"):
        _load(zip_records({"data.pkl": cases["set"]}))
    monkeypatch.setenv("ARRAYGRAD_LOAD_MAX_NESTING", "20")
    with pytest.raises(pickle.UnpicklingError, match="ARRAYGRAD_LOAD_MAX_NESTING=20"):
        _load(zip_records({"data.pkl": cases["deep dict key"]}))


# -- torch.Size and torch.device are checked as PyTorch checks them ------------------------------

_LOOSE = {
    "Size of strings": (global_op("torch", "Size") + val((("a", "b"),)) + b"R",
                        TypeError,
                        r"torch.Size\(\) takes an iterable of 'int' \(item 0 is 'str'\)"),
    "unknown device type": (global_op("torch", "device") + val(("nonsense:99",)) + b"R",
                            RuntimeError, "device type at start of device string: nonsense"),
    "device index of text": (global_op("torch", "device") + val(("cpu", "x")) + b"R",
                             TypeError, "must be int, not str"),
    "negative device index": (global_op("torch", "device") + val(("cuda", -5)) + b"R",
                              RuntimeError, "must be non-negative|must not be negative"),
}


@pytest.mark.parametrize("case", sorted(_LOOSE))
def test_size_and_device_from_a_file_are_checked(case):
    ops, error, match = _LOOSE[case]
    raw = zip_records({"data.pkl": b"\x80\x02" + ops + b".", "version": b"3\n",
                       "byteorder": b"little"})
    with pytest.raises(error, match=match):
        _load(raw)
    with pytest.raises(error, match=match):
        _load(raw, weights_only=False)
    good = zip_records({"data.pkl": b"\x80\x02" + global_op("torch", "Size") + val(((2, -3),))
                        + b"R."})
    assert _load(good) == ag.Size([2, -3])  # PyTorch keeps negative sizes in a Size too


@pytest.mark.parametrize("case", sorted(_LOOSE))
def test_size_and_device_errors_have_pytorchs_classes(case):
    torch = pytest.importorskip("torch")
    ops, error, _ = _LOOSE[case]
    raw = zip_records({"data.pkl": b"\x80\x02" + ops + b".", "version": b"3\n",
                       "byteorder": b"little"})
    with pytest.raises(Exception) as theirs:
        torch.load(io.BytesIO(raw), weights_only=True)
    assert type(theirs.value) is error
