"""Building checkpoints byte by byte, without PyTorch: the hostile and malformed files the
loading tests feed ``arraygrad.load``."""

from __future__ import annotations

import io
import pickle
import zipfile


def zip_records(records: dict, compression=zipfile.ZIP_STORED) -> bytes:
    """A checkpoint archive holding ``records`` (name -> bytes) under ``archive/``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=compression) as zf:
        for name, data in records.items():
            zf.writestr(f"archive/{name}", data)
    return buf.getvalue()


def val(value) -> bytes:
    """The protocol-2 opcodes pushing ``value`` (PROTO and STOP stripped)."""
    return pickle.dumps(value, protocol=2)[2:-1]


def global_op(module: str, name: str) -> bytes:
    """The GLOBAL opcode pushing ``module.name``."""
    return b"c" + f"{module}\n{name}\n".encode()


def storage_pid(numel, key="0", stype="FloatStorage") -> bytes:
    """A storage's persistent id ``('storage', torch.<stype>, key, 'cpu', numel)``."""
    return (b"(" + val("storage") + global_op("torch", stype) + val(key) + val("cpu")
            + val(numel) + b"t" + b"Q")  # MARK ... TUPLE BINPERSID


def tensor_ops(size, stride, offset=0, numel=4, key="0", stype="FloatStorage") -> bytes:
    """The opcodes pushing one tensor: _rebuild_tensor_v2(storage, offset, size, stride,
    False, OrderedDict())."""
    return (global_op("torch._utils", "_rebuild_tensor_v2") + b"("
            + storage_pid(numel, key, stype) + val(offset) + val(tuple(size))
            + val(tuple(stride)) + b"\x89" + global_op("collections", "OrderedDict") + b")R"
            + b"tR")


def tensor_pkl(size, stride, offset=0, numel=4, key="0", stype="FloatStorage") -> bytes:
    """data.pkl of one tensor (:func:`tensor_ops`)."""
    return b"\x80\x02" + tensor_ops(size, stride, offset, numel, key, stype) + b"."


def pkl_archive(pkl: bytes, storages=None, compression=zipfile.ZIP_STORED) -> bytes:
    """A checkpoint of ``data.pkl`` and the ``data/<key>`` storage records."""
    return zip_records({"data.pkl": pkl, **{f"data/{k}": v for k, v in (storages or {}).items()}},
                       compression)
