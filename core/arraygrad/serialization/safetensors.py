"""The safetensors layout: ``arraygrad.save_safetensors`` / ``load_safetensors`` (tensors and
nested containers, arraygrad's own format before it wrote PyTorch's zip checkpoints) and
``safetensors.torch``'s functions on arraygrad tensors (``save_file``, ``load_file``, ``save``,
``load``, ``save_model``, ``load_model``: a port imports them from here).

The file is data only, never code, so loading an untrusted file cannot run
anything. ``arraygrad.load`` recognises these files by their first bytes and
reads them here, so checkpoints written by earlier arraygrad versions keep loading::

    8 bytes    little-endian unsigned header length N
    N bytes    UTF-8 JSON header:
                 {"<name>": {"dtype": "F32", "shape": [2, 3], "data_offsets": [begin, end]},
                  ...,
                  "__metadata__": {"format": "arraygrad", "version": "1",
                                   "structure": "<JSON string, see below>"}}
    rest       the tensors' raw little-endian bytes; offsets are relative to here

dtypes: ``F16 BF16 F32 F64 U8 I8 I16 U16 I32 U32 I64 U64 BOOL C64 C128`` (a complex element
is its real then its imaginary part, as NumPy and PyTorch lay it out). A plain safetensors file (no
``structure``) loads as a dict of name -> tensor.

A tensor's name is its place in the saved object: a state dict's key (``fc.weight``), nested
keys and indices joined by dots (``model.fc.weight``, ``opt.state.0.exp_avg``), ``tensor`` for
a bare tensor, ``#1``... added where two places would spell one name. So PyTorch's
``safetensors.torch.load_file`` of a saved state dict is that state dict.

``structure`` describes the saved object as a JSON tree of one-key objects:
``{"T": name}`` a tensor (``"rg": true`` if it required grad, ``"p": true`` for
an ``nn.Parameter``, ``"dev"`` its device), ``{"D": [[key, value], ...]}`` a
dict and ``{"O": ...}`` an OrderedDict (keys are encoded like values, so
integer keys survive), ``{"L": [...]}`` a list, ``{"U": [...]}`` a tuple,
``{"i": 3}``, ``{"f": "0x1.8p+1"}`` (``float.hex``, exact and NaN/inf-safe),
``{"b": true}``, ``{"s": "text"}``, ``{"n": null}``. A tensor saved twice is
stored once and loads as one shared tensor; its second name is listed in ``__metadata__`` as
``{"<second name>": "<stored name>"}``, as ``safetensors.torch.save_model`` lists the names it
drops. Different tensors sharing memory are refused, as ``safetensors.torch`` refuses them.

Reading bytes into an array uses the backend's ``from_bytes(data, native_dtype, shape)``
(the contract's portable default goes through ``struct`` and ``backend.from_host``).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import struct
import sys
from collections import OrderedDict
from typing import IO, TYPE_CHECKING, Any, Callable, Iterator, Union

from arraygrad import dtypes as _dt
from arraygrad._atomic_file import atomic_write
from arraygrad.serialization._shared import (duplicate_names, shared_groups,
                                              shared_memory_error)
from arraygrad.tensor import Tensor, wrap

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.device import DeviceLike

# What save/load take as ``f``: a path or a binary file object.
FileLike = Union[str, "os.PathLike[str]", IO[bytes]]

__all__ = ["save_safetensors", "load_safetensors", "MAX_HEADER_BYTES", "save", "save_file",
           "load", "load_file", "save_model", "load_model"]

MAX_HEADER_BYTES = 100 * 1024 * 1024
"""Headers above this size are rejected before being read (a corrupt length must not
make ``load`` allocate gigabytes)."""

_FORMAT = "arraygrad"
_VERSION = "1"

# safetensors dtype name <-> arraygrad dtype, and the struct format of one element
_CODES = {_dt.float16: "F16", _dt.bfloat16: "BF16", _dt.float32: "F32", _dt.float64: "F64",
          _dt.uint8: "U8", _dt.int8: "I8", _dt.int16: "I16", _dt.uint16: "U16",
          _dt.int32: "I32", _dt.uint32: "U32", _dt.int64: "I64", _dt.uint64: "U64",
          _dt.bool: "BOOL", _dt.complex64: "C64", _dt.complex128: "C128"}
_DTYPES = {code: d for d, code in _CODES.items()}
_RESERVED_METADATA = ("format", "version", "structure")  # arraygrad's keys in __metadata__
_ITEMSIZE = {code: d.itemsize for d, code in _CODES.items()}


# -- saving -----------------------------------------------------------------------------

class _Writer:
    """Collects the tensors of one object tree, named by where they are in it, and encodes its
    structure."""

    def __init__(self) -> None:
        self.entries: dict[str, Tensor] = {}
        self.names: dict[int, str] = {}  # id(tensor) -> name, so a shared tensor is stored once
        self.aliases: dict[str, str] = {}  # a repeated tensor's later name -> its stored name

    def encode(self, obj: Any, path: tuple[str, ...] = ()) -> Any:
        if isinstance(obj, Tensor):
            return self._tensor(obj, path)
        if obj is None:
            return {"n": None}
        if isinstance(obj, bool):
            return {"b": obj}
        if isinstance(obj, int):
            return {"i": obj}
        if isinstance(obj, float):
            return {"f": obj.hex()}
        if isinstance(obj, str):
            return {"s": obj}
        if isinstance(obj, dict):
            tag = "O" if isinstance(obj, OrderedDict) else "D"
            return {tag: [[self.encode(k, path), self.encode(v, (*path, str(k)))]
                          for k, v in obj.items()]}
        if isinstance(obj, (list, tuple)):
            items = [self.encode(v, (*path, str(i))) for i, v in enumerate(obj)]
            return {"L" if isinstance(obj, list) else "U": items}
        raise TypeError(
            f"arraygrad.save_safetensors: cannot save an object of type {type(obj).__name__}; "
            "supported are "
            "tensors and (nested) dicts, lists and tuples of tensors, numbers, strings and None")

    def _name(self, path: tuple[str, ...]) -> str:
        """The state-dict key the path spells (``model.fc.weight``), made unique."""
        base = ".".join(path) or "tensor"
        name, n = base, 1
        while name in self.entries or name in self.aliases or name == "__metadata__":
            name, n = f"{base}#{n}", n + 1
        return name

    def _tensor(self, t: Tensor, path: tuple[str, ...]) -> dict[str, Any]:
        if t.dtype not in _CODES:
            raise TypeError(f"arraygrad.save_safetensors: unsupported dtype {t.dtype}")
        name = self.names.get(id(t))
        if name is None:
            name = self.names[id(t)] = self._name(path)
            self.entries[name] = t
        else:  # listed as save_model lists a dropped name: safetensors.torch.load_model ties it
            self.aliases[self._name(path)] = name
        out: dict[str, Any] = {"T": name, "dev": str(t.device)}
        if t.requires_grad:
            out["rg"] = True
        if type(t).__name__ == "Parameter":
            out["p"] = True
        return out


def _little_endian_bytes(t: Tensor) -> bytes:
    host = t._backend.to_host(t.detach()._data)
    if sys.byteorder == "big" and hasattr(host, "byteswap"):
        host = host.byteswap()
    return host.tobytes()


def _check_not_shared(tensors: dict[str, Tensor]) -> None:
    """safetensors.torch's refusal: no two names may be overlapping memory."""
    groups = [g for g in shared_groups(tensors) if len(g) > 1]
    if groups:
        raise shared_memory_error(groups)


def _encoded(tensors: dict[str, Tensor], metadata: dict[str, str] | None) -> list[bytes]:
    """The file's parts: header length, header, the tensors' bytes in order."""
    header: dict[str, Any] = {}
    chunks, offset = [], 0
    for name, t in tensors.items():
        data = _little_endian_bytes(t)
        header[name] = {"dtype": _CODES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    if metadata is not None:
        header["__metadata__"] = metadata
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)  # safetensors pads the header so data starts 8-aligned
    return [struct.pack("<Q", len(raw)), raw, *chunks]


def _write(payload: list[bytes], f: FileLike) -> None:
    if isinstance(f, (str, os.PathLike)):
        with atomic_write(f) as fh:  # the old file stays whole until the new one is
            for part in payload:
                fh.write(part)
    else:
        for part in payload:
            f.write(part)


def save_safetensors(obj: Any, f: FileLike) -> None:
    """Save ``obj`` (a tensor, or nested dicts/lists/tuples of tensors and plain values) to ``f``
    in the safetensors layout (data only: readable by any safetensors reader as name -> tensor).

    Each tensor is named by its place in ``obj``: a state dict's keys (``fc.weight``), nested
    keys and indices joined by dots (``model.fc.weight``, ``groups.0``), so PyTorch's
    ``safetensors.torch.load_file`` gives a state dict ``load_state_dict`` takes. As
    ``safetensors.torch``, two different tensors sharing memory (tied weights of a state dict)
    are refused with RuntimeError: use ``save_model``. The same tensor object saved twice is
    stored once and loads as one tensor.

    ``f`` is a path or a binary file object. ``arraygrad.load`` and
    ``load_safetensors`` read it back with its structure.
    """
    writer = _Writer()
    structure = writer.encode(obj)
    _check_not_shared(writer.entries)
    for alias in [a for a in writer.aliases if a in _RESERVED_METADATA]:
        del writer.aliases[alias]
    metadata = {**writer.aliases, "format": _FORMAT, "version": _VERSION,
                "structure": json.dumps(structure, separators=(",", ":"))}
    _write(_encoded(writer.entries, metadata), f)


# -- loading ----------------------------------------------------------------------------

class _Malformed(RuntimeError):
    """A malformed file; the loading functions re-raise it naming the file (``_reading``)."""


def _bad(msg: str) -> RuntimeError:
    return _Malformed(msg)


def _source(f: Any) -> str:
    """How errors name the file being read."""
    if isinstance(f, (str, os.PathLike)):
        return repr(os.fspath(f))
    if isinstance(f, (bytes, bytearray, memoryview)):
        return "<bytes>"
    name = getattr(f, "name", None)
    return repr(name) if isinstance(name, str) else f"<{type(f).__name__}>"


@contextlib.contextmanager
def _reading(f: Any) -> Iterator[None]:
    """Re-raise a malformed file's error as ``RuntimeError`` naming the file."""
    try:
        yield
    except _Malformed as exc:
        raise RuntimeError(f"arraygrad.load_safetensors: {_source(f)}: {exc}") from None


def _read_all(f: FileLike) -> bytes:
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as fh:
            return _read_bounded(fh)
    return _read_bounded(f)


def _read_bounded(fh: IO[bytes]) -> bytes:
    """The header length, checked before anything large is read, then the whole file."""
    head = fh.read(8)
    if len(head) < 8:
        raise _bad(f"file is truncated: {len(head)} bytes, too short for the 8-byte header "
                   "length")
    _reject_foreign(head)
    (n,) = struct.unpack("<Q", head)
    if n > MAX_HEADER_BYTES:
        raise _bad(f"header length {n} exceeds the {MAX_HEADER_BYTES}-byte limit; the file is "
                   "corrupt or not an arraygrad/safetensors file")
    return head + fh.read()


def _reject_foreign(head: bytes) -> None:
    """Clear errors for the files people most often pass by mistake."""
    if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
        raise _bad("this is a pickle file (e.g. from torch.save with the legacy format), not a "
                   "safetensors file; it is never unpickled here")
    if head[:4] == b"PK\x03\x04":
        raise _bad("this is a zip archive (a PyTorch checkpoint), not a safetensors file; read it "
                   "with arraygrad.load")


def _parse_header(blob: bytes) -> tuple[dict[str, Any], memoryview]:
    (n,) = struct.unpack("<Q", blob[:8])
    if 8 + n > len(blob):
        raise _bad(f"file is truncated: header of {n} bytes announced, only "
                   f"{len(blob) - 8} bytes follow")
    header = _json(blob[8:8 + n], "the header")
    if not isinstance(header, dict):
        raise _bad("the header is not a JSON object")
    return header, memoryview(blob)[8 + n:]


def _json(raw: bytes | str, what: str) -> Any:
    """``raw`` parsed as JSON; a file nesting it too deeply for the parser is malformed too."""
    try:
        return json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise _bad(f"{what} is not valid UTF-8 JSON ({exc})") from None
    except RecursionError:
        raise _bad(f"{what} nests JSON too deeply") from None


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_entry(name: str, entry: Any, data_len: int) -> tuple[str, tuple[int, ...], int, int]:
    if not isinstance(entry, dict):
        raise _bad(f"header entry {name!r} is not an object")
    code, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
    if not isinstance(code, str) or code not in _DTYPES:
        raise _bad(f"tensor {name!r}: field 'dtype' is an unsupported dtype {_short(code)}")
    if not isinstance(shape, list) or not all(_is_int(s) and s >= 0 for s in shape):
        raise _bad(f"tensor {name!r}: field 'shape' is an invalid shape {_short(shape)}")
    if (not isinstance(offsets, list) or len(offsets) != 2
            or not all(_is_int(o) for o in offsets)):
        raise _bad(f"tensor {name!r}: field 'data_offsets' holds invalid data_offsets "
                   f"{_short(offsets)}")
    begin, end = offsets
    if not 0 <= begin <= end <= data_len:
        raise _bad(f"tensor {name!r}: field 'data_offsets' {offsets} falls outside the {data_len} "
                   "data bytes (truncated or corrupt file)")
    if end - begin != math.prod(shape) * _ITEMSIZE[code]:
        raise _bad(f"tensor {name!r}: {end - begin} bytes (field 'data_offsets') do not match "
                   f"field 'shape' {_short(shape)} of {code}")
    return code, tuple(shape), begin, end


def _check_layout(entries: dict[str, tuple[str, tuple[int, ...], int, int]], data_len: int) -> None:
    """The tensors tile the data bytes exactly, as the safetensors library requires: each
    byte belongs to one tensor, so a file cannot make many tensors out of the same bytes."""
    at = 0
    for name, (_, _, begin, end) in sorted(entries.items(), key=lambda item: item[1][2:]):
        if begin != at:
            raise _bad(f"tensor {name!r}: field 'data_offsets' [{begin}, {end}] "
                       f"{'overlaps another tensor' if begin < at else 'leaves a gap'} (the "
                       f"tensors must tile the data: this one should start at {at})")
        at = end
    if at != data_len:
        raise _bad(f"the tensors cover {at} of the {data_len} data bytes (field 'data_offsets')")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _to_array(backend: Backend, data: bytes, code: str, shape: tuple[int, ...]) -> Any:
    # the contract's from_bytes (a zero-parse override, or its portable struct path)
    return backend.from_bytes(data, backend.native_dtype(_DTYPES[code]), shape)


# ``map_location``: one device for every tensor, or a {stored: target} remapping.
MapLocation = Union["DeviceLike", dict[str, str], None]


def _target_device(stored: str, map_location: MapLocation) -> str:
    if map_location is None:
        return stored
    if isinstance(map_location, dict):
        return map_location.get(stored, stored)
    if callable(map_location):
        raise TypeError("arraygrad.load_safetensors: map_location must be a device, a string or a "
                        "dict")
    return str(map_location)


def _parsed(blob: bytes) -> tuple[dict[str, Any] | None, dict[str, Any], memoryview]:
    """A file's ``__metadata__``, its checked tensor entries and its data bytes."""
    header, data = _parse_header(blob)
    meta = header.pop("__metadata__", None)
    if meta is not None and not (isinstance(meta, dict) and all(
            isinstance(v, str) for v in meta.values())):
        raise _bad("field '__metadata__' is not an object of strings")
    entries = {name: _check_entry(name, entry, len(data)) for name, entry in header.items()}
    _check_layout(entries, len(data))
    return meta, entries, data


def _read_tensor(name: str, entry: Any, data: memoryview, device: Any) -> Tensor:
    from arraygrad.backends import backend_for_device

    code, shape, begin, end = entry
    backend = backend_for_device(device)
    try:
        array = _to_array(backend, bytes(data[begin:end]), code, shape)
    except (ValueError, TypeError, OverflowError, MemoryError) as exc:
        # a shape the header's checks allow but no array can have (too many dimensions, a
        # dimension past the array library's index type)
        raise _bad(f"tensor {name!r}: field 'shape' {_short(list(shape))} is impossible on "
                   f"backend {backend.name!r} ({type(exc).__name__}: {exc})") from None
    return wrap(array, backend)


def load_safetensors(f: FileLike, map_location: MapLocation = None) -> Any:
    """Load an object saved by ``save_safetensors`` (or any safetensors file, as a dict).

    ``map_location``: a device (``"cpu"``) for every tensor, or a dict
    ``{"cuda:0": "cpu"}`` remapping stored devices. Malformed, truncated or
    pickle files raise ``RuntimeError``; nothing in a file is ever executed.
    """
    with _reading(f):
        return _load_structured(f, map_location)


def _load_structured(f: FileLike, map_location: MapLocation) -> Any:
    meta, entries, data = _parsed(_read_all(f))
    cache: dict[tuple[str, str], Tensor] = {}

    def tensor(name: str, device: str) -> Tensor:
        key = (name, device)
        if key not in cache:
            if name not in entries:
                raise _bad(f"structure refers to a missing tensor {name!r}")
            cache[key] = _read_tensor(name, entries[name], data,
                                      _target_device(device, map_location))
        return cache[key]

    if meta is None or "structure" not in meta:  # a plain safetensors file
        return {name: tensor(name, "cpu") for name in entries}
    if meta.get("format") != _FORMAT:
        raise _bad(f"unknown format {_short(meta.get('format'))} in field '__metadata__'")
    return _decode(_json(meta["structure"], "field 'structure' of '__metadata__'"), tensor, 0)


# -- safetensors.torch's functions, on arraygrad tensors ------------------------------------
# ``from safetensors.torch import save_file, load_file`` ports as
# ``from arraygrad.serialization.safetensors import save_file, load_file``.

def _flat(tensors: Any, metadata: Any) -> dict[str, Tensor]:
    """safetensors.torch's checks of what ``save``/``save_file`` take."""
    if not isinstance(tensors, dict):
        raise ValueError(f"Expected a dict of [str, torch.Tensor] but received {type(tensors)}")
    for k, v in tensors.items():
        if not isinstance(v, Tensor):
            raise ValueError(f"Key `{k}` is invalid, expected torch.Tensor but received {type(v)}")
        if v.dtype not in _CODES:
            raise ValueError(f"Key `{k}`: safetensors has no dtype for {v.dtype}")
    if metadata is not None and not (isinstance(metadata, dict) and all(
            isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())):
        raise TypeError("metadata must be a dict of str to str")
    _check_not_shared(tensors)
    return tensors


def save(tensors: dict[str, Tensor], metadata: dict[str, str] | None = None) -> bytes:
    """A dict of tensors as the bytes of a safetensors file (``safetensors.torch.save``)."""
    return b"".join(_encoded(_flat(tensors, metadata), metadata))


def save_file(tensors: dict[str, Tensor], filename: str | os.PathLike[str],
              metadata: dict[str, str] | None = None) -> None:
    """Write a dict of tensors as a safetensors file (``safetensors.torch.save_file``): names
    are the keys, ``metadata`` (str to str) goes in the header. Tensors sharing memory are
    refused (RuntimeError): ``save_model`` drops the duplicates."""
    _write(_encoded(_flat(tensors, metadata), metadata), filename)


def _device_of(device: Any) -> Any:
    return f"cuda:{device}" if isinstance(device, int) and not isinstance(device, bool) else device


def load(data: bytes) -> dict[str, Tensor]:
    """The tensors of a safetensors file's bytes, on the CPU (``safetensors.torch.load``)."""
    with _reading(data):
        _reject_foreign(bytes(data[:8]))
        _, entries, body = _parsed(bytes(data))
        return {name: _read_tensor(name, entry, body, "cpu") for name, entry in entries.items()}


def load_file(filename: str | os.PathLike[str], device: Any = "cpu") -> dict[str, Tensor]:
    """The tensors of a safetensors file by name, on ``device`` (a device, or a CUDA index), as
    ``safetensors.torch.load_file``; any safetensors file (an arraygrad one too: its names)."""
    with _reading(filename):
        _, entries, data = _parsed(_read_all(filename))
        return {name: _read_tensor(name, entry, data, _device_of(device))
                for name, entry in entries.items()}


def save_model(model: Any, filename: str | os.PathLike[str],
               metadata: dict[str, str] | None = None, force_contiguous: bool = True) -> None:
    """Save ``model.state_dict()`` keeping one name of each group of tensors sharing memory
    (tied weights); each dropped name is written in the metadata as ``{dropped: kept}``, as
    ``safetensors.torch.save_model``. ``load_model`` ties them again."""
    state_dict = dict(model.state_dict())
    for kept, dropped in duplicate_names(state_dict).items():
        for name in dropped:
            metadata = {} if metadata is None else metadata
            metadata.setdefault(name, kept)  # the user's own entries win
            del state_dict[name]
    if force_contiguous:
        state_dict = {k: v.contiguous() for k, v in state_dict.items()}
    save_file(state_dict, filename, metadata=metadata)


def load_model(model: Any, filename: str | os.PathLike[str], strict: bool = True,
               device: Any = "cpu") -> tuple[list[str], list[str]]:
    """Load a safetensors file into ``model`` as ``safetensors.torch.load_model``: names the
    file lacks because they share memory with one it has (``save_model``'s drops) are not
    missing. Returns ``(missing, unexpected)``; ``strict`` raises PyTorch's RuntimeError."""
    state_dict = load_file(filename, device=device)
    dropped = duplicate_names(model.state_dict(), preferred_names=state_dict.keys())
    missing_keys, unexpected = model.load_state_dict(state_dict, strict=False)
    missing = set(missing_keys)
    unexpected = list(unexpected)
    for names in dropped.values():
        for name in names:
            if name in missing:
                missing.remove(name)
            else:
                unexpected.append(name)
    if strict and (missing or unexpected):
        error = f"Error(s) in loading state_dict for {type(model).__name__}:"
        if missing:
            error += "\n    Missing key(s) in state_dict: " + ", ".join(
                f'"{k}"' for k in sorted(missing))
        if unexpected:
            error += "\n    Unexpected key(s) in state_dict: " + ", ".join(
                f'"{k}"' for k in sorted(unexpected))
        raise RuntimeError(error)
    return sorted(missing), unexpected


_MAX_DEPTH = 200


def _decode(node: Any, tensor: Callable[[str, str], Tensor], depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise _bad("field 'structure' is nested too deeply")
    if not isinstance(node, dict) or len(node) not in (1, 2, 3, 4):
        raise _bad(f"malformed node {_short(node)} in field 'structure'")
    if "T" in node:
        name, dev = node["T"], node.get("dev", "cpu")
        if not isinstance(name, str) or not isinstance(dev, str) or not all(
                isinstance(node.get(flag, False), bool) for flag in ("p", "rg")) or not set(
                node) <= {"T", "dev", "p", "rg"}:
            raise _bad(f"malformed tensor node {_short(node)} in field 'structure'")
        t = tensor(name, dev)
        if node.get("p"):
            try:
                from arraygrad.nn import Parameter

                return Parameter(t, requires_grad=bool(node.get("rg")))
            except ImportError:
                pass
        if node.get("rg"):
            t = t.detach().requires_grad_(True)
        return t
    if len(node) != 1:
        raise _bad(f"malformed node {_short(node)} in field 'structure'")
    ((tag, value),) = node.items()
    if tag == "n":
        return None
    if tag == "b" and isinstance(value, bool):
        return value
    if tag == "i" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if tag == "f" and isinstance(value, str):
        try:
            return float.fromhex(value)
        except ValueError:
            raise _bad(f"invalid float {value!r}") from None
    if tag == "s" and isinstance(value, str):
        return value
    if tag in ("L", "U") and isinstance(value, list):
        items = [_decode(v, tensor, depth + 1) for v in value]
        return items if tag == "L" else tuple(items)
    if tag in ("D", "O") and isinstance(value, list):
        out = OrderedDict() if tag == "O" else {}
        for pair in value:
            if not isinstance(pair, list) or len(pair) != 2:
                raise _bad("malformed dict item in structure")
            key = _decode(pair[0], tensor, depth + 1)
            try:
                out[key] = _decode(pair[1], tensor, depth + 1)
            except TypeError:
                raise _bad("unhashable dict key in structure") from None
        return out
    raise _bad(f"malformed node {_short(node)} in field 'structure'")
