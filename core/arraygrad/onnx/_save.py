"""Writing an exported model: to a path (weights inline or in a ``<name>.data`` file beside
it) or to a binary file object.

Everything is serialized in memory first; a path is then written through temporary files
in the same folder, flushed to disk and renamed over the targets only when both are whole, so
an export that fails (or a full disk, or a killed process) leaves no half-written model and no
other file changed.
"""

from __future__ import annotations

import copy
import os
from typing import Any

__all__ = ["save_model", "LARGE_MODEL_BYTES"]

LARGE_MODEL_BYTES = 2**31 - 1  # protobuf's limit: past it the weights must be external


def _initializer_bytes(proto: Any) -> int:
    return sum(len(t.raw_data) for t in proto.graph.initializer)


def save_model(proto: Any, f: Any, *, include_initializers: bool = True,
               keep_initializers_as_inputs: bool = False, external_data: bool | None = None) -> None:
    """Write ``proto`` to ``f`` (a path or a binary file object). ``external_data``: the
    weights go to ``<basename>.data`` beside the model (always past 2 GB, protobuf's
    limit)."""
    import onnx

    proto = with_initializers(proto, include_initializers, keep_initializers_as_inputs)
    if not isinstance(f, (str, os.PathLike)):
        if not hasattr(f, "write"):
            raise TypeError(f"f must be a path or a binary file object with write(), got "
                            f"{type(f).__name__}")
        f.write(proto.SerializeToString())
        return
    path = os.fspath(f)
    external = bool(external_data) or _initializer_bytes(proto) > LARGE_MODEL_BYTES
    files: list[tuple[str, bytes]] = []
    if external and proto.graph.initializer:
        location = os.path.basename(path) + ".data"
        proto, data = _externalized(onnx, proto, location)
        files.append((os.path.join(os.path.dirname(path), location), data))
    files.append((path, proto.SerializeToString()))
    _write_all(files)


def with_initializers(proto: Any, include: bool, as_inputs: bool) -> Any:
    """``proto`` without its initializers (``include`` False) and/or with each one listed
    as a graph input too (``as_inputs``): a copy when anything changes."""
    if include and not as_inputs:
        return proto
    import onnx

    out = copy.deepcopy(proto)
    if as_inputs:
        have = {i.name for i in out.graph.input}
        for t in proto.graph.initializer:
            if t.name not in have:
                out.graph.input.append(onnx.helper.make_tensor_value_info(
                    t.name, t.data_type, list(t.dims)))
    if not include:
        del out.graph.initializer[:]
    return out


def _externalized(onnx: Any, proto: Any, location: str) -> tuple[Any, bytes]:
    """A copy of ``proto`` whose initializers point into one external file, and the bytes
    of that file (each tensor at an offset aligned to 4096, as the onnx package writes)."""
    from onnx.external_data_helper import set_external_data

    out = copy.deepcopy(proto)
    chunks: list[bytes] = []
    offset = 0
    for t in out.graph.initializer:
        if not t.HasField("raw_data"):
            continue
        pad = (-offset) % 4096
        chunks.append(b"\0" * pad)
        offset += pad
        data = t.raw_data
        set_external_data(t, location, offset, len(data))
        t.ClearField("raw_data")
        t.data_location = onnx.TensorProto.EXTERNAL
        chunks.append(data)
        offset += len(data)
    return out, b"".join(chunks)


def _write_all(files: list[tuple[str, bytes]]) -> None:
    """Write each ``(path, bytes)`` through a temporary file flushed to disk, then rename them
    all (``arraygrad._atomic_file``)."""
    from arraygrad._atomic_file import write_files_atomically

    write_files_atomically(files)
