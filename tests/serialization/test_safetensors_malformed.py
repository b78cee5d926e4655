"""Malformed safetensors files (issue 29, "Checkpoint files"): every one raises the documented
``RuntimeError`` naming the file and the header field at fault, never a ``TypeError``,
``ValueError`` or ``RecursionError`` from deep inside the parser; and the tensors must tile the
data bytes as the safetensors library requires, so a file cannot make a hundred tensors out
of the same bytes."""

from __future__ import annotations

import io
import json
import struct

import pytest

import arraygrad as ag
from arraygrad.serialization import safetensors as st


def _file(header, data: bytes = b"") -> bytes:
    raw = (header if isinstance(header, str) else json.dumps(header)).encode()
    return struct.pack("<Q", len(raw)) + raw + data


def _structure(node) -> dict:
    return {"__metadata__": {"format": "arraygrad", "version": "1",
                             "structure": node if isinstance(node, str) else json.dumps(node)}}


_F32 = {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}

CASES = {
    "dtype is a list": ({"w": {**_F32, "dtype": ["F32"]}}, b"\0" * 4, "'dtype'"),
    "shape is text": ({"w": {**_F32, "shape": "1"}}, b"\0" * 4, "'shape'"),
    "shape too large for any array": ({"w": {"dtype": "F32", "shape": [0, 2 ** 70],
                                             "data_offsets": [0, 0]}}, b"", "'shape'"),
    "too many dimensions": ({"w": {**_F32, "shape": [1] * 100}}, b"\0" * 4, "'shape'"),
    "offsets are text": ({"w": {**_F32, "data_offsets": "0-4"}}, b"\0" * 4, "'data_offsets'"),
    "deeply nested header": ("[" * 100_000 + "]" * 100_000, b"", "the header"),
    "metadata value is a list": ({"__metadata__": {"format": ["arraygrad"]}}, b"",
                                 "'__metadata__'"),
    "deeply nested structure": (_structure("[" * 100_000 + "]" * 100_000), b"", "'structure'"),
    "tensor name is a list": ({"w": _F32, **_structure({"T": ["w"]})}, b"\0" * 4,
                              "'structure'"),
    "tensor device is a list": ({"w": _F32, **_structure({"T": "w", "dev": ["cpu"]})},
                                b"\0" * 4, "'structure'"),
    "tensors share their bytes": ({f"w{i}": {"dtype": "F32", "shape": [4],
                                             "data_offsets": [0, 16]} for i in range(100)},
                                  b"\0" * 16, "'data_offsets'"),
    "a gap between tensors": ({"a": _F32, "b": {**_F32, "data_offsets": [8, 12]}},
                              b"\0" * 12, "'data_offsets'"),
    "bytes after the last tensor": ({"a": _F32}, b"\0" * 8, "'data_offsets'"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_files_name_the_file_and_the_field(tmp_path, case):
    header, data, field = CASES[case]
    path = tmp_path / "bad.safetensors"
    path.write_bytes(_file(header, data))
    for load in (ag.load, ag.load_safetensors, st.load_file):
        if field == "'structure'" and load is st.load_file:
            continue  # safetensors.torch's functions read names only, never the structure
        with pytest.raises(RuntimeError) as info:
            load(path)
        assert type(info.value) is RuntimeError, (load, info.value)
        assert str(path) in str(info.value) and field in str(info.value), str(info.value)
    if field == "'structure'":
        return
    with pytest.raises(RuntimeError) as info:
        st.load(path.read_bytes())
    assert type(info.value) is RuntimeError and "<bytes>" in str(info.value)
    assert field in str(info.value)


def test_a_file_object_is_named_by_its_name_or_type(tmp_path):
    raw = _file(*CASES["dtype is a list"][:2])
    with pytest.raises(RuntimeError, match="<BytesIO>: tensor 'w': field 'dtype'"):
        ag.load(io.BytesIO(raw))
    path = tmp_path / "named.safetensors"
    path.write_bytes(raw)
    with open(path, "rb") as fh:
        with pytest.raises(RuntimeError, match="named.safetensors"):
            ag.load_safetensors(fh)


def test_well_formed_files_still_load(tmp_path):
    ag.save_safetensors({"a": ag.arange(3.0), "b": {"c": ag.ones(2, 2)}, "e": ag.zeros(0)},
                        tmp_path / "ok.safetensors")
    out = ag.load(tmp_path / "ok.safetensors")
    assert out["a"].tolist() == [0.0, 1.0, 2.0] and out["b"]["c"].shape == (2, 2)
    assert out["e"].shape == (0,)
    # zero-size tensors may sit anywhere, empty files of tensors are whole
    raw = _file({"z": {"dtype": "F32", "shape": [0], "data_offsets": [4, 4]}, "a": _F32},
                b"\0" * 4)
    assert sorted(st.load(raw)) == ["a", "z"]
    assert st.load(_file({})) == {}


@pytest.mark.parametrize("case", ["tensors share their bytes", "a gap between tensors",
                                  "bytes after the last tensor"])
def test_the_safetensors_library_refuses_the_same_layouts(case):
    safetensors = pytest.importorskip("safetensors")
    header, data, _ = CASES[case]
    with pytest.raises(safetensors.SafetensorError, match="offset|not fully covered"):
        safetensors.deserialize(_file(header, data))
    with pytest.raises(RuntimeError, match="'data_offsets'"):
        st.load(_file(header, data))
