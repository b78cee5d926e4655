"""The methods of ``Tensor`` about its memory: ``data_ptr``, ``untyped_storage``,
``storage_offset``, ``nbytes``, ``set_``, ``is_set_to``, ``share_memory_``, ``pin_memory``...

Addresses come from the backend (``Backend.memory``): the storage of a tensor is the
allocation its array lies in, so views share one (``arraygrad.storage``), and
``storage_offset()`` is where the tensor starts in it. A backend that gives no addresses
raises PyTorch's RuntimeError for a tensor without storage.
"""

from __future__ import annotations

import mmap
import warnings
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import _state as _grad_state
from arraygrad.ops.views import is_contiguous, strides_of
from arraygrad.storage import (
    LEGACY_STORAGES, TYPED_STORAGE_WARNING, TypedStorage, UntypedStorage, memory_of,
    storage_of,
)
from arraygrad.tensor import Tensor

__all__ = ["METHODS", "PROPERTIES"]

# PyTorch's C++ type names, as its set_ messages spell them
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int32": "int",
              "int64": "long int", "bool": "bool"}


def data_ptr(self: Tensor) -> int:
    """The address of the tensor's first element (0 when its storage is empty)."""
    found = memory_of(self)
    return found.data_ptr if found.nbytes else 0


def untyped_storage(self: Tensor) -> UntypedStorage:
    """The storage the tensor's elements are in (shared by its views)."""
    return storage_of(self)


def storage(self: Tensor) -> TypedStorage:
    """The storage read as this tensor's dtype (PyTorch's deprecated ``TypedStorage``: it
    warns as PyTorch does)."""
    warnings.warn(TYPED_STORAGE_WARNING, UserWarning, stacklevel=2)
    return TypedStorage._of(storage_of(self), self.dtype)


def storage_offset(self: Tensor) -> int:
    """Where the tensor starts in its storage, in elements."""
    found = memory_of(self)
    return (found.data_ptr - found.base_ptr) // self.dtype.itemsize


def storage_type(self: Tensor) -> type:
    """The legacy storage class of the tensor's dtype (``FloatStorage``...)."""
    if self.device.type != "cpu":
        raise RuntimeError(f"storage_type(): arraygrad has legacy storage classes for CPU "
                           f"tensors only, not {self.device}")
    return LEGACY_STORAGES[self.dtype]


def is_set_to(self: Tensor, tensor: Tensor) -> bool:
    """Whether both tensors are the same memory: storage, offset, size and strides."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' must be Tensor, not "
                        f"{type(tensor).__name__}")
    if self.device != tensor.device or tuple(self.shape) != tuple(tensor.shape):
        return False
    mine, theirs = memory_of(self), memory_of(tensor)
    return (mine.base_ptr == theirs.base_ptr and mine.data_ptr == theirs.data_ptr and
            strides_of(self) == strides_of(tensor))


def _check_set(self: Tensor, dtype: _dt.dtype, what: str) -> None:
    if dtype is not self.dtype:
        raise RuntimeError(f"Could not set tensor of type {_CPP_NAMES[dtype.name]} to a "
                           f"{what} of type {_CPP_NAMES[self.dtype.name]}")
    if _grad_state.enabled and self._grad_fn is None and self._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _on_storage(self: Tensor, source: Any, offset: int, size: Any, stride: Any) -> Any:
    """The array over ``source``'s memory that ``set_(source, offset, size, stride)`` gives."""
    untyped = source.untyped() if isinstance(source, TypedStorage) else source
    if isinstance(source, TypedStorage) and source.dtype is not self.dtype:
        raise RuntimeError(f"Expected a Storage of type {_dt.scalar_type_name(self.dtype)} or "
                           f"an UntypedStorage, but got type "
                           f"{_dt.scalar_type_name(source.dtype)} for argument 1 'storage'")
    owner, backend = untyped._owner, untyped._backend
    if backend is not self._backend:
        raise RuntimeError(f"set_(): the storage is on {untyped.device}, the tensor on "
                           f"{self.device}")
    if owner.dtype != self._backend.native_dtype(self.dtype):
        raise RuntimeError(f"set_(): the storage holds elements of another dtype than "
                           f"{self.dtype!r}: arraygrad cannot reinterpret memory as another dtype")
    itemsize = self.dtype.itemsize
    count = untyped.nbytes() // itemsize
    shape = (count - offset,) if size is None else tuple(size)
    strides = tuple(stride) if stride is not None else None
    n = 1
    for s in shape:
        n *= s
    if offset < 0 or offset + n > count:
        raise RuntimeError(f"set_(): sizes {list(shape)} at storage offset {offset} need "
                           f"{(offset + n) * itemsize} bytes, more than the storage's "
                           f"{count * itemsize} (arraygrad does not grow storages)")
    if strides is not None and (len(strides) != len(shape) or not is_contiguous(shape, strides)):
        raise RuntimeError(f"set_(): strides {list(strides)} for sizes {list(shape)} are not "
                           "row-major: arraygrad views a storage only contiguously")
    xp = backend.xp
    data = xp.reshape(xp.reshape(owner, (-1,))[offset:offset + n], shape)
    found = backend.memory(data)
    start = untyped.data_ptr() + offset * itemsize
    if found is None or (n and (found.base_ptr, found.data_ptr) != (untyped.data_ptr(), start)):
        raise RuntimeError("set_(): the backend cannot view the storage's memory in this shape")
    return data


def set_(self: Tensor, source: Any = None, storage_offset: int = 0, size: Any = None,
         stride: Any = None) -> Tensor:
    """Make this tensor another view of memory: empty (no source), the memory of tensor
    ``source``, or ``size`` elements of storage ``source`` from ``storage_offset``."""
    if source is None:
        _check_set(self, self.dtype, "tensor")
        data, backend, strides, like = (self._backend.xp.empty(
            (0,), dtype=self._backend.native_dtype(self.dtype)), self._backend, None, None)
    elif isinstance(source, Tensor):
        if storage_offset or size is not None or stride is not None:
            raise TypeError("set_(): a Tensor source takes no storage_offset, size or stride")
        _check_set(self, source.dtype, "tensor")
        if source._backend is not self._backend:
            raise RuntimeError(f"set_(): the source is on {source.device}, the tensor on "
                               f"{self.device}")
        data, backend, strides, like = source._data, source._backend, source._strides, source
    elif isinstance(source, (UntypedStorage, TypedStorage)):
        _check_set(self, self.dtype, "tensor")
        data = _on_storage(self, source, storage_offset, size, stride)
        backend, strides, like = self._backend, None, None
    else:
        raise TypeError(f"set_(): argument 'source' must be Tensor or Storage, not "
                        f"{type(source).__name__}")
    self._data, self._backend, self._strides = data, backend, strides
    self._base = self._view = None  # no longer a view of what it viewed
    if like is not None and like._requires_grad and _grad_state.enabled:
        from arraygrad.ops.alias import alias

        followed = alias(like)  # the gradient flows on to the source
        self._grad_fn, self._output_nr = followed._grad_fn, followed._output_nr
        self._requires_grad = True
    self._bump_version()
    if like is not None and not backend.mutable_arrays:
        # no memory to share on an immutable backend: the tensor becomes an (identity) view
        # of the source, rebuilt from its root on every write to either (immutable_writes),
        # which is what sharing the source's memory shows;
        # after the bump: it joins the source's counter at its current version
        from arraygrad.ops.views import make_view

        make_view(self, like, _same, like._strides)
    return self


def _same(base: Tensor) -> Tensor:
    """The identity view's replay (``set_`` on an immutable backend)."""
    return base


def is_shared(self: Tensor) -> bool:
    """Whether the memory is shared between processes (CUDA memory always is)."""
    return self.is_cuda or memory_of(self).shared


def share_memory_(self: Tensor) -> Tensor:
    """Move the memory into memory shared with child processes (``fork``): a no-op when it
    is shared already or on CUDA. Only a tensor that alone holds its memory can move
    (RuntimeError otherwise: the other tensors would keep the old memory)."""
    if self.is_cuda or memory_of(self).shared:
        return self
    backend = self._backend
    if self._base is not None or not backend.is_exclusive(self._data):
        raise RuntimeError("share_memory_(): the tensor's memory is also another tensor's (a "
                           "view or a detached alias): arraygrad can move only memory one "
                           "tensor holds alone")
    nbytes = self.numel() * self.dtype.itemsize
    shared = backend.from_buffer(mmap.mmap(-1, max(nbytes, 1)),
                                 backend.native_dtype(self.dtype), self.numel(), 0)
    if shared is None:
        raise RuntimeError(f"share_memory_(): the backend {backend.name!r} cannot place "
                           "arrays in shared memory")
    shared = backend.xp.reshape(shared, tuple(self.shape))
    shared[...] = self._data
    self._data = shared
    return self


def pin_memory(self: Tensor, device: Any = None) -> Tensor:
    """A copy in page-locked memory, as PyTorch's: without an accelerator PyTorch's
    RuntimeError; with one a plain copy (arraygrad's transfers are synchronous)."""
    from arraygrad import accelerator

    if not accelerator.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    if self.device.type != "cpu":
        raise RuntimeError(f"cannot pin '{self.type()}' only dense CPU tensors can be pinned")
    return self.clone()


def is_pinned(self: Tensor, device: Any = None) -> bool:
    """False: arraygrad allocates no page-locked memory."""
    return False


METHODS = {
    "data_ptr": data_ptr, "const_data_ptr": data_ptr, "untyped_storage": untyped_storage,
    "storage": storage, "storage_offset": storage_offset, "storage_type": storage_type,
    "is_set_to": is_set_to, "set_": set_, "is_shared": is_shared,
    "share_memory_": share_memory_, "pin_memory": pin_memory, "is_pinned": is_pinned,
}

PROPERTIES = {
    "nbytes": property(lambda self: self.numel() * self.dtype.itemsize,
                       doc="The bytes the tensor's elements take (numel * itemsize)."),
    "itemsize": property(lambda self: self.dtype.itemsize, doc="Bytes per element."),
}
