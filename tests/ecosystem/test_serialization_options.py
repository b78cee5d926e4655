"""``arraygrad.serialization``'s settings and registries: ``skip_data``, the CRC-32 option,
``register_package``/``location_tag``/``default_restore_location``, the mmap options and
PyTorch's small helpers."""

from __future__ import annotations

import io
import mmap
import types
import zipfile

import pytest

import arraygrad as ag
from arraygrad import serialization as S

try:
    import torch
except ImportError:
    torch = None


def test_skip_data_writes_and_reads_zeros():
    buf = io.BytesIO()
    with S.skip_data():
        ag.save({"w": ag.arange(6.0)}, buf)
    buf.seek(0)
    assert ag.load(buf)["w"].tolist() == [0.0] * 6
    full = io.BytesIO()
    ag.save({"w": ag.arange(6.0)}, full)
    full.seek(0)
    with S.skip_data():
        assert ag.load(full)["w"].tolist() == [0.0] * 6
    full.seek(0)
    assert ag.load(full)["w"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_skip_data_file_loads_in_pytorch_as_zeros():
    buf = io.BytesIO()
    with S.skip_data():
        ag.save(ag.ones(3), buf)
    buf.seek(0)
    assert torch.load(buf).tolist() == [0.0, 0.0, 0.0]


def test_crc32_option():
    assert S.get_crc32_options() is True
    try:
        S.set_crc32_options(False)
        buf = io.BytesIO()
        ag.save(ag.ones(2), buf)
    finally:
        S.set_crc32_options(True)
    assert all(i.CRC == 0 for i in zipfile.ZipFile(buf).infolist())
    buf.seek(0)
    assert ag.load(buf).tolist() == [1.0, 1.0]


def test_registered_package_tags_and_restores():
    seen = []

    def tag(storage):
        seen.append("tag")
        return "cpu" if storage.device.type == "cpu" else None

    def restore(storage, location):
        seen.append(location)
        return storage.cpu()

    S.register_package(1, tag, restore)
    try:
        buf = io.BytesIO()
        ag.save(ag.ones(2), buf)
        buf.seek(0)
        assert ag.load(buf).tolist() == [1.0, 1.0]
    finally:
        S._options._package_registry[:] = [e for e in S._options._package_registry
                                           if e[1] is not tag]
    assert seen == ["tag", "cpu"]
    st = S.Storage(b"\0" * 8, ag.float32)
    assert S.location_tag(st) == "cpu"
    assert S.default_restore_location(st, "cpu").device.type == "cpu"


def test_mmap_options():
    assert S.get_default_mmap_options() == mmap.MAP_PRIVATE
    with S.set_default_mmap_options(mmap.MAP_PRIVATE):
        assert S.get_default_mmap_options() == mmap.MAP_PRIVATE
    with pytest.raises(ValueError, match="expected mmap.MAP_PRIVATE or mmap.MAP_SHARED"):
        S.set_default_mmap_options(12345)
    with pytest.raises(ValueError, match="MAP_SHARED is not supported"):
        S.set_default_mmap_options(mmap.MAP_SHARED)


def test_helpers():
    mod = types.SimpleNamespace(__name__="m", __version__="1.12.3")
    assert S.check_module_version_greater_or_equal(mod, (1, 12))
    assert not S.check_module_version_greater_or_equal(mod, (1, 13))
    bad = types.SimpleNamespace(__name__="m", __version__="x.y")
    with pytest.raises(RuntimeError, match="malformed"):
        S.check_module_version_greater_or_equal(bad, (1,))
    with pytest.warns(UserWarning, match="assuming that requirement is met"):
        assert S.check_module_version_greater_or_equal(bad, (1,), error_if_malformed=False)
    with S.mkdtemp() as d:
        import os
        assert os.path.isdir(d)
    assert not os.path.exists(d)
    lines, first, filename = S.get_source_lines_and_file(test_helpers)
    assert lines[0].startswith("def test_helpers") and filename.endswith(".py")
    assert S.normalize_storage_type(type("FloatStorage", (), {})).dtype == ag.float32
    assert S.storage_to_tensor_type(S.Storage(b"", ag.float64)) is ag.DoubleTensor
    assert issubclass(S.SourceChangeWarning, Warning)


def test_validate_cuda_device_without_cuda():
    if ag.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(RuntimeError, match="torch.cuda.is_available\\(\\) is False"):
        S.validate_cuda_device("cuda:0")


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_constants_match_pytorch():
    import torch.serialization as TS

    for name in ("MAGIC_NUMBER", "PROTOCOL_VERSION", "STORAGE_KEY_SEPARATOR", "IS_WINDOWS",
                 "MAP_SHARED", "MAP_PRIVATE", "SHORT_SIZE", "INT_SIZE", "LONG_SIZE"):
        assert getattr(S, name) == getattr(TS, name), name
