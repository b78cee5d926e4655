"""The new dtypes in files: PyTorch's zip checkpoints (ByteStorage, CharStorage, ShortStorage,
BFloat16Storage, ComplexFloatStorage, ComplexDoubleStorage; uint16/32/64 as untyped storages
rebuilt by ``_rebuild_tensor_v3``) and the safetensors layout (BF16 U8 I8 I16 U16 U32 U64 C64
C128), bit for bit both ways with PyTorch."""

import io
import json
import struct
import warnings

import numpy as np
import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

NAMES = ["bfloat16", "uint8", "int8", "int16", "uint16", "uint32", "uint64", "complex64",
         "complex128"]
CODES = {"bfloat16": "BF16", "uint8": "U8", "int8": "I8", "int16": "I16", "uint16": "U16",
         "uint32": "U32", "uint64": "U64", "complex64": "C64", "complex128": "C128"}


def _raw(rng, name, n):
    """``n`` random elements of dtype ``name`` as little-endian bytes (every bit pattern)."""
    itemsize = 2 if name == "bfloat16" else np.dtype(name).itemsize
    return rng.integers(0, 256, size=n * itemsize, dtype=np.uint8).tobytes()


def _torch_tensor(raw, name, shape):
    t = torch.frombuffer(bytearray(raw), dtype=getattr(torch, name))
    return t.reshape(shape)


def _bytes(t):
    """A tensor's elements as bytes in row-major order (PyTorch's or arraygrad's)."""
    if torch is not None and isinstance(t, torch.Tensor):
        return t.detach().contiguous().view(torch.uint8).numpy().tobytes()
    return np.asarray(t.detach().numpy()).tobytes()


@needs_torch
def test_pytorch_checkpoints_load_bit_for_bit_and_back():
    rng = np.random.default_rng(0)
    state = {name: _torch_tensor(_raw(rng, name, 12), name, (3, 4)) for name in NAMES}
    state["strided"] = state["int16"].t()  # a transposed view: strides kept
    state["param"] = torch.nn.Parameter(state["bfloat16"].clone())
    buf = io.BytesIO()
    torch.save(state, buf)
    ours = ag.load(io.BytesIO(buf.getvalue()))
    for name in NAMES:
        assert ours[name].dtype is getattr(ag, name)
        assert _bytes(ours[name]) == _bytes(state[name]), name
    assert ours["strided"].stride() == state["strided"].stride()
    assert isinstance(ours["param"], ag.nn.Parameter) and ours["param"].dtype is ag.bfloat16
    back = io.BytesIO()
    ag.save(ours, back)
    theirs = torch.load(io.BytesIO(back.getvalue()))
    for name in list(NAMES) + ["strided", "param"]:
        assert theirs[name].dtype == state[name].dtype
        assert _bytes(theirs[name]) == _bytes(state[name]), name


@needs_torch
def test_arraygrad_writes_the_storage_classes_pytorch_does():
    import pickletools

    buf = io.BytesIO()
    ag.save({"b": ag.ones(2, dtype=ag.bfloat16), "u": ag.ones(2, dtype=ag.uint16)}, buf)
    import zipfile

    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    pkl = z.read([n for n in z.namelist() if n.endswith("data.pkl")][0])
    text = io.StringIO()
    pickletools.dis(pkl, out=text)
    dis = text.getvalue()
    assert "torch BFloat16Storage" in dis and "torch.storage UntypedStorage" in dis
    assert "_rebuild_tensor_v3" in dis and "torch uint16" in dis


def test_round_trip_without_pytorch_and_onto_a_backend_without_bfloat16():
    state = {name: ag.ones(3, dtype=getattr(ag, name)) * 2 for name in NAMES}
    buf = io.BytesIO()
    ag.save(state, buf)
    got = ag.load(io.BytesIO(buf.getvalue()))
    assert all(got[n].dtype is state[n].dtype and got[n].tolist() == [2, 2, 2] for n in NAMES)
    ints = {n: t for n, t in state.items() if n != "bfloat16"}
    buf = io.BytesIO()
    ag.save(ints, buf)
    on_strict = ag.load(io.BytesIO(buf.getvalue()), map_location="strict")
    assert all(t.device == ag.device("strict") and t.tolist() == [2, 2, 2]
               for t in on_strict.values())
    buf = io.BytesIO()
    ag.save(state["bfloat16"], buf)
    with pytest.raises(RuntimeError, match="backend 'strict'.*bfloat16"):
        ag.load(io.BytesIO(buf.getvalue()), map_location="strict")


def _safetensors_file(tensors):
    header, chunks, offset = {}, [], 0
    for key, (code, shape, raw) in tensors.items():
        header[key] = {"dtype": code, "shape": list(shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    head = json.dumps(header).encode()
    return struct.pack("<Q", len(head)) + head + b"".join(chunks)


@needs_torch
def test_safetensors_files_load_bit_for_bit_and_back():
    rng = np.random.default_rng(1)
    raws = {name: _raw(rng, name, 6) for name in NAMES}
    blob = _safetensors_file({name: (CODES[name], (2, 3), raws[name]) for name in NAMES})
    ours = ag.load_safetensors(io.BytesIO(blob))
    for name in NAMES:
        assert ours[name].dtype is getattr(ag, name) and tuple(ours[name].shape) == (2, 3)
        assert _bytes(ours[name]) == _bytes(_torch_tensor(raws[name], name, (2, 3)))
    out = io.BytesIO()
    ag.save_safetensors(ours, out)
    data = out.getvalue()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    entries = {k: v for k, v in header.items() if k != "__metadata__"}
    written = sorted((v["dtype"], body[v["data_offsets"][0]:v["data_offsets"][1]])
                     for v in entries.values())
    assert written == sorted((CODES[name], raws[name]) for name in NAMES)


def test_safetensors_through_the_portable_from_bytes():
    """The contract's struct path (the strict backend has no zero-parse reader)."""
    blob = _safetensors_file({"u": ("U16", (2,), struct.pack("<2H", 65535, 7)),
                              "i": ("I8", (2,), struct.pack("<2b", -128, 5)),
                              "c": ("C64", (2,), struct.pack("<4f", 1.5, -2, 0, 0.25))})
    got = ag.load_safetensors(io.BytesIO(blob), map_location="strict")
    assert got["u"].tolist() == [65535, 7] and got["i"].tolist() == [-128, 5]
    assert got["c"].dtype is ag.complex64 and got["c"].tolist() == [1.5 - 2j, 0.25j]
    backend = ag.backends.get_backend("numpy")
    arr = ag.backends.contract.Backend.from_bytes(backend, struct.pack("<2H", 0x3FC0, 0xC000),
                                                   backend.native_dtype(ag.bfloat16), (2,))
    assert ag.from_numpy(np.asarray(arr)).tolist() == [1.5, -2.0]


@needs_torch
@pytest.mark.parametrize("name", ["ByteStorage", "CharStorage", "ShortStorage",
                                  "BFloat16Storage", "ComplexFloatStorage",
                                  "ComplexDoubleStorage"])
def test_legacy_storages_match_pytorch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = getattr(ag, name)([1, 2, 100]), getattr(torch, name)([1, 2, 100])
        assert ours.tolist() == theirs.tolist() and ours.type() == theirs.type()
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
        t = ag.tensor([1, 2], dtype=getattr(ag, name).dtype)
        assert isinstance(t.storage(), getattr(ag, name))


@needs_torch
def test_complex_views_and_parameters_in_checkpoints():
    z = torch.tensor([[1 + 2j, -3.5 + 0.25j], [0.5j, 2 - 1j]], dtype=torch.complex64)
    # (PyTorch refuses to save a complex tensor beside a view of it as real: one storage, two
    # types; arraygrad saves the real view as a tensor of its own)
    state = {"z": z, "p": torch.nn.Parameter(z.clone())}
    buf = io.BytesIO()
    torch.save(state, buf)
    ours = ag.load(io.BytesIO(buf.getvalue()))
    assert ours["z"].tolist() == z.tolist()
    assert ours["p"].dtype is ag.complex64 and ours["p"].requires_grad
    mine = {"z": ours["z"], "parts": ag.view_as_real(ours["z"]), "t": ours["z"].t()}
    back = io.BytesIO()
    ag.save(mine, back)
    theirs = torch.load(io.BytesIO(back.getvalue()))
    assert torch.equal(theirs["z"], z) and torch.equal(theirs["parts"], torch.view_as_real(z))
    assert theirs["t"].stride() == z.t().stride()
