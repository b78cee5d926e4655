"""``torch.serialization``'s settings and registries: where storages are tagged and restored
(``register_package``, ``location_tag``, ``default_restore_location``), ``skip_data``, the
CRC-32 and mmap options, and the small helpers and constants PyTorch's module exposes.
"""

from __future__ import annotations

import contextlib
import inspect
import mmap as _mmap
import shutil
import sys
import tempfile
import threading
import warnings
from typing import Any, Callable, Iterator


MAGIC_NUMBER = 0x1950A86A20F9469CFC6C  # PyTorch's legacy-format magic number
PROTOCOL_VERSION = 1001
STORAGE_KEY_SEPARATOR = ","
IS_WINDOWS = sys.platform == "win32"
MAP_SHARED = getattr(_mmap, "MAP_SHARED", 1)
MAP_PRIVATE = getattr(_mmap, "MAP_PRIVATE", 2)
# sizes PyTorch's legacy (pre-1.6) format records; its own module gives these same numbers
SHORT_SIZE, INT_SIZE, LONG_SIZE = 2, 4, 4


class SourceChangeWarning(Warning):
    """Warned when a pickled module's class source differs from the saved one (PyTorch's
    legacy format recorded it; arraygrad's loader never does, so never warns it)."""


class _Local(threading.local):
    skip_data = False
    materialize_fake_tensors = False


_local = _Local()
_settings = {"compute_crc32": True, "mmap_flags": MAP_PRIVATE}


class skip_data:
    """Context manager: inside it ``save`` writes every storage's bytes as zeros (space to fill
    in later) and ``load`` gives tensors of zeros instead of reading the data.

    ``materialize_fake_tensors`` is accepted for PyTorch's signature; arraygrad has no fake
    tensors, so it changes nothing.
    """

    def __init__(self, materialize_fake_tensors: bool = False) -> None:
        self.materialize_fake_tensors = materialize_fake_tensors

    def __enter__(self) -> None:
        self._old = (_local.skip_data, _local.materialize_fake_tensors)
        _local.skip_data = True
        _local.materialize_fake_tensors = self.materialize_fake_tensors

    def __exit__(self, *exc: object) -> None:
        _local.skip_data, _local.materialize_fake_tensors = self._old


def skipping_data() -> bool:
    """Whether a ``skip_data`` block is open on this thread."""
    return _local.skip_data


def get_crc32_options() -> bool:
    """Whether ``save`` computes and writes the CRC-32 of each record (default True)."""
    return bool(_settings["compute_crc32"])


def set_crc32_options(compute_crc32: bool) -> None:
    """Set whether ``save`` computes each record's CRC-32 (False writes 0: ``load`` still reads
    the file, a zip tool may complain)."""
    _settings["compute_crc32"] = bool(compute_crc32)


def get_default_mmap_options() -> int | None:
    """The mmap flags ``load(mmap=True)`` uses: ``mmap.MAP_PRIVATE``."""
    return int(_settings["mmap_flags"])


class set_default_mmap_options:
    """Function or context manager setting the flags of ``load(mmap=True)``.

    Only ``mmap.MAP_PRIVATE`` is accepted: arraygrad's loader copies each record it reads, so
    ``mmap.MAP_SHARED`` (tensors writing through to the file) raises ValueError.
    """

    def __init__(self, flags: int) -> None:
        if flags != MAP_PRIVATE and flags != MAP_SHARED:
            raise ValueError("Invalid argument in function set_default_mmap_options, "
                             f"expected mmap.MAP_PRIVATE or mmap.MAP_SHARED, but got {flags}")
        if flags == MAP_SHARED:
            raise ValueError("set_default_mmap_options: mmap.MAP_SHARED is not supported by "
                             "arraygrad: load copies the records it reads, so tensors cannot "
                             "write through to the file")
        self.prev = _settings["mmap_flags"]
        _settings["mmap_flags"] = flags

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _settings["mmap_flags"] = self.prev


# -- where storages go ------------------------------------------------------------------------

Tagger = Callable[[Any], "str | None"]
Deserializer = Callable[[Any, str], Any]
_package_registry: list[tuple[int, Tagger, Deserializer]] = []


def register_package(priority: int, tagger: Tagger, deserializer: Deserializer) -> None:
    """Register a tagger (storage -> location string or None, used by ``save``) and a
    deserializer (``(storage, location)`` -> storage or None, used by ``load`` without a
    ``map_location``); lower ``priority`` values are tried first."""
    _package_registry.append((priority, tagger, deserializer))
    _package_registry.sort(key=lambda entry: entry[0])


def location_tag(storage: Any) -> str:
    """The location string ``save`` records for ``storage``: the first registered tagger's."""
    for _, tagger, _ in _package_registry:
        location = tagger(storage)
        if location:
            return location
    raise RuntimeError("don't know how to determine data location of " + _typename(storage))


def default_restore_location(storage: Any, location: str) -> Any:
    """``storage`` moved to ``location`` by the first registered deserializer that returns a
    storage (``load``'s placement when no ``map_location`` is given)."""
    for _, _, fn in _package_registry:
        result = fn(storage, location)
        if result is not None:
            return result
    raise RuntimeError("don't know how to restore data location of " + _typename(storage)
                       + " (tagged with " + location + ")")


def _typename(obj: Any) -> str:
    cls = type(obj)
    return f"{cls.__module__}.{cls.__qualname__}"


def _cpu_tag(storage: Any) -> str | None:
    return "cpu" if storage.device.type == "cpu" else None


def _device_tag(storage: Any) -> str | None:
    dev = storage.device
    return f"{dev.type}:{dev.index or 0}"


def _to_location(storage: Any, location: str) -> Any:
    return storage.to(location)


register_package(10, _cpu_tag, _to_location)
register_package(20, _device_tag, _to_location)


def validate_cuda_device(location: Any) -> int:
    """The CUDA device index ``location`` names, checked against the CUDA devices here
    (RuntimeError without one, as ``torch.serialization.validate_cuda_device``)."""
    from arraygrad import cuda
    from arraygrad.device import as_device

    dev = as_device(location)
    if not cuda.is_available():
        raise RuntimeError("Attempting to deserialize object on a CUDA device but "
                           "torch.cuda.is_available() is False. If you are running on a "
                           "CPU-only machine, please use torch.load with "
                           "map_location=torch.device('cpu') to map your storages to the CPU.")
    index = dev.index or 0
    count = cuda.device_count()
    if index >= count:
        raise RuntimeError(f"Attempting to deserialize object on CUDA device {index} but "
                           f"torch.cuda.device_count() is {count}. Please use torch.load with "
                           "map_location to map your storages to an existing device.")
    return index


def normalize_storage_type(storage_type: type) -> Any:
    """arraygrad's storage type of the same name as ``storage_type``."""
    from arraygrad.serialization._storage import STORAGE_TYPES

    return STORAGE_TYPES[storage_type.__name__]


def storage_to_tensor_type(storage: Any) -> Any:
    """The legacy tensor type of a storage's dtype (``FloatStorage`` -> ``FloatTensor``)."""
    import arraygrad
    from arraygrad.serialization._storage import STORAGE_NAME

    dtype = storage.dtype
    if dtype is None:
        raise TypeError(f"storage_to_tensor_type: {storage!r} holds a dtype arraygrad lacks")
    return getattr(arraygrad, STORAGE_NAME[dtype].replace("Storage", "Tensor"))


def check_module_version_greater_or_equal(module: Any, req_version_tuple: tuple[Any, ...],
                                          error_if_malformed: bool = True) -> bool:
    """Whether ``module.__version__`` is at least ``req_version_tuple`` (compared field by
    field, each cast to the required field's type); a malformed version raises RuntimeError,
    or warns and counts as met when ``error_if_malformed`` is False."""
    try:
        fields = module.__version__.split(".")
        module_version = tuple(type(req)(fields[i]) for i, req in enumerate(req_version_tuple))
        return bool(module_version >= req_version_tuple)
    except Exception as e:
        message = (f"'{module.__name__}' module version string is malformed "
                   f"'{module.__version__}' and cannot be compared with tuple "
                   f"{str(req_version_tuple)}")
        if error_if_malformed:
            raise RuntimeError(message) from e
        warnings.warn(message + ", but continuing assuming that requirement is met",
                      stacklevel=2)
        return True


def get_source_lines_and_file(obj: Any, error_msg: str | None = None,
                              ) -> tuple[list[str], int, str | None]:
    """``(source lines, first line number, file name)`` of ``obj`` (OSError when its source
    cannot be read)."""
    filename = None
    try:
        filename = inspect.getsourcefile(obj)
        sourcelines, file_lineno = inspect.getsourcelines(obj)
    except OSError as e:
        msg = f"Can't get source for {obj}. make sure original .py files are available."
        if error_msg:
            msg += "\n" + error_msg
        raise OSError(msg) from e
    return sourcelines, file_lineno, filename


@contextlib.contextmanager
def mkdtemp() -> Iterator[str]:
    """A temporary directory for the block, removed with its contents afterwards."""
    path = tempfile.mkdtemp()
    try:
        yield path
    finally:
        shutil.rmtree(path)

