"""Factories over memory that exists already: ``asarray``, ``frombuffer``, ``from_file``.

Each shares the memory it is given where it can, as PyTorch's do: a tensor or a NumPy array
(through DLPack), a Python buffer (``bytes``, ``bytearray``, ``array.array``, ``mmap``), a
memory-mapped file. The buffer factories need a CPU backend that can view a buffer
(``Backend.from_buffer``: NumPy's can). A read-only buffer gives a tensor whose in-place
writes raise (PyTorch writes into the buffer anyway, after a warning).
"""

from __future__ import annotations

import mmap
import os
import warnings
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.backends.registry import backend_for_device
from arraygrad.creation import _dtype_of_array, _options, backend_of, from_dlpack, tensor
from arraygrad.device import DeviceLike
from arraygrad.tensor import Tensor, wrap

__all__ = ["asarray", "frombuffer", "from_file"]

_READ_ONLY_WARNING = (
    "The given buffer is not writable, and PyTorch does not support non-writable tensors. "
    "This means you can write to the underlying (supposedly non-writable) buffer using the "
    "tensor. You may want to copy the buffer to protect its data or make it writable before "
    "converting it to a tensor. This type of warning will be suppressed for the rest of this "
    "program.")


def _over_buffer(buffer: Any, dtype: _dt.dtype, count: int, offset: int, op: str) -> Tensor:
    backend = backend_for_device("cpu")
    data = backend.from_buffer(buffer, backend.native_dtype(dtype), count, offset)
    if data is None:
        raise RuntimeError(f"{op}(): the CPU backend {backend.name!r} cannot view a buffer's "
                           "memory")
    return wrap(data, backend)


def frombuffer(buffer: Any, *, dtype: _dt.dtype, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> Tensor:
    """A 1-d CPU tensor sharing the memory of a Python buffer: ``count`` elements of
    ``dtype`` (all that fit when -1) from byte ``offset`` (``torch.frombuffer``)."""
    if not isinstance(dtype, _dt.dtype):
        raise TypeError(f"frombuffer(): argument 'dtype' must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    view = memoryview(buffer)  # TypeError for an object without the buffer protocol
    length, itemsize = view.nbytes, dtype.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0:
        if (length - offset) % itemsize:
            raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                             f"bytes) must be a multiple of element size ({itemsize})")
        count = (length - offset) // itemsize
    elif offset + count * itemsize > length:
        raise ValueError(f"requested buffer length ({count} * {itemsize} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    if view.readonly:
        warnings.warn(_READ_ONLY_WARNING, UserWarning, stacklevel=2)
    out = _over_buffer(buffer, dtype, count, offset, "frombuffer")
    return out.requires_grad_(True) if requires_grad else out


def from_file(filename: str, shared: bool | None = None, size: int = 0, *,
              dtype: _dt.dtype | None = None, layout: Any = None,
              device: DeviceLike | None = None, pin_memory: bool = False) -> Tensor:
    """A 1-d CPU tensor of ``size`` elements over a memory-mapped file (``torch.from_file``):
    with ``shared=True`` writes reach the file (created or grown to fit); otherwise the file
    must hold the elements, and writes stay private."""
    if layout is not None or pin_memory:
        _options("from_file", layout, pin_memory)
    if shared is not None and not isinstance(shared, bool):
        raise TypeError(f"from_file(): argument 'shared' must be bool, not {type(shared).__name__}")
    d = dtype or _dt.get_default_dtype()
    nbytes = size * d.itemsize
    mode = "r+b" if shared else "rb"
    try:
        if shared:  # PyTorch creates the file when needed
            fd = os.open(filename, os.O_RDWR | os.O_CREAT, 0o644)
            f = os.fdopen(fd, mode)
        else:
            f = open(filename, mode)
    except OSError as exc:
        raise RuntimeError(f"unable to open file <{filename}> in "
                           f"{'read-write' if shared else 'read-only'} mode: {exc.strerror} "
                           f"({exc.errno})") from None
    with f:
        have = os.fstat(f.fileno()).st_size
        if size < 0:
            raise RuntimeError(f"unable to mmap {nbytes} bytes from file <{filename}>: Cannot "
                               "allocate memory (12)")
        if have < nbytes:
            if not shared:
                raise RuntimeError(f"file <{filename}> size <{have}> is smaller than the "
                                   f"required mapping size <{nbytes}>")
            f.truncate(nbytes)
        if nbytes == 0:
            out = backend_of("cpu").xp.empty((0,), dtype=backend_of("cpu").native_dtype(d))
            result = wrap(out, backend_of("cpu"))
        else:
            mapped = mmap.mmap(f.fileno(), nbytes,
                               access=mmap.ACCESS_WRITE if shared else mmap.ACCESS_COPY)
            result = _over_buffer(mapped, d, size, 0, "from_file")
    return result if device is None else result.to(device)


def _tensor_asarray(obj: Tensor, dtype: _dt.dtype | None, device: DeviceLike | None,
                    copy: bool | None) -> Tensor:
    """``asarray`` of a tensor: itself, or a copy where dtype/device/``copy`` ask for one."""
    target = None if device is None else backend_for_device(device)
    wrong_device = target is not None and target is not obj._backend
    wrong_dtype = dtype is not None and dtype is not obj.dtype
    if copy is False:
        if wrong_device:
            raise ValueError(f"can't alias tensor from device '{obj.device}' to "
                             f"'{target.device if target is not None else device}'.")
        if wrong_dtype:
            assert dtype is not None
            raise ValueError(f"can't alias tensor with dtype '{_dt.scalar_type_name(obj.dtype)}'"
                             f" into dtype '{_dt.scalar_type_name(dtype)}'.")
    if wrong_device or wrong_dtype:
        return obj.to(device=device if wrong_device else None, dtype=dtype, copy=bool(copy))
    return obj.clone() if copy else obj


def _array_asarray(obj: Any, dtype: _dt.dtype | None, device: DeviceLike | None,
                   copy: bool | None) -> Tensor:
    """``asarray`` of a DLPack array (NumPy's): shared, unless its dtype is none of
    arraygrad's or another dtype/device/``copy`` asks for a copy."""
    shared = from_dlpack(obj)  # the backend's own array type, whatever its dtype
    backend = shared._backend
    d = _dtype_of_array(shared._data, backend)
    if backend.native_dtype(d) != shared._data.dtype:  # e.g. uint8: no arraygrad dtype
        if copy is False:
            raise ValueError(f"can't alias an array of dtype {shared._data.dtype} into "
                             f"{dtype or d!r}: arraygrad has no such dtype")
        shared = wrap(backend.xp.astype(shared._data, backend.native_dtype(d)), backend)
        copy = None  # the copy is made
    return _tensor_asarray(shared, dtype, device, copy)


def asarray(obj: Any, *, dtype: _dt.dtype | None = None, device: DeviceLike | None = None,
            copy: bool | None = None, requires_grad: bool | None = None) -> Tensor:
    """``obj`` as a tensor, sharing its memory where it can (``torch.asarray``).

    A tensor is returned itself (a copy when ``dtype``/``device`` differ or ``copy=True``),
    a NumPy (DLPack) array is shared, a Python buffer is read as ``dtype`` elements (the
    default dtype when None), scalars and sequences are copied. ``copy=False`` refuses
    (ValueError) where sharing is impossible. ``requires_grad`` (None: the tensor's own)
    is set on the result, in place on a shared leaf as in PyTorch.
    """
    if isinstance(obj, Tensor):
        if requires_grad is None and obj.requires_grad:
            warnings.warn("torch.asarray: unspecified requires_grad now defaults to "
                          "obj.requires_grad instead of False. Pass requires_grad=False "
                          "explicitly to get the old behavior and silence this warning.",
                          UserWarning, stacklevel=2)
        out = _tensor_asarray(obj, dtype, device, copy)
    elif hasattr(obj, "__dlpack__") and hasattr(obj, "shape"):
        out = _array_asarray(obj, dtype, device, copy)
    elif hasattr(obj, "__array__"):  # a NumPy scalar (no DLPack): a copy, as PyTorch says
        if copy is False:
            raise ValueError(f"can't alias a {type(obj).__name__} into a tensor.")
        out = tensor(obj, dtype=dtype, device=device)
    elif _has_buffer(obj):
        d = dtype or _dt.get_default_dtype()
        out = _tensor_asarray(frombuffer(obj, dtype=d), None, device, copy)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        out = tensor(obj, dtype=dtype, device=device)
    if requires_grad is None:
        return out
    if out._grad_fn is None:  # a leaf (the very ``obj`` when shared): set in place
        return out.requires_grad_(requires_grad)
    return out if requires_grad else out.detach()


def _has_buffer(obj: Any) -> bool:
    try:
        memoryview(obj)
    except TypeError:
        return False
    return True
