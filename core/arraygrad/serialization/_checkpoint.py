"""``save`` and ``load`` in PyTorch's zip checkpoint format (``torch.save``'s default since 1.6).

Layout of the archive (folder ``<archive>/``, the file's name without extension or
``archive`` for a file object), as PyTorch 2.x writes it::

    data.pkl                 the object, pickled (protocol 2) with tensors as
                             _rebuild_tensor_v2(persistent id ('storage', torch.FloatStorage,
                             key, location, numel), offset, size, stride, requires_grad, hooks)
    .format_version          "1"
    .storage_alignment       "64"
    byteorder                "little"
    data/<key>               each storage's raw little-endian bytes, 64-byte aligned
    version                  "3\\n"
    .data/serialization_id   40 digits identifying this file's contents
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import io
import os
import pickle
import sys
import warnings
from typing import IO, TYPE_CHECKING, Any, Callable, Iterator, Union

from arraygrad._atomic_file import atomic_write
from arraygrad.device import device as _device
from arraygrad.serialization import _rebuild
from arraygrad.serialization._limits import LoadBudget, load_limits
from arraygrad.serialization._rebuild import short_repr
from arraygrad.serialization._storage import STORAGE_TYPES, Storage, StorageType, swap_bytes
from arraygrad.serialization._unpickler import (FullUnpickler, Passthrough, WeightsUnpickler,
                                                UNSAFE_MESSAGE, weights_only_message)
from arraygrad.serialization._zipio import ZipReader, ZipWriter

if TYPE_CHECKING:
    from arraygrad.device import DeviceLike

__all__ = ["save", "load", "FileLike", "MapLocation", "DEFAULT_PROTOCOL", "LoadEndianness",
           "get_default_load_endianness", "set_default_load_endianness"]

FileLike = Union[str, "os.PathLike[str]", IO[bytes]]
"""A path or a binary file object."""

MapLocation = Union["DeviceLike", dict[str, str], Callable[[Storage, str], Any], None]
"""Where loaded tensors go: a device for all, a ``{saved: target}`` dict, or
``fn(storage, location) -> storage | None``."""

DEFAULT_PROTOCOL = 2
"""The pickle protocol ``torch.save`` uses."""


class LoadEndianness(enum.Enum):
    """The byte order assumed for checkpoints with no ``byteorder`` record (PyTorch < 1.11)."""

    NATIVE = 1
    LITTLE = 2
    BIG = 3


_default_load_endianness: LoadEndianness | None = None


def get_default_load_endianness() -> LoadEndianness | None:
    """The byte order assumed for checkpoints with no ``byteorder`` record (None: little)."""
    return _default_load_endianness


def set_default_load_endianness(endianness: LoadEndianness | None) -> None:
    """Set the byte order assumed for checkpoints with no ``byteorder`` record."""
    global _default_load_endianness
    if endianness is not None and not isinstance(endianness, LoadEndianness):
        raise TypeError("Invalid argument type in function set_default_load_endianness")
    _default_load_endianness = endianness


def _is_path(f: Any) -> bool:
    return isinstance(f, (str, os.PathLike))


# -- save -----------------------------------------------------------------------------------

def _serialization_id(records: list[tuple[str, bytes]]) -> bytes:
    digest = hashlib.blake2b(digest_size=16)
    total = 0
    for name, data in records:
        digest.update(name.encode())
        digest.update(data)
        total += len(data)
    raw = digest.digest()
    high = int.from_bytes(raw[:8], "little")
    low = int.from_bytes(raw[8:], "little") ^ total
    return f"{high:020d}{low:020d}".encode()


def save(obj: Any, f: FileLike, pickle_module: Any = pickle,
         pickle_protocol: int = DEFAULT_PROTOCOL, _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Save ``obj`` to ``f`` in PyTorch's zip checkpoint format (``torch.save``).

    ``obj`` may be anything picklable: tensors, state dicts, optimizer states, a
    whole ``nn.Module``. Tensors, parameters, ``Size``, ``device`` and dtypes are
    written under PyTorch's names, so ``torch.load`` reads the file (other
    objects keep their own module paths). A tensor and its views share one
    storage. ``f`` is a path or a binary file object; nothing is written when
    pickling fails.
    """
    if pickle_module is not pickle:
        raise ValueError("arraygrad.save writes with the standard library's pickle module; "
                         f"pickle_module={pickle_module!r} is not supported")
    # protocol 0 writes persistent ids as text, which no loader (PyTorch's included) reads back
    if not isinstance(pickle_protocol, int) or not 1 <= pickle_protocol <= pickle.HIGHEST_PROTOCOL:
        raise ValueError(f"pickle protocol must be 1 to {pickle.HIGHEST_PROTOCOL} (storages are "
                         f"persistent ids, which protocol 0 writes as text), got "
                         f"{pickle_protocol!r}")
    if not _use_new_zipfile_serialization:
        raise NotImplementedError(
            "arraygrad.save writes only the zip checkpoint format; PyTorch's legacy format "
            "(_use_new_zipfile_serialization=False) is not supported")
    from arraygrad.serialization._pickler import dump

    data_pkl, storages = dump(obj, pickle_protocol)  # everything in memory before f is touched
    records: list[tuple[str, bytes]] = [("data.pkl", data_pkl), (".format_version", b"1"),
                                        (".storage_alignment", b"64")]
    if not _disable_byteorder_record:
        records.append(("byteorder", b"little"))
    from arraygrad.serialization._options import skipping_data

    skip = skipping_data()  # skip_data(): the records keep their size, the bytes are zeros
    records += [(f"data/{key}", bytes(len(data)) if skip else data)
                for key, data in sorted(storages)]
    records.append(("version", b"3\n"))
    records.append((".data/serialization_id", _serialization_id(records)))
    if isinstance(f, (str, os.PathLike)):
        archive = os.path.splitext(os.path.basename(os.fspath(f)))[0] or "archive"
        with _opened_for_save(f) as fh:
            _write(fh, archive, records)
    else:
        if not hasattr(f, "write"):
            raise AttributeError(f"arraygrad.save: f must be a path or a binary file object with "
                                 f"write(), got {type(f).__name__}")
        _write(f, "archive", records)


@contextlib.contextmanager
def _opened_for_save(f: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """``atomic_write(f)``: the old file stays whole until the new one is; the errors of a
    path that cannot be written are PyTorch's (``RuntimeError``)."""
    parent = os.path.dirname(os.path.abspath(os.fspath(f)))
    if not os.path.isdir(parent):
        raise RuntimeError(f"Parent directory {parent} does not exist.")
    if os.path.isdir(f):
        raise RuntimeError("open file failed with strerror: Is a directory")
    try:
        opened = atomic_write(f)
        fh = opened.__enter__()
    except OSError as exc:
        raise RuntimeError(f"open file failed with strerror: {exc.strerror}") from exc
    with contextlib.ExitStack() as stack:
        stack.push(opened)
        yield fh


def _write(out: IO[bytes], archive: str, records: list[tuple[str, bytes]]) -> None:
    writer = ZipWriter(out, archive)
    for name, data in records:
        writer.write_record(name, data)
    writer.close()


# -- load -------------------------------------------------------------------------------------

def _restore(map_location: MapLocation) -> Callable[[Storage, str], Storage]:
    """``(cpu storage, location tag) -> storage bound for its device``, as ``torch.load``."""
    if map_location is None:  # the registered deserializers (register_package)
        from arraygrad.serialization._options import default_restore_location

        return default_restore_location
    if isinstance(map_location, dict):
        table = map_location
        return lambda storage, loc: storage.to(table.get(loc, loc))
    if isinstance(map_location, (str, _device, int)):
        dev = str(map_location) if not isinstance(map_location, int) else f"cuda:{map_location}"
        return lambda storage, loc: storage.to(dev)
    if callable(map_location):
        fn = map_location

        def call(storage: Storage, loc: str) -> Storage:
            result = fn(storage, loc)
            if result is None:
                return storage.to(loc)
            if not isinstance(result, Storage):
                raise TypeError("map_location must return None or a storage (storage.cpu(), "
                                f"storage.cuda(i), storage.to(device)), got "
                                f"{type(result).__name__}")
            return result
        return call
    raise TypeError(f"map_location must be None, a device, a string, a dict or a callable, got "
                    f"{type(map_location).__name__}")


def _decode(value: Any) -> Any:
    return value.decode("ascii") if isinstance(value, bytes) else value


class _StorageLoader:
    """``persistent_load`` of one archive: each ``data/<key>`` read once, checked, placed."""

    def __init__(self, reader: ZipReader, restore: Callable[[Storage, str], Storage],
                 big_endian: bool) -> None:
        self._reader = reader
        self._restore = restore
        self._big_endian = big_endian
        self._loaded: dict[str, Storage] = {}

    def __call__(self, pid: Any) -> Storage:
        if not isinstance(pid, tuple) or len(pid) != 5 or _decode(pid[0]) != "storage":
            raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got "
                                         f"{short_repr(pid)}")
        _, stype, key, location, numel = pid
        key, location = _decode(key), _decode(location)
        if not isinstance(stype, StorageType) or stype is not STORAGE_TYPES.get(stype.name):
            raise pickle.UnpicklingError(f"invalid storage type {short_repr(stype)} in a "
                                         "persistent id")
        if not isinstance(key, str) or not isinstance(location, str) or not isinstance(
                numel, int) or isinstance(numel, bool) or numel < 0:
            raise pickle.UnpicklingError(f"invalid storage persistent id {short_repr(pid)}")
        if key in self._loaded:
            return self._loaded[key]
        nbytes = numel * stype.itemsize
        from arraygrad.serialization._options import skipping_data

        if skipping_data():  # skip_data(): tensors of zeros, the data is not read
            if self._reader.record_size(f"data/{key}") != nbytes:
                self._reader.read(f"data/{key}", expected_size=nbytes)  # its size error
            data = bytes(nbytes)
        else:
            data = self._reader.read(f"data/{key}", expected_size=nbytes)
        if self._big_endian and stype.itemsize > 1:
            data = swap_bytes(data, stype.itemsize)
        try:  # the user's map_location and device errors are theirs, not a malformed pickle
            storage = self._restore(Storage(data, stype.dtype, "cpu"), location)
            _rebuild.backend_for_location(storage.device)  # fail here, naming the device
        except Exception as exc:
            raise Passthrough(exc) from None
        self._loaded[key] = storage
        return storage


def _open(f: FileLike) -> tuple[IO[bytes], int, bool]:
    """``(binary file, its size, whether we opened it)``; unseekable streams are read whole."""
    if isinstance(f, (str, os.PathLike)):
        fh = open(f, "rb")
        return fh, os.fstat(fh.fileno()).st_size, True
    if not hasattr(f, "read"):
        raise AttributeError(f"arraygrad.load: f must be a path or a binary file object with "
                             f"read(), got {type(f).__name__}")
    seekable = getattr(f, "seekable", None)
    if seekable is not None and seekable():
        start = f.tell()
        end = f.seek(0, io.SEEK_END)
        f.seek(start)
        return f, end - start, False
    data = f.read()
    return io.BytesIO(data), len(data), False


def load(f: FileLike, map_location: MapLocation = None, pickle_module: Any = None, *,
         weights_only: bool | None = None, mmap: bool | None = None,
         **pickle_load_args: Any) -> Any:
    """Load an object saved by ``arraygrad.save`` or ``torch.save`` (PyTorch's zip format),
    or an arraygrad/safetensors file (recognised by its first bytes).

    ``weights_only`` (the default unless a ``pickle_module`` is given) unpickles
    with a restricted unpickler: tensors, storages, containers, numbers,
    strings, ``OrderedDict``, ``Size``, ``device``, dtypes and what
    :func:`add_safe_globals` allow-lists; anything else raises
    ``pickle.UnpicklingError`` naming the global, and nothing from the file runs.
    ``weights_only=False`` unpickles anything (whole pickled modules), mapping
    ``torch.*`` names to arraygrad's: only for trusted files.

    ``map_location``: a device (``"cpu"``) or string for every tensor, a dict
    ``{"cuda:0": "cpu"}``, or ``fn(storage, location)`` returning a storage or
    None. ``mmap`` is accepted (records are read on demand either way).
    """
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and weights_only:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    if isinstance(map_location, bytes):
        map_location = map_location.decode()
    restore = _restore(map_location)
    if mmap and not _is_path(f):
        raise ValueError("f must be a file path in order to use the mmap argument")
    fh, size, owned = _open(f)
    try:
        start = fh.tell()
        head = fh.read(4)
        fh.seek(start)
        if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
            # (a pickle_module only selects weights_only=False: the unpickler is always
            # arraygrad's, which maps torch's names)
            return _load_zip(fh, size, restore, weights_only, pickle_load_args)
        if mmap:
            raise RuntimeError(
                "mmap can only be used with files saved with `torch.save(..., "
                "_use_new_zipfile_serialization=True)`, please torch.save your checkpoint with "
                "this option in order to use mmap.")
        if head[:1] == b"\x80" and head[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05"):
            raise RuntimeError(
                "arraygrad.load: this is a pickle file, e.g. from torch.save with the legacy "
                "format (_use_new_zipfile_serialization=False, PyTorch < 1.6). arraygrad reads "
                "only PyTorch's zip checkpoints: re-save it with a current torch.save")
        if callable(map_location) and not isinstance(map_location, (str, _device, dict)):
            raise RuntimeError("Loading a safetensors file with a callable map_location is not "
                               "supported. Use a device string or device instead.")
        from arraygrad.serialization.safetensors import load_safetensors

        return load_safetensors(fh, map_location)
    finally:
        if owned:
            fh.close()


def _load_zip(fh: IO[bytes], size: int, restore: Callable[[Storage, str], Storage],
              weights_only: bool, pickle_load_args: dict[str, Any]) -> Any:
    limits = load_limits()
    reader = ZipReader(fh, size, limits.max_deflate_ratio)
    try:
        if reader.has_record("constants.pkl"):  # PyTorch's test for a TorchScript archive
            if weights_only:
                raise RuntimeError("Cannot use ``weights_only=True`` with TorchScript archives "
                                   "passed to ``arraygrad.load``. " + UNSAFE_MESSAGE)
            raise RuntimeError("this is a TorchScript archive (torch.jit.save); arraygrad has "
                               "no TorchScript, so it cannot load it")
        if not reader.has_record("data.pkl"):
            raise RuntimeError(f"PytorchStreamReader failed locating file data.pkl: file not "
                               f"found ({reader.archive}/data.pkl)")
        if reader.has_record("byteorder"):
            byteorder = reader.read("byteorder").decode("ascii", "replace")
            if byteorder not in ("little", "big"):
                raise ValueError("Unknown endianness type: " + byteorder[:40])
        else:  # files from before PyTorch 1.11 have no record
            default = get_default_load_endianness()
            byteorder = {None: "little", LoadEndianness.LITTLE: "little",
                         LoadEndianness.BIG: "big"}.get(default, sys.byteorder)
        data_pkl = reader.read("data.pkl")
        persistent_load = _StorageLoader(reader, restore, byteorder == "big")

        def mapper(loc: str) -> str:
            return str(restore(Storage(b"", None), loc).device)

        outer = _rebuild.device_mapper_or_none()  # a load nested in a full unpickle
        _rebuild.set_device_mapper(mapper)
        outer_budget = _rebuild.set_load_budget(LoadBudget(limits))
        try:
            if weights_only:
                unpickler = WeightsUnpickler(io.BytesIO(data_pkl), persistent_load,
                                             encoding=pickle_load_args.get("encoding", "utf-8"),
                                             limits=limits)
                try:
                    return unpickler.load()
                except Passthrough as exc:
                    raise exc.args[0] from None
                except pickle.UnpicklingError as exc:
                    raise pickle.UnpicklingError(weights_only_message(str(exc))) from None
                except RuntimeError:
                    raise
                except (EOFError, KeyError, IndexError, ValueError, TypeError, AttributeError,
                        OverflowError, UnicodeDecodeError, RecursionError) as exc:
                    # a malformed pickle trips the unpickler's own machinery
                    raise pickle.UnpicklingError(weights_only_message(
                        f"malformed data.pkl ({type(exc).__name__}: {exc})")) from None
            kwargs = dict(pickle_load_args)
            kwargs.setdefault("encoding", "utf-8")
            try:
                return FullUnpickler(io.BytesIO(data_pkl), persistent_load, **kwargs).load()
            except Passthrough as exc:
                raise exc.args[0] from None
        finally:
            _rebuild.set_device_mapper(outer)
            _rebuild.set_load_budget(outer_budget)
    finally:
        reader.close()
