"""Storages as PyTorch's checkpoints name them, and the bytes <-> array conversions.

A PyTorch checkpoint refers to each storage with a persistent id
``('storage', torch.FloatStorage, key, location, numel)``; its bytes are the
zip record ``data/<key>``. arraygrad has no storage objects of its own, so a
loaded storage is a :class:`Storage`: the raw little-endian bytes, the element
dtype and the device its tensors will live on. Tensors are built from it by the
rebuild functions (``_rebuild.py``).
"""

from __future__ import annotations

import array
import sys
from typing import TYPE_CHECKING, Any

from arraygrad import dtypes as _dt
from arraygrad.device import as_device
from arraygrad.tensor import Tensor, wrap

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.device import DeviceLike

__all__ = ["StorageType", "Storage", "STORAGE_TYPES", "STORAGE_NAME", "TORCH_DTYPES",
           "UNTYPED_DTYPES",
           "little_endian_bytes", "array_from_bytes"]

# PyTorch's legacy storage class names (what ``_pickle_storage_type`` writes) for each dtype.
STORAGE_NAME = {_dt.float16: "HalfStorage", _dt.bfloat16: "BFloat16Storage",
                _dt.float32: "FloatStorage", _dt.float64: "DoubleStorage",
                _dt.uint8: "ByteStorage", _dt.int8: "CharStorage", _dt.int16: "ShortStorage",
                _dt.int32: "IntStorage", _dt.int64: "LongStorage", _dt.bool: "BoolStorage",
                _dt.complex64: "ComplexFloatStorage", _dt.complex128: "ComplexDoubleStorage"}

# dtypes without a legacy storage class: PyTorch writes their bytes as a
# ``torch.storage.UntypedStorage`` (numel in bytes) rebuilt by ``_rebuild_tensor_v3``
UNTYPED_DTYPES = (_dt.uint16, _dt.uint32, _dt.uint64)

# Storage classes PyTorch writes for dtypes arraygrad does not have: recognised (so the error
# names the dtype), never loadable.
_FOREIGN_STORAGES = {"QUInt8Storage": "quint8", "QInt8Storage": "qint8",
                     "QInt32Storage": "qint32", "QUInt4x2Storage": "quint4x2",
                     "QUInt2x4Storage": "quint2x4"}

# ``torch.<name>`` dtype globals -> arraygrad dtypes (a pickled dtype is GLOBAL torch float32).
TORCH_DTYPES: dict[str, _dt.dtype] = {
    **{d.name: d for d in _dt.ALL_DTYPES}, "half": _dt.float16, "float": _dt.float32,
    "double": _dt.float64, "short": _dt.int16, "int": _dt.int32, "long": _dt.int64}


class StorageType:
    """What a checkpoint's ``torch.FloatStorage`` (etc.) global resolves to: the storage's dtype.

    ``dtype`` is None for storages of a dtype arraygrad does not have (``dtype_name`` says which).
    """

    __slots__ = ("name", "dtype", "dtype_name")

    def __init__(self, name: str, dtype: _dt.dtype | None, dtype_name: str) -> None:
        self.name = name
        self.dtype = dtype
        self.dtype_name = dtype_name

    @property
    def itemsize(self) -> int:
        """Bytes per element (1 for the byte storages of dtypes arraygrad lacks)."""
        if self.dtype is not None:
            return self.dtype.itemsize
        return {"qint32": 4}.get(self.dtype_name, 1)

    def __repr__(self) -> str:
        return f"torch.{self.name}"


STORAGE_TYPES: dict[str, StorageType] = {
    **{name: StorageType(name, d, d.name) for d, name in STORAGE_NAME.items()},
    **{name: StorageType(name, None, dn) for name, dn in _FOREIGN_STORAGES.items()},
    "UntypedStorage": StorageType("UntypedStorage", _dt.uint8, "uint8")}  # bytes


class Storage:
    """A deserialized storage: ``nbytes()`` raw little-endian bytes of ``dtype`` elements.

    This is what a callable ``map_location(storage, location)`` receives; it may
    return ``storage.cpu()``, ``storage.cuda(i)`` or ``storage.to(device)`` (a storage
    bound for that device) or None to keep the default placement.
    """

    __slots__ = ("_data", "dtype", "device", "_roots", "_views")

    def __init__(self, data: bytes | memoryview, dtype: _dt.dtype | None,
                 device: DeviceLike = "cpu") -> None:
        self._data = data
        self.dtype = dtype  # None: bytes of a dtype arraygrad has not (only v3 can retype them)
        self.device = as_device(device)
        self._roots: dict[Any, Tensor] = {}  # backend -> the whole storage as a 1-d tensor
        self._views: dict[Any, Tensor] = {}  # (backend, offset, size, stride) -> a loaded tensor

    def nbytes(self) -> int:
        """The storage's size in bytes."""
        return len(self._data)

    def size(self) -> int:
        """The number of elements."""
        return len(self._data) // (self.dtype.itemsize if self.dtype is not None else 1)

    __len__ = size

    def to(self, device: DeviceLike) -> Storage:
        """The same bytes, bound for ``device``."""
        return Storage(self._data, self.dtype, device)

    def cpu(self) -> Storage:
        """The same bytes, bound for the CPU."""
        return self.to("cpu")

    def cuda(self, device: DeviceLike | None = None) -> Storage:
        """The same bytes, bound for a CUDA device (the current one, index 0, by default)."""
        if device is None:
            return self.to("cuda:0")
        return self.to(as_device(device))  # an int is a CUDA index, as in PyTorch

    def retyped(self, dtype: _dt.dtype) -> Storage:
        """The same bytes read as ``dtype`` elements (``_rebuild_tensor_v3``'s untyped storages)."""
        return Storage(self._data, dtype, self.device)

    def __repr__(self) -> str:
        name = self.dtype.name if self.dtype is not None else "bytes"
        return f"arraygrad.serialization.Storage({name}, {self.size()} elements, {self.device})"

    def root(self, backend: Backend) -> Tensor:
        """The whole storage as a 1-d tensor on ``backend`` (made once per backend: the loaded
        tensors of this storage are views of it)."""
        root = self._roots.get(backend)
        if root is None:
            assert self.dtype is not None
            root = self._roots[backend] = wrap(
                array_from_bytes(backend, self._data, self.dtype, (self.size(),)), backend)
        return root


# -- bytes <-> arrays ----------------------------------------------------------------------

# array-module typecodes of each item size, used only to swap byte order
_SWAP_CODES = {2: "H", 4: "I" if array.array("I").itemsize == 4 else "L", 8: "Q"}


def swap_bytes(data: bytes | memoryview, itemsize: int) -> bytes:
    """``data`` with the byte order of each ``itemsize``-byte element reversed."""
    if itemsize == 1:
        return bytes(data)
    arr = array.array(_SWAP_CODES[itemsize])
    arr.frombytes(data)
    arr.byteswap()
    return arr.tobytes()


def little_endian_bytes(backend: Backend, data: Any, itemsize: int) -> bytes:
    """An array's elements as little-endian bytes in row-major order (PyTorch's record layout)."""
    raw: bytes = backend.to_host(data).tobytes()  # row-major whatever the memory layout
    if sys.byteorder == "big":
        raw = swap_bytes(raw, itemsize)
    return raw


def array_from_bytes(backend: Backend, data: bytes | memoryview, dtype: _dt.dtype,
                     shape: tuple[int, ...]) -> Any:
    """An array of ``shape`` on ``backend`` from little-endian bytes of ``dtype`` elements."""
    # the backend contract's from_bytes reads little-endian bytes whatever the host's order
    return backend.from_bytes(bytes(data), backend.native_dtype(dtype), tuple(shape))
