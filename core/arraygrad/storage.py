"""Storages, as ``torch.storage``: the memory a tensor's elements live in.

arraygrad's tensors hold arrays of a backend; a storage is the allocation such an array
lies in, as the backend reports it (``Backend.memory``): its address, size, whether it is
shared between processes. Views of one tensor share a storage (NumPy's views share memory
exactly where PyTorch's do), so ``a.untyped_storage().data_ptr() ==
b.untyped_storage().data_ptr()`` asks whether ``a`` and ``b`` share memory, as in PyTorch.
The same allocation gives the same storage object while one is alive.

A storage can also be made on its own (``UntypedStorage(n)``, ``FloatStorage([1, 2])``), and
``Tensor.set_`` puts a tensor onto a storage whose elements are of its dtype. Storages of
the dtypes arraygrad lacks (``ComplexHalfStorage``, quantized ones) do not exist.
"""

from __future__ import annotations

import warnings
import weakref
from typing import TYPE_CHECKING, Any, Iterator

from arraygrad import dtypes as _dt
from arraygrad.device import DeviceLike

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend, Memory
    from arraygrad.tensor import Tensor

__all__ = ["UntypedStorage", "TypedStorage", "FloatStorage", "DoubleStorage", "HalfStorage",
           "BFloat16Storage", "ByteStorage", "CharStorage", "ShortStorage", "IntStorage",
           "LongStorage", "BoolStorage", "ComplexFloatStorage", "ComplexDoubleStorage",
           "LEGACY_STORAGES", "is_storage",
           "storage_of", "memory_of", "TYPED_STORAGE_WARNING"]

NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"

TYPED_STORAGE_WARNING = (
    "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
    "the only storage class. This should only matter to you if you are using storages "
    "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
    "tensor.storage()")

def memory_of(t: Tensor) -> Memory:
    """Where ``t``'s elements are (RuntimeError, PyTorch's, when its backend cannot say)."""
    found = t._backend.memory(t._data)
    if found is None:
        raise RuntimeError(NO_STORAGE)
    return found


# one storage object per live allocation: a storage keeps its allocation alive, so its
# address cannot be reused while the object exists
_live: weakref.WeakValueDictionary[tuple[Any, ...], UntypedStorage] = \
    weakref.WeakValueDictionary()


def storage_of(t: Tensor) -> UntypedStorage:
    """The untyped storage ``t``'s elements are in (``Tensor.untyped_storage()``)."""
    found = memory_of(t)
    storage = _live.get((str(t.device), found.base_ptr, found.nbytes))
    return storage if storage is not None else _known(UntypedStorage._over(found.owner,
                                                                            t._backend))


def _known(storage: UntypedStorage) -> UntypedStorage:
    """``storage``, now the object its allocation gives (when the backend has addresses)."""
    found = storage._backend.memory(storage._owner)
    if found is not None:
        _live[(str(storage.device), found.base_ptr, found.nbytes)] = storage
    return storage


def _backend_of(device: DeviceLike | None) -> Backend:
    from arraygrad.creation import backend_of

    return backend_of(device)


class UntypedStorage:
    """Bytes of memory holding tensors' elements, as ``torch.UntypedStorage``.

    ``UntypedStorage(n)`` allocates ``n`` uninitialised bytes, ``UntypedStorage([...])``
    holds the given byte values; ``tensor.untyped_storage()`` is the memory of a tensor.
    """

    __slots__ = ("_owner", "_backend", "__weakref__")
    _owner: Any  # the array spanning the allocation
    _backend: Backend

    def __init__(self, *args: Any, device: DeviceLike | None = None) -> None:
        backend = _backend_of(device)
        xp = backend.xp
        if len(args) > 1:
            raise TypeError(f"UntypedStorage(): takes at most one positional argument "
                            f"({len(args)} given)")
        if not args:
            owner = xp.empty((0,), dtype=xp.uint8)
        elif isinstance(args[0], int) and not isinstance(args[0], bool):
            if args[0] < 0:
                raise RuntimeError(f"UntypedStorage(): size must be non-negative, got {args[0]}")
            owner = xp.empty((args[0],), dtype=xp.uint8)
        else:
            values = list(args[0])
            if not all(isinstance(v, int) and 0 <= v < 256 for v in values):
                raise RuntimeError("UntypedStorage(): a sequence must hold byte values "
                                   "(integers in [0, 256))")
            owner = backend.from_host(values, xp.uint8)
        self._owner = owner
        self._backend = backend
        _known(self)

    @classmethod
    def _over(cls, owner: Any, backend: Backend) -> UntypedStorage:
        """The storage of an existing allocation (``owner`` spans it)."""
        storage = object.__new__(cls)
        storage._owner = owner
        storage._backend = backend
        return storage

    def _memory(self) -> Memory:
        found = self._backend.memory(self._owner)
        if found is None:
            raise RuntimeError(NO_STORAGE)
        return found

    # -- what programs ask of a storage --------------------------------------------------
    def data_ptr(self) -> int:
        """The address of the storage's first byte (0 for an empty storage, as in PyTorch)."""
        found = self._memory()
        return found.base_ptr if found.nbytes else 0

    def nbytes(self) -> int:
        """The storage's size in bytes."""
        return self._memory().nbytes

    def size(self) -> int:
        """The number of bytes (an untyped storage's elements are bytes)."""
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        """1: an untyped storage is counted in bytes."""
        return 1

    @property
    def device(self) -> Any:
        """The device the memory is on."""
        return self._backend.device

    @property
    def is_cuda(self) -> bool:
        """Whether the memory is on a CUDA device."""
        return self._backend.device_type == "cuda"

    @property
    def is_sparse(self) -> bool:
        """False: storages of sparse tensors do not exist here."""
        return False

    def get_device(self) -> int:
        """The CUDA device index, or -1 for the CPU."""
        return -1 if self._backend.device_type == "cpu" else int(self.device.index or 0)

    def is_shared(self) -> bool:
        """Whether the memory is shared between processes (CUDA memory always is, as in
        PyTorch)."""
        return self.is_cuda or self._memory().shared

    def is_pinned(self, device: Any = "cuda") -> bool:
        """False: arraygrad allocates no page-locked host memory."""
        return False

    def type(self) -> str:
        """The storage's type name, as PyTorch prints it."""
        return "torch.storage.UntypedStorage"

    def untyped(self) -> UntypedStorage:
        """The storage itself."""
        return self

    def _bytes(self) -> bytes:
        # the allocation's bytes in memory order ("A": the owner's own order)
        return bytes(self._backend.to_host(self._owner).tobytes(order="A"))

    def tolist(self) -> list[Any]:
        """The byte values."""
        return list(self._bytes())

    def __getitem__(self, index: int) -> Any:
        if not isinstance(index, int):
            raise TypeError(f"can't index a {self.type()} with {type(index).__name__}")
        values = self.tolist()
        return values[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.tolist())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, UntypedStorage) or type(other) is not type(self):
            return NotImplemented
        return (str(self.device) == str(other.device) and
                self._memory()[1:3] == other._memory()[1:3])

    def __hash__(self) -> int:
        return hash((str(self.device),) + tuple(self._memory()[1:3]))

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError("arraygrad storages are not picklable; use arraygrad.save")

    def __repr__(self) -> str:
        return f"[arraygrad.storage.UntypedStorage(device={self.device}) of size {self.size()}]"


class TypedStorage:
    """A storage read as elements of one dtype, as ``torch.TypedStorage`` (deprecated in
    PyTorch in favour of ``UntypedStorage``; ``tensor.storage()`` warns as PyTorch does).

    ``TypedStorage(n, dtype=...)`` allocates ``n`` elements, ``TypedStorage([...],
    dtype=...)`` holds the values, ``TypedStorage(wrap_storage=untyped, dtype=...)`` reads
    an untyped storage as ``dtype``."""

    __slots__ = ("_untyped_storage", "dtype")
    _untyped_storage: UntypedStorage
    dtype: _dt.dtype

    def __init__(self, *args: Any, dtype: _dt.dtype | None = None,
                 device: DeviceLike | None = None, wrap_storage: UntypedStorage | None = None,
                 _internal: bool = False) -> None:
        d = self._fixed_dtype() or dtype or _dt.get_default_dtype()
        if not isinstance(d, _dt.dtype):
            raise TypeError(f"TypedStorage(): argument 'dtype' must be torch.dtype, not "
                            f"{type(d).__name__}")
        if not _internal:
            warnings.warn(TYPED_STORAGE_WARNING, UserWarning, stacklevel=2)
        if wrap_storage is not None:
            if args or device is not None:
                raise RuntimeError("TypedStorage(): wrap_storage= takes no other arguments "
                                   "than dtype=")
            if not isinstance(wrap_storage, UntypedStorage):
                raise TypeError(f"TypedStorage(): argument 'wrap_storage' must be "
                                f"UntypedStorage, not {type(wrap_storage).__name__}")
            self._untyped_storage, self.dtype = wrap_storage, d
            return
        backend = _backend_of(device)
        native = backend.native_dtype(d)
        if len(args) > 1:
            raise TypeError(f"TypedStorage(): takes at most one positional argument "
                            f"({len(args)} given)")
        if not args:
            owner = backend.xp.empty((0,), dtype=native)
        elif isinstance(args[0], int) and not isinstance(args[0], bool):
            if args[0] < 0:
                raise RuntimeError(f"TypedStorage(): size must be non-negative, got {args[0]}")
            owner = backend.xp.empty((args[0],), dtype=native)
        else:
            owner = backend.from_host(list(args[0]), native)
        self._untyped_storage = _known(UntypedStorage._over(owner, backend))
        self.dtype = d

    @classmethod
    def _fixed_dtype(cls) -> _dt.dtype | None:
        return None  # a legacy class (``FloatStorage``) has its own

    @classmethod
    def from_buffer(cls, buffer: Any, byte_order: str = "native", count: int = -1,
                    offset: int = 0, *, dtype: _dt.dtype | None = None,
                    device: DeviceLike | None = None) -> TypedStorage:
        """A storage holding a copy of ``buffer``'s bytes read as elements of the class's dtype
        (``ByteStorage.from_buffer(image_bytes)``): ``count`` elements (all when -1) from
        byte ``offset``, in ``byte_order`` ``"native"``, ``"little"`` or ``"big"``."""
        import sys

        from arraygrad.creation_memory import frombuffer

        d = cls._fixed_dtype() or dtype
        if d is None:
            raise RuntimeError("from_buffer: must specify a dtype")
        if byte_order not in ("native", "little", "big"):
            raise ValueError(f"Invalid byte_order '{byte_order}' (expected 'big', 'little', or "
                             "'native')")
        data = bytes(memoryview(buffer).cast("B"))[offset:]
        size = d.itemsize
        if count >= 0:
            data = data[:count * size]
        if len(data) % size:
            raise ValueError(f"buffer size ({len(data)}) must be a multiple of element size "
                             f"({size})")
        if byte_order != "native" and byte_order != sys.byteorder and size > 1:
            swapped = bytearray(len(data))  # each element's bytes reversed
            for i in range(size):
                swapped[i::size] = data[size - 1 - i::size]
            data = bytes(swapped)
        if not data:
            return TypedStorage(0, dtype=d, device=device, _internal=True)
        tensor = frombuffer(bytearray(data), dtype=d)
        if device is not None:
            tensor = tensor.to(device)
        return cls._of(tensor.untyped_storage(), d)

    @classmethod
    def _of(cls, untyped: UntypedStorage, dtype: _dt.dtype) -> TypedStorage:
        """``untyped`` read as ``dtype`` elements, without PyTorch's deprecation warning (the
        caller warns where PyTorch does)."""
        return TypedStorage(wrap_storage=untyped, dtype=dtype, _internal=True)

    def data_ptr(self) -> int:
        """The address of the storage's first byte."""
        return self._untyped_storage.data_ptr()

    def nbytes(self) -> int:
        """The storage's size in bytes."""
        return self._untyped_storage.nbytes()

    def size(self) -> int:
        """The number of ``dtype`` elements the storage holds."""
        return self.nbytes() // self.dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        """Bytes per element."""
        return self.dtype.itemsize

    @property
    def device(self) -> Any:
        """The device the memory is on."""
        return self._untyped_storage.device

    @property
    def is_cuda(self) -> bool:
        """Whether the memory is on a CUDA device."""
        return self._untyped_storage.is_cuda

    @property
    def is_sparse(self) -> bool:
        """False: storages of sparse tensors do not exist here."""
        return False

    def get_device(self) -> int:
        """The CUDA device index, or -1 for the CPU."""
        return self._untyped_storage.get_device()

    def is_shared(self) -> bool:
        """Whether the memory is shared between processes."""
        return self._untyped_storage.is_shared()

    def is_pinned(self, device: Any = "cuda") -> bool:
        """False: arraygrad allocates no page-locked host memory."""
        return False

    def untyped(self) -> UntypedStorage:
        """The untyped storage underneath."""
        return self._untyped_storage

    def type(self) -> str:
        """The legacy type name (``torch.FloatStorage``), as PyTorch prints it."""
        legacy = LEGACY_STORAGES.get(self.dtype)
        name = legacy.__name__ if legacy is not None else "TypedStorage"
        return f"torch.{'cuda.' if self.is_cuda else ''}{name}"

    def tolist(self) -> list[Any]:
        """The element values."""
        raw = self._untyped_storage._bytes()
        n = len(raw) // self.dtype.itemsize
        return _dt.unpack(raw, self.dtype, n, "=")

    def __getitem__(self, index: int) -> Any:
        if not isinstance(index, int):
            raise TypeError(f"can't index a {self.type()} with {type(index).__name__}")
        return self.tolist()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self.tolist())

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError("arraygrad storages are not picklable; use arraygrad.save")

    def __repr__(self) -> str:
        return (f"[arraygrad.storage.TypedStorage(dtype={self.dtype!r}, device={self.device}) "
                f"of size {self.size()}]")


class _LegacyStorageType(type):
    """The metaclass of ``FloatStorage`` & co.: a CPU ``TypedStorage`` of the class's dtype is
    an instance, as in PyTorch, and ``FloatStorage.dtype`` is the class's dtype."""

    _legacy_dtype: _dt.dtype

    @property
    def dtype(cls) -> _dt.dtype:
        """The dtype of the class's storages."""
        return cls._legacy_dtype

    def __instancecheck__(cls, instance: Any) -> bool:
        if type(instance) is TypedStorage:
            return instance.dtype is cls._legacy_dtype and instance.device.type == "cpu"
        return type.__instancecheck__(cls, instance)


def _legacy(name: str, dtype: _dt.dtype) -> type[TypedStorage]:
    doc = (f"Legacy CPU storage of {dtype.name} elements, as ``torch.{name}``: "
           f"``{name}(n)`` allocates, ``{name}([...])`` holds the values.")

    def fixed(cls: Any) -> _dt.dtype:
        return dtype

    return _LegacyStorageType(name, (TypedStorage,), {  # type: ignore[return-value]
        "__doc__": doc, "__module__": "arraygrad", "__slots__": (), "_legacy_dtype": dtype,
        "_fixed_dtype": classmethod(fixed)})


FloatStorage = _legacy("FloatStorage", _dt.float32)
DoubleStorage = _legacy("DoubleStorage", _dt.float64)
HalfStorage = _legacy("HalfStorage", _dt.float16)
IntStorage = _legacy("IntStorage", _dt.int32)
LongStorage = _legacy("LongStorage", _dt.int64)
BoolStorage = _legacy("BoolStorage", _dt.bool)
BFloat16Storage = _legacy("BFloat16Storage", _dt.bfloat16)
ByteStorage = _legacy("ByteStorage", _dt.uint8)
CharStorage = _legacy("CharStorage", _dt.int8)
ShortStorage = _legacy("ShortStorage", _dt.int16)
ComplexFloatStorage = _legacy("ComplexFloatStorage", _dt.complex64)
ComplexDoubleStorage = _legacy("ComplexDoubleStorage", _dt.complex128)

LEGACY_STORAGES: dict[_dt.dtype, type[TypedStorage]] = {
    cls._fixed_dtype(): cls  # type: ignore[misc]
    for cls in (FloatStorage, DoubleStorage, HalfStorage, BFloat16Storage, ByteStorage,
                CharStorage, ShortStorage, IntStorage, LongStorage, BoolStorage,
                ComplexFloatStorage, ComplexDoubleStorage)}


def is_storage(obj: Any) -> bool:
    """Whether ``obj`` is a storage (``torch.is_storage``)."""
    return isinstance(obj, (UntypedStorage, TypedStorage))
