"""Tensor factories: ``tensor``, ``as_tensor``, ``zeros``, ``arange``, ``randn``, ``*_like``..."""

from __future__ import annotations

import math
from itertools import chain
from numbers import Number
from typing import TYPE_CHECKING, Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.allocation_errors import allocating, check_storage_size, out_of_memory
from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.device import explicit_default_device
from arraygrad.backends.registry import backend_for_device, default_backend
from arraygrad.transform_state import hooks as _transform_hooks
from arraygrad import determinism as _determinism
from arraygrad.layouts import check_layout, check_memory_format, check_pin_memory, sparse_coo
from arraygrad.random import generator_for
from arraygrad.ops.complex_data import join
from arraygrad.ops.rule import fast_paths
from arraygrad.tensor import Tensor, wrap as _wrap
from arraygrad.tensor_sparse import sparse_ops

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.device import DeviceLike
    from arraygrad.random import Generator

__all__ = [
    "tensor", "as_tensor", "from_numpy", "from_dlpack", "zeros", "ones", "full", "empty",
    "arange", "linspace", "eye", "rand", "randn", "randint", "randperm", "zeros_like",
    "ones_like", "full_like", "empty_like", "rand_like", "randn_like", "randint_like",
    "scalar_tensor", "backend_of",
]

_INT64_MAX = (1 << 63) - 1


def _backend(device: DeviceLike | None) -> Backend:
    if device is None:  # the default device (``set_default_device``), the CPU unless set
        default = explicit_default_device()
        found = default_backend() if default is None else backend_for_device(default)
    else:
        found = backend_for_device(device)
    view = _transform_hooks.backend_view  # a running transform's (``transform_state``)
    return found if view is None else view(found)


backend_of = _backend  # for the storages and the factories of other modules


def _options(op: str, layout: Any, pin_memory: Any) -> None:
    """The keywords every factory takes that change nothing here: ``layout`` (only
    ``strided``) and ``pin_memory`` (``layouts``). Factories call it only when one is given,
    keeping the common call free of it."""
    check_layout(layout, op)
    check_pin_memory(pin_memory, op)


def _sparse_zeros(size: Any, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    """A sparse COO tensor of ``size`` without entries (``arraygrad.sparse``'s, handed in)."""
    return sparse_ops.zeros(_size(size, "zeros"), dtype, device, requires_grad)


def _finish(data: Any, backend: Backend, requires_grad: bool) -> Tensor:
    t = _wrap(data, backend)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _infer_dtype(data: Any) -> _dt.dtype:
    """PyTorch's dtype for nested Python data: complex if any complex (the default complex
    dtype), else float if any float, else int64, else bool."""
    kind = -1
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, Tensor):
            d = item.dtype
            kind = max(kind, 3 if d.is_complex else 2 if d.is_floating_point else
                       (0 if d is _dt.bool else 1))
        elif isinstance(item, bool):
            kind = max(kind, 0)
        elif isinstance(item, int):
            kind = max(kind, 1)
        elif isinstance(item, complex) or getattr(getattr(item, "dtype", None), "kind", "") == "c":
            kind = 3
        elif isinstance(item, Number):
            kind = max(kind, 2)
        elif hasattr(item, "dtype"):
            kind = max(kind, 2)
        else:
            if isinstance(item, str):  # PyTorch's class and words for each
                raise TypeError("new(): invalid data type 'str'")
            raise RuntimeError(f"Could not infer dtype of {type(item).__name__}")
        if kind == 3:
            break
    return _dtype_of_kind(kind)


# the kind ``_infer_dtype`` ranks each plain Python scalar type by (bool < int < float < complex)
_SCALAR_KINDS = {bool: 0, int: 1, float: 2, complex: 3}
_SEQUENCES = frozenset((list, tuple))
_PLAIN_TYPES = _SEQUENCES | frozenset(_SCALAR_KINDS)


def _levels(data: Any, plain_only: bool) -> tuple[tuple[int, ...], set[type]] | None:
    """The shape of nested lists/tuples and the types of their scalars, one level at a time,
    each in C (``map``, ``set``, ``chain``): the data is rectangular exactly when every
    level's sequences have one length. PyTorch's errors for ragged data (ValueError) and for
    a sequence where the first item has a scalar, or the reverse (TypeError). ``plain_only``:
    None as soon as a level holds anything but lists, tuples and plain Python scalars."""
    shape: list[int] = []
    items = [data]
    while items:
        types = set(map(type, items))
        if plain_only and not types <= _PLAIN_TYPES:
            return None
        if not types & _SEQUENCES:
            return tuple(shape), types
        if type(items[0]) not in _SEQUENCES:  # the first says scalar: a sequence beside it
            other = next(x for x in items if type(x) in _SEQUENCES)
            raise TypeError(f"'{type(other).__name__}' object cannot be interpreted as an "
                            "integer")
        if not types <= _SEQUENCES:
            raise TypeError("not a sequence")
        lengths = set(map(len, items))
        if len(lengths) > 1:
            want = len(items[0])
            got = next(len(x) for x in items if len(x) != want)
            raise ValueError(f"expected sequence of length {want} at dim {len(shape)} "
                             f"(got {got})")
        shape.append(lengths.pop())
        items = list(chain.from_iterable(items))
    return tuple(shape), set()


def _plain_kind(data: Any) -> tuple[int, tuple[int, ...]] | None:
    """``(kind, shape)`` of nested lists/tuples of plain Python scalars in one walk
    (``_levels``), kinds as ``_infer_dtype`` ranks them (-1: no scalar at all); None when
    anything else is in it (a tensor, an array, a NumPy scalar, a subclass): the general
    path then answers."""
    found = _levels(data, True)
    if found is None:
        return None
    shape, types = found
    return max([_SCALAR_KINDS[t] for t in types], default=-1), shape


def _dtype_of_kind(kind: int) -> _dt.dtype:
    """PyTorch's dtype for ``_infer_dtype``'s kind."""
    if kind == 3:
        return _dt.default_complex_dtype()
    return {-1: _dt.get_default_dtype(), 0: _dt.bool, 1: _dt.int64,
            2: _dt.get_default_dtype()}[kind]


def _plain(data: Any) -> Any:
    """Nested data with tensors replaced by Python values."""
    if isinstance(data, Tensor):
        return data.tolist()
    if isinstance(data, list):
        return [_plain(x) for x in data]
    if isinstance(data, tuple):  # kept a tuple: PyTorch's errors name the type
        return tuple([_plain(x) for x in data])
    return data


def _dtype_of_array(arr: Any, backend: Backend) -> _dt.dtype:
    try:
        return backend.arraygrad_dtype(arr.dtype)
    except (TypeError, KeyError):
        kind = getattr(arr.dtype, "kind", "f")
        if kind == "b":
            return _dt.bool
        if kind in "iu":
            return _dt.int64
        if kind == "f":
            return _dt.float64 if arr.dtype.itemsize >= 8 else _dt.float32
        if kind == "c":
            return _dt.complex128 if arr.dtype.itemsize >= 16 else _dt.complex64
        raise TypeError(f"tensor(): unsupported array dtype {arr.dtype}") from None


def _widest_float(backend: Backend, dtype: _dt.dtype) -> _dt.dtype:
    """float64 for intermediate values when the backend has it (accuracy), else ``dtype``."""
    return _dt.float64 if _dt.float64 in backend.supported_dtypes() else dtype


def tensor(data: Any, *, dtype: _dt.dtype | None = None, device: DeviceLike | None = None,
           requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (nested lists, scalars or an array)."""
    if pin_memory:
        check_pin_memory(pin_memory, "tensor")
    backend = _backend(device)
    if isinstance(data, Tensor):
        src = data.detach()
        if src._backend is not backend:
            src = _to_backend(src, backend)
        d = dtype or src.dtype
        out = backend.xp.astype(src._data, backend.native_dtype(d), copy=True)
        return _finish(out, backend, requires_grad)
    if hasattr(data, "__dlpack__") or hasattr(data, "__array__") and not isinstance(data, (list, tuple)):
        d = dtype or _dtype_of_array(data, backend)
        host = data if hasattr(data, "shape") else backend.to_host(data)
        return _finish(backend.from_host(host, backend.native_dtype(d)), backend, requires_grad)
    plain = _plain_kind(data) if fast_paths.on else None
    if plain is not None:  # plain Python scalars in lists: dtype and raggedness in one walk
        d = dtype or _dtype_of_kind(plain[0])
    else:
        d = dtype or _infer_dtype(data)
        if isinstance(data, (list, tuple)):
            data = _plain(data)
            _check_ragged(data)
    try:
        out = backend.from_host(data, backend.native_dtype(d))
    except OverflowError as exc:
        out = _narrow_integers(backend, data, d, exc)
    return _finish(out, backend, requires_grad)


def _narrow_integers(backend: Backend, data: Any, d: _dt.dtype, exc: OverflowError) -> Any:
    """Python ints the array library refused for integer dtype ``d``: PyTorch's overflow
    check on each (an unsigned type takes negatives down to ``-max``, wrapped), through
    int64 values; past int64, PyTorch's class and words."""
    if d.is_floating_point or d is _dt.bool:
        raise ValueError("Overflow when unpacking long long") from exc
    flat: list[Any] = []
    stack = [data]
    while stack:  # every Python int of the nested lists
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, int):
            flat.append(item)
    for value in flat:  # PyTorch's errors: its int64 unpacking, uint64's own
        if d is _dt.uint64 and value < 0:
            raise OverflowError("can't convert negative int to unsigned") from exc
        if not -2 ** 63 <= value < (2 ** 64 if d is _dt.uint64 else 2 ** 63):
            raise ValueError("Overflow when unpacking long long") from exc
        _dt.checked_integer(value, d, c_name=False)
    try:
        wide = backend.from_host(data, backend.native_dtype(_dt.int64))
    except OverflowError:  # uint64 values past int64 mixed with negatives
        raise ValueError("Overflow when unpacking long long") from exc
    return backend.xp.astype(wide, backend.native_dtype(d))  # two's complement wrap


def _check_ragged(data: Any) -> None:
    """PyTorch's errors for nested data that is not rectangular (``_levels``)."""
    _levels(data, False)


def scalar_tensor(value: Any, *, dtype: _dt.dtype | None = None, layout: Any = None,
                  device: DeviceLike | None = None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:
    """A 0-dim tensor holding ``value`` (float by default)."""
    if layout is not None or pin_memory:
        _options("scalar_tensor", layout, pin_memory)
    return tensor(float(value) if dtype is None else value, dtype=dtype, device=device,
                  requires_grad=requires_grad)


def _to_backend(t: Tensor, backend: Backend) -> Tensor:
    return _wrap(backend.from_host(t._backend.to_host(t._data)), backend)


def as_tensor(data: Any, dtype: _dt.dtype | None = None,
              device: DeviceLike | None = None) -> Tensor:
    """``data`` as a tensor, sharing memory when dtype and device already match."""
    if isinstance(data, Tensor):
        out = data
        if device is not None and backend_for_device(device) is not data._backend:
            out = out.to(device)
        if dtype is not None and dtype is not out.dtype:
            out = out.to(dtype)
        return out
    backend = _backend(device)
    if hasattr(data, "__array__") or hasattr(data, "__dlpack__"):
        d = dtype or _dtype_of_array(data, backend)
        return _wrap(backend.xp.asarray(data, dtype=backend.native_dtype(d)), backend)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(ndarray: Any) -> Tensor:
    """A CPU tensor sharing memory with a NumPy array."""
    backend = backend_for_device("cpu")
    d = _dtype_of_array(ndarray, backend)
    native = backend.native_dtype(d)
    kind: Any = backend.array_type  # (Any: an ``is`` test on a type narrows ``ndarray``)
    if type(ndarray) is kind and ndarray.dtype == native:
        return _wrap(ndarray, backend)  # the array itself (what ``asarray`` would answer)
    return _wrap(backend.xp.asarray(ndarray, dtype=native), backend)


def from_dlpack(ext_tensor: Any, *, device: DeviceLike | None = None,
                copy: bool | None = None) -> Tensor:
    """A tensor sharing memory with any object supporting ``__dlpack__`` (or a DLPack
    capsule, ``to_dlpack``'s).

    ``device`` moves it there (a copy when it is another device); ``copy=True`` always
    copies, ``copy=False`` refuses (BufferError) where sharing is impossible."""
    from arraygrad._dlpack_capsule import _Capsule, is_capsule

    if is_capsule(ext_tensor):
        ext_tensor = _Capsule(ext_tensor)
    dev_type, dev_id = ext_tensor.__dlpack_device__()
    here = "cpu" if int(dev_type) == 1 else f"cuda:{dev_id}"
    backend = backend_for_device(here)
    target = backend if device is None else backend_for_device(device)
    if target is not backend and copy is False:
        raise BufferError(f"from_dlpack(): cannot move data from {here} to {target.device} "
                          "without a copy (copy=False)")
    out = _wrap(backend.from_dlpack(ext_tensor), backend)
    if target is not backend:
        return _to_backend(out, target)
    if copy:
        return _wrap(backend.xp.asarray(out._data, copy=True), backend)
    return out


def _sizes(args: tuple[Any, ...], size: Any, op: str) -> tuple[Any, ...]:
    """The size given positionally (``zeros(2, 3)``, ``zeros((2, 3))``) or as ``size=``."""
    if size is None:
        return args
    if args:
        raise TypeError(f"{op}() got multiple values for argument 'size'")
    return (size,)


def _size(size: tuple[Any, ...], op: str) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = []
    for pos, s in enumerate(size, start=1):
        if isinstance(s, Tensor):
            s = int(s.item())
        if not isinstance(s, int) or isinstance(s, bool):
            raise TypeError(f"{op}(): size must be a tuple of ints, got {type(s).__name__}")
        if s > _INT64_MAX:  # PyTorch unpacks each size into an int64
            raise TypeError(f"{op}(): argument 'size' failed to unpack the object at pos {pos} "
                            "with error \"Overflow when unpacking long long\"")
        if s < 0:
            raise RuntimeError(f"{op}(): Trying to create tensor with negative dimension {s}: {list(size)}")
        out.append(s)
    return tuple(out)


def _filled(op: str, size: tuple[Any, ...], fill: Any, dtype: _dt.dtype | None,
            device: DeviceLike | None, requires_grad: bool) -> Tensor:
    backend = _backend(device)
    shape = _size(size, op)
    d = dtype or _dt.get_default_dtype()
    check_storage_size(shape, d.itemsize)
    native = backend.native_dtype(d)
    xp = backend.xp
    _dt.unpacked_int(fill)
    if isinstance(fill, int) and not (d.is_floating_point or d.is_complex) and d is not _dt.bool:
        fill = _dt.checked_integer(int(fill), d)
    if fill is None and _determinism.fills_uninitialized_memory():  # PyTorch's NaN fill
        bits = 8 * d.itemsize
        fill = math.nan if d.is_floating_point or d.is_complex else (
            True if d is _dt.bool else (1 << (bits - 1 if d.is_signed else bits)) - 1)
    try:
        if fill is None:
            data = xp.empty(shape, dtype=native)
        elif fill == 0:
            data = xp.zeros(shape, dtype=native)
        elif fill == 1:
            data = xp.ones(shape, dtype=native)
        else:
            data = xp.full(shape, fill, dtype=native)
    except MemoryError as exc:  # the library refused before allocating: PyTorch's class
        n = d.itemsize
        for s in shape:
            n *= s
        raise out_of_memory(exc, op, n) from exc
    return _finish(data, backend, requires_grad)


def zeros(*args: Any, size: Any = None, dtype: _dt.dtype | None = None, layout: Any = None,
          device: DeviceLike | None = None, requires_grad: bool = False,
          pin_memory: bool = False) -> Tensor:
    """A tensor of zeros (``zeros(2, 3)``, ``zeros((2, 3))`` or ``zeros(size=(2, 3))``); with
    ``layout=sparse_coo`` a sparse COO tensor without entries."""
    if layout is not None or pin_memory:
        if layout is sparse_coo:
            return _sparse_zeros(_sizes(args, size, "zeros"), dtype, device, requires_grad)
        _options("zeros", layout, pin_memory)
    return _filled("zeros", _sizes(args, size, "zeros"), 0, dtype, device, requires_grad)


def ones(*args: Any, size: Any = None, dtype: _dt.dtype | None = None, layout: Any = None,
         device: DeviceLike | None = None, requires_grad: bool = False,
         pin_memory: bool = False) -> Tensor:
    """A tensor of ones (``ones(2, 3)``, ``ones((2, 3))`` or ``ones(size=(2, 3))``)."""
    if layout is not None or pin_memory:
        _options("ones", layout, pin_memory)
    return _filled("ones", _sizes(args, size, "ones"), 1, dtype, device, requires_grad)


def empty(*args: Any, size: Any = None, dtype: _dt.dtype | None = None, layout: Any = None,
          device: DeviceLike | None = None, requires_grad: bool = False,
          pin_memory: bool = False, memory_format: Any = None) -> Tensor:
    """An uninitialised tensor; every ``memory_format`` gives a row-major one (``layouts``);
    with ``layout=sparse_coo`` a sparse COO tensor without entries."""
    if layout is not None or pin_memory:
        if layout is sparse_coo:
            return _sparse_zeros(_sizes(args, size, "empty"), dtype, device, requires_grad)
        _options("empty", layout, pin_memory)
    shape = _sizes(args, size, "empty")
    if memory_format is not None:
        check_memory_format(memory_format, "empty", len(_size(shape, "empty")),
                            allow_preserve=False)
    return _filled("empty", shape, None, dtype, device, requires_grad)


def full(size: Any, fill_value: Any, *, dtype: _dt.dtype | None = None, layout: Any = None,
         device: DeviceLike | None = None, requires_grad: bool = False,
         pin_memory: bool = False) -> Tensor:
    """A tensor filled with ``fill_value`` (dtype inferred from it, as in PyTorch)."""
    if layout is not None or pin_memory:
        _options("full", layout, pin_memory)
    if not isinstance(fill_value, (Number, Tensor)):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not "
                        f"{type(fill_value).__name__}")
    if dtype is None:
        dtype = _dt.dtype_of_scalar(fill_value) if isinstance(fill_value, Number) else None
    return _filled("full", (size,) if not isinstance(size, (tuple, list)) else tuple(size),
                   fill_value, dtype, device, requires_grad)


@allocating("arange")
def arange(start: Any, end: Any = None, step: Any = 1, *, dtype: _dt.dtype | None = None,
           layout: Any = None, device: DeviceLike | None = None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 unless a bound is float."""
    if layout is not None or pin_memory:
        _options("arange", layout, pin_memory)
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = vals
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(
            f"arange: upper bound and larger bound inconsistent with step sign "
            f"(start={start}, end={end}, step={step})")
    if dtype is None:
        dtype = _dt.int64 if all(isinstance(v, int) for v in vals) else _dt.get_default_dtype()
    if dtype.is_complex:
        raise NotImplementedError(
            f"\"arange_cpu\" not implemented for '{_dt.scalar_type_name(dtype)}'")
    backend = _backend(device)
    n = max(0, math.ceil((end - start) / step))
    xp = backend.xp
    if dtype.is_floating_point:
        work = backend.native_dtype(_widest_float(backend, dtype))
        data = xp.asarray(start, dtype=work) + xp.arange(n, dtype=work) * step
        data = xp.astype(data, backend.native_dtype(dtype))
    else:
        data = xp.arange(start, start + n * step, step, dtype=backend.native_dtype(dtype))[:n]
    return _finish(data, backend, requires_grad)


@allocating("linspace")
def linspace(start: Any, end: Any, steps: int, *, dtype: _dt.dtype | None = None,
             layout: Any = None, device: DeviceLike | None = None, requires_grad: bool = False,
             pin_memory: bool = False) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    if layout is not None or pin_memory:
        _options("linspace", layout, pin_memory)
    if steps < 0:
        raise RuntimeError("linspace: number of steps must be non-negative")
    backend = _backend(device)
    d = dtype or _dt.get_default_dtype()
    data = backend.xp.linspace(float(start), float(end), int(steps),
                               dtype=backend.native_dtype(_widest_float(backend, d)))
    return _finish(backend.xp.astype(data, backend.native_dtype(d)), backend, requires_grad)


@allocating("eye")
def eye(n: int, m: int | None = None, *, dtype: _dt.dtype | None = None, layout: Any = None,
        device: DeviceLike | None = None, requires_grad: bool = False,
        pin_memory: bool = False) -> Tensor:
    """A 2-D tensor with ones on the diagonal."""
    if layout is not None or pin_memory:
        _options("eye", layout, pin_memory)
    if n < 0 or (m is not None and m < 0):
        raise RuntimeError(f"eye: n and m must be non-negative, got {n} and {m}")
    backend = _backend(device)
    d = dtype or _dt.get_default_dtype()
    check_storage_size((n, n if m is None else m), d.itemsize)
    return _finish(backend.xp.eye(n, m, dtype=backend.native_dtype(d)), backend, requires_grad)


def _random(op: str, size: tuple[Any, ...], dtype: _dt.dtype | None, device: DeviceLike | None,
            requires_grad: bool, generator: Generator | None,
            draw: Callable[[Any, tuple[int, ...], Any], Any]) -> Tensor:
    backend = _backend(device)
    shape = _size(size, op)
    d = dtype or _dt.get_default_dtype()
    if 0 not in shape:  # (nothing drawn, no kernel run: PyTorch returns the empty tensor)
        check_kernel_dtype("randn" if op.startswith("randn") else "rand", d)
    check_storage_size(shape, d.itemsize)
    gen = generator_for(backend, generator)
    if d.is_complex:  # the two parts drawn as one real tensor of twice the elements
        parts = draw(gen, shape + (2,), backend.native_dtype(d.to_real()))
        if op.startswith("randn"):  # PyTorch's complex normal: each part has variance 1/2
            parts = parts * math.sqrt(0.5)
        data = join(backend, parts[..., 0], parts[..., 1])
    else:
        data = draw(gen, shape, backend.native_dtype(d))
    # inside vmap(randomness='different') the draw is batched: the tensor is of the vmap level
    return _finish(data, getattr(gen, "batched_backend", backend), requires_grad)


@allocating("rand")
def rand(*args: Any, size: Any = None, generator: Generator | None = None,
         dtype: _dt.dtype | None = None, layout: Any = None, device: DeviceLike | None = None,
         requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Uniform samples in [0, 1)."""
    if layout is not None or pin_memory:
        _options("rand", layout, pin_memory)
    return _random("rand", _sizes(args, size, "rand"), dtype, device, requires_grad, generator,
                   lambda g, s, n: g.uniform(s, n))


@allocating("randn")
def randn(*args: Any, size: Any = None, generator: Generator | None = None,
          dtype: _dt.dtype | None = None, layout: Any = None, device: DeviceLike | None = None,
          requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Standard normal samples."""
    if layout is not None or pin_memory:
        _options("randn", layout, pin_memory)
    return _random("randn", _sizes(args, size, "randn"), dtype, device, requires_grad,
                   generator, lambda g, s, n: g.normal(s, n))


@allocating("randint")
def randint(low: Any = None, high: Any = None, size: Any = None, *,
            generator: Generator | None = None, dtype: _dt.dtype | None = None,
            layout: Any = None, device: DeviceLike | None = None, requires_grad: bool = False,
            pin_memory: bool = False) -> Tensor:
    """Uniform integers in ``[low, high)`` (``randint(high, size)`` and the keyword form
    ``randint(high=..., size=...)``, which PyTorch's samplers use, also work: low is 0)."""
    if layout is not None or pin_memory:
        _options("randint", layout, pin_memory)
    if low is None:
        if high is None or size is None:
            raise TypeError("randint(): missing required arguments 'high' and 'size'")
        low = 0
    elif size is None:
        if high is None or not isinstance(high, (tuple, list)):
            raise TypeError("randint(): missing required argument 'size'")
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    for bound in (low, high):  # PyTorch unpacks both into int64
        if isinstance(bound, int) and not -_INT64_MAX - 1 <= bound <= _INT64_MAX:
            raise ValueError("Overflow when unpacking long long")
    if high <= low:
        raise RuntimeError(f"randint: expected low < high, got low={low}, high={high}")
    backend = _backend(device)
    shape = _size(tuple(size), "randint")
    d = dtype or _dt.int64
    # (int64 with Python int bounds: the overflow test above was this test)
    if not d.is_floating_point and not (d is _dt.int64 and type(low) is int
                                        and type(high) is int):
        _randint_bounds(int(low), int(high), d)
    gen = generator_for(backend, generator)
    data = gen.integers(int(low), int(high), shape, backend.native_dtype(_dt.int64))
    if d is not _dt.int64:  # (the draw is fresh: int64 needs no copy)
        data = backend.xp.astype(data, backend.native_dtype(d))
    return _finish(data, backend, requires_grad)


# the C++ type names of PyTorch's randint bound messages
_RANDINT_TYPE_NAMES = {"uint8": "unsigned char", "int8": "signed char", "int16": "short int",
                       "int32": "int", "int64": "long int", "uint16": "short unsigned int",
                       "uint32": "unsigned int", "uint64": "long unsigned int", "bool": "bool"}


def _randint_bounds(low: int, high: int, d: _dt.dtype) -> None:
    """PyTorch's check that ``low`` and ``high - 1`` are values of integer dtype ``d``."""
    if d is _dt.bool:
        lo, hi = 0, 1
    else:
        bits = 8 * d.itemsize
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if d.is_signed else (0, (1 << bits) - 1)
    for what, value in (("from", low), ("to - 1", high - 1)):
        if not lo <= value <= hi:
            raise RuntimeError(f"{what} is out of bounds for {_RANDINT_TYPE_NAMES[d.name]}")


@allocating("randperm")
def randperm(n: int, *, generator: Generator | None = None, dtype: _dt.dtype | None = None,
             layout: Any = None, device: DeviceLike | None = None, requires_grad: bool = False,
             pin_memory: bool = False) -> Tensor:
    """A random permutation of ``0..n-1`` (``requires_grad=True`` needs a floating dtype)."""
    if layout is not None or pin_memory:
        _options("randperm", layout, pin_memory)
    d = dtype or _dt.int64
    if requires_grad and not (d.is_floating_point or d.is_complex):  # checked first, as PyTorch
        raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                           "gradients")
    n = int(n)
    if n > _INT64_MAX:
        raise ValueError("Overflow when unpacking long long")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    backend = _backend(device)
    gen = generator_for(backend, generator)
    data = gen.permutation(n)
    return _finish(backend.xp.astype(data, backend.native_dtype(d)), backend, requires_grad)


def _like(fn: Callable[..., Tensor], input: Tensor, dtype: _dt.dtype | None,
          device: DeviceLike | None, requires_grad: bool, layout: Any, pin_memory: Any,
          memory_format: Any, *args: Any, **kwargs: Any) -> Tensor:
    """``fn(*args, input.shape, ...)`` with ``input``'s dtype and device by default. Every
    ``memory_format`` gives a row-major result (``layouts``); PyTorch's checks still run."""
    op = f"{fn.__name__}_like"
    if layout is None and input.is_sparse:  # the input's layout, as PyTorch keeps it
        layout = sparse_coo
    if layout is not None or pin_memory:
        # zeros_like makes a sparse tensor, and empty_like of a sparse one (PyTorch's rules)
        if layout is sparse_coo and (fn is zeros or (fn is empty and input.is_sparse)):
            return _sparse_zeros(tuple(input.shape), dtype or input.dtype,
                                 device if device is not None else input.device, requires_grad)
        _options(op, layout, pin_memory)
    if memory_format is not None:
        check_memory_format(memory_format, op, input.ndim)
    return fn(*args, tuple(input.shape), dtype=dtype or input.dtype,
              device=device if device is not None else input.device,
              requires_grad=requires_grad, **kwargs)


def zeros_like(input: Tensor, *, dtype: _dt.dtype | None = None, layout: Any = None,
               device: DeviceLike | None = None, requires_grad: bool = False,
               memory_format: Any = None, pin_memory: bool = False) -> Tensor:
    """Zeros with ``input``'s shape, dtype and device."""
    return _like(zeros, input, dtype, device, requires_grad, layout, pin_memory, memory_format)


def ones_like(input: Tensor, *, dtype: _dt.dtype | None = None, layout: Any = None,
              device: DeviceLike | None = None, requires_grad: bool = False,
              memory_format: Any = None, pin_memory: bool = False) -> Tensor:
    """Ones with ``input``'s shape, dtype and device."""
    return _like(ones, input, dtype, device, requires_grad, layout, pin_memory, memory_format)


def empty_like(input: Tensor, *, dtype: _dt.dtype | None = None, layout: Any = None,
               device: DeviceLike | None = None, requires_grad: bool = False,
               memory_format: Any = None, pin_memory: bool = False) -> Tensor:
    """Uninitialised, with ``input``'s shape, dtype and device."""
    return _like(empty, input, dtype, device, requires_grad, layout, pin_memory, memory_format)


def full_like(input: Tensor, fill_value: Any, *, dtype: _dt.dtype | None = None,
              layout: Any = None, device: DeviceLike | None = None, requires_grad: bool = False,
              memory_format: Any = None, pin_memory: bool = False) -> Tensor:
    """``fill_value`` with ``input``'s shape, dtype and device."""
    op = "full_like"
    if layout is not None or pin_memory:
        _options(op, layout, pin_memory)
    if memory_format is not None:
        check_memory_format(memory_format, op, input.ndim)
    return full(tuple(input.shape), fill_value, dtype=dtype or input.dtype,
                device=device if device is not None else input.device, requires_grad=requires_grad)


def rand_like(input: Tensor, *, generator: Generator | None = None,
              dtype: _dt.dtype | None = None, layout: Any = None,
              device: DeviceLike | None = None, requires_grad: bool = False,
              memory_format: Any = None, pin_memory: bool = False) -> Tensor:
    """Uniform samples with ``input``'s shape, dtype and device."""
    return _like(rand, input, dtype, device, requires_grad, layout, pin_memory, memory_format,
                 generator=generator)


def randn_like(input: Tensor, *, generator: Generator | None = None,
               dtype: _dt.dtype | None = None, layout: Any = None,
               device: DeviceLike | None = None, requires_grad: bool = False,
               memory_format: Any = None, pin_memory: bool = False) -> Tensor:
    """Normal samples with ``input``'s shape, dtype and device."""
    return _like(randn, input, dtype, device, requires_grad, layout, pin_memory, memory_format,
                 generator=generator)


def randint_like(input: Tensor, low: Any, high: Any = None, *,
                 generator: Generator | None = None, dtype: _dt.dtype | None = None,
                 layout: Any = None, device: DeviceLike | None = None,
                 requires_grad: bool = False, memory_format: Any = None,
                 pin_memory: bool = False) -> Tensor:
    """Random integers in ``[low, high)`` (``randint_like(input, high)``: ``[0, high)``) with
    ``input``'s shape, dtype and device."""
    if high is None:
        low, high = 0, low
    low, high = (v.item() if isinstance(v, Tensor) else v for v in (low, high))
    return _like(randint, input, dtype, device, requires_grad, layout, pin_memory,
                 memory_format, low, high, generator=generator)
