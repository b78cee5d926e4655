"""Strided views: ``as_strided`` (and ``as_strided_``, ``as_strided_scatter``,
``slice_inverse``) and ``Tensor.unfold``, the sliding-window view.

arraygrad keeps PyTorch's *logical* strides (``ops.views``): a root tensor's storage is its
elements in the order its strides give, and a view's storage offset is where its first
element sits there. ``as_strided(size, stride, offset)`` reads storage positions ``offset +
sum(i[k] * stride[k])``; ``unfold`` reads windows of the tensor itself.

The results are views when the backend can view memory with strides (NumPy, CuPy: the
``"as_strided"``/``"unfold"`` kernels of ``arraygrad.backends.strided``): writes through
them reach the base and the other way round, as in PyTorch. Elsewhere (array-api-strict)
they are copies. Either way the gradient is one rule per op: the output's gradient added
back at the input positions each element was read from (positions outside the input, which
``as_strided`` may read from the rest of the storage, get none, as in PyTorch).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Sequence

from arraygrad import dtypes as _dt
from arraygrad.autograd.forward_ad import state as _fw
from arraygrad.autograd.grad_mode import is_grad_enabled, no_grad
from arraygrad.transform_state import hooks as _transform_hooks
from arraygrad.ops.families.inplace_variants import _view_inplace
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.ops.views import make_view, normalized_strides as _normalized, strides_of
from arraygrad.plugins.registry import dispatch_kernel
from arraygrad.tensor import Tensor, _wrap_dim

__all__ = ["as_strided", "as_strided_scatter", "slice_inverse", "unfold", "storage_offset_of",
           "FUNCTIONS", "METHODS"]


def _sizes(value: Any, op: str, name: str) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,)
    try:
        out = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise TypeError(f"{op}(): argument '{name}' must be tuple of ints, not "
                        f"{type(value).__name__}") from None
    return out


def _added_back(g: Tensor, n: Any) -> Tensor:
    """``g`` added into zeros of the input's shape at each element's input position
    (``n.index``: the input's flat index each output element was read from, -1 for none)."""
    index = n.index
    valid = index >= 0
    values = g.where(valid, g.new_zeros(()))
    flat = g.new_zeros((n.numel,)).index_add(0, index.where(valid, index.new_zeros(())).reshape(-1),
                                             values.reshape(-1))
    return flat.reshape(n.self_sizes)


def _reading_rule(name: str) -> Any:
    return defop(name, jvp=VIA_VJP, params=("index", "numel", "self_sizes"), vjp=(_added_back,), complex=True)


AS_STRIDED = _reading_rule("AsStridedBackward0")
UNFOLD = _reading_rule("UnfoldBackward0")


def _recording(input: Tensor) -> bool:
    """Whether a gradient (or a tangent) may flow: only then is the read index computed."""
    return (is_grad_enabled() and input._requires_grad) or _fw.on


def _no_kernel(*args: Any) -> None:
    return None


def _view_kernel(name: str, backend: Any, *args: Any) -> Any:
    """The backend's memory-sharing result, or None: none exists, it declined, or
    a transform that records array calls runs (a view of memory cannot be recorded; the
    portable copy, made of recordable array calls, computes the same values)."""
    if _transform_hooks.arrays_only:
        return None
    return dispatch_kernel(name, backend, _no_kernel, *args)


def _int64(backend: Any) -> Any:
    return backend.native_dtype(_dt.int64)


def _strided_positions(xp: Any, dtype: Any, offset: int, size: Sequence[int],
                       stride: Sequence[int]) -> Any:
    """``offset + sum(i[k] * stride[k])`` for every index ``i`` of ``size``."""
    pos = xp.full(tuple(size), offset, dtype=dtype)
    for k, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[k] = n
        pos = pos + xp.reshape(xp.arange(n, dtype=dtype) * s, tuple(shape))
    return pos


def _root_positions(root: Tensor) -> Any:
    """The storage position of each element of a root tensor (its shape, int64)."""
    backend = root._backend
    xp = backend.xp
    i64 = _int64(backend)
    shape = tuple(root._data.shape)
    if root._strides is None:
        return xp.reshape(xp.arange(math.prod(shape), dtype=i64), shape)
    return _strided_positions(xp, i64, 0, shape, strides_of(root))


def _positions_of(input: Tensor) -> Any:
    """The storage position of each element of ``input`` (its root's storage)."""
    if input._base is None:
        return _root_positions(input)
    root = input._base
    with no_grad():
        return input._view.replay(Tensor._wrap(_root_positions(root), root._backend))._data


def storage_offset_of(input: Tensor) -> int:
    """Where ``input``'s first element sits in its root's storage (``Tensor.storage_offset``);
    0 for a root and for an empty view."""
    if input._base is None or input.numel() == 0:
        return 0
    xp = input._backend.xp
    return int(xp.reshape(_positions_of(input), (-1,))[0])


def _input_index(input: Tensor, positions: Any) -> Any:
    """For each storage position, the flat index of ``input``'s element there (-1: none)."""
    backend = input._backend
    xp = backend.xp
    mine = xp.reshape(_positions_of(input), (-1,))
    if mine.shape[0] == 0:
        return xp.full(positions.shape, -1, dtype=positions.dtype)
    order = xp.argsort(mine, stable=True)
    ordered = xp.take(mine, order, axis=0)
    flat = xp.reshape(positions, (-1,))
    at = xp.clip(xp.searchsorted(ordered, flat), 0, ordered.shape[0] - 1)
    found = xp.take(ordered, at, axis=0) == flat
    index = xp.where(found, xp.astype(xp.take(order, at, axis=0), positions.dtype),
                     xp.full(flat.shape, -1, dtype=positions.dtype))
    return xp.reshape(index, positions.shape)


def _check_strided(input: Tensor, size: tuple[int, ...], stride: tuple[int, ...],
                   offset: int, op: str) -> None:
    """PyTorch's checks of an ``as_strided`` geometry against the storage (in elements)."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"{op}: Negative strides are not supported at the moment, got "
                           f"strides: {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if math.prod(size) == 0:
        return
    root = input._base if input._base is not None else input
    item = input.dtype.itemsize
    needed = offset + sum((n - 1) * s for n, s in zip(size, stride)) + 1
    if needed > root.numel():
        raise RuntimeError(
            f"setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset}, "
            f"and itemsize {item} requiring a storage size of {needed * item} are out of bounds "
            f"for storage of size {root.numel() * item}")


def _storage_read(input: Tensor, size: tuple[int, ...], stride: tuple[int, ...], offset: int,
                  positions_needed: bool) -> tuple[Any, bool, Any]:
    """``(data, shared, positions)``: the elements at storage positions ``offset +
    sum(i[k] * stride[k])`` of ``input``'s root (``shared``: a view of its memory), and those
    positions (None when neither the copy nor the caller needs them)."""
    root = input._base if input._base is not None else input
    backend = root._backend
    xp = backend.xp
    data = None
    if math.prod(size):
        data = _view_kernel("as_strided", backend, root._data, strides_of(root), size, stride,
                            offset)
    shared = data is not None
    positions = None
    if not shared or positions_needed:
        positions = _strided_positions(xp, _int64(backend), offset, size, stride)
    if not shared:
        storage = xp.reshape(root._data, (-1,))
        if root._strides is not None:  # elements in storage order
            storage = xp.take(storage, xp.argsort(xp.reshape(_root_positions(root), (-1,))), axis=0)
        data = xp.reshape(xp.take(storage, xp.reshape(positions, (-1,)), axis=0), size)
    return data, shared, positions


def as_strided(input: Tensor, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """The view of ``input``'s storage with shape ``size``, strides ``stride`` and first
    element at ``storage_offset`` (default: ``input``'s own), as ``torch.as_strided``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"as_strided(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    size, stride = _sizes(size, "as_strided", "size"), _sizes(stride, "as_strided", "stride")
    offset = storage_offset_of(input) if storage_offset is None else int(storage_offset)
    _check_strided(input, size, stride, offset, "as_strided")
    recording = _recording(input)
    data, shared, positions = _storage_read(input, size, stride, offset, recording)
    index = Tensor._wrap(_input_index(input, positions), input._backend) if recording else None
    out = AS_STRIDED.record(data, input._backend, (input,), index=index, numel=input.numel(),
                            self_sizes=tuple(input._data.shape))
    if shared:
        make_view(out, input, lambda base: as_strided(base, size, stride, offset),
                  _normalized(size, stride))
    return out


def _unfold_array(xp: Any, a: Any, d: int, size: int, step: int) -> Any:
    """The windows of ``a`` along ``d`` as a new last dimension (a copy)."""
    count = (a.shape[d] - size) // step + 1
    int_dtype = xp.int64
    picks = xp.reshape(xp.reshape(xp.arange(count, dtype=int_dtype) * step, (count, 1))
                       + xp.reshape(xp.arange(size, dtype=int_dtype), (1, size)), (-1,))
    taken = xp.take(a, picks, axis=d)
    shape = a.shape[:d] + (count, size) + a.shape[d + 1:]
    order = tuple(range(d + 1)) + tuple(range(d + 2, len(shape))) + (d + 1,)
    return xp.permute_dims(xp.reshape(taken, shape), order)


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """The windows of ``size`` elements every ``step`` along ``dimension``, as a new last
    dimension (``Tensor.unfold``): a view of ``input``, overlapping when ``step < size``."""
    nd = input.ndim
    d = _wrap_dim(dimension, nd, "unfold")
    length = input._data.shape[d] if nd else 1
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if nd == 0:  # a 0-d tensor has one window, without the windows dimension
        return unfold(input.reshape(1), 0, size, step).reshape(size)
    backend = input._backend
    xp = backend.xp
    data = _view_kernel("unfold", backend, input._data, d, size, step)
    shared = data is not None
    if not shared:
        data = _unfold_array(xp, input._data, d, size, step)
    index = None
    if _recording(input):
        flat = xp.reshape(xp.arange(input.numel(), dtype=_int64(backend)), input._data.shape)
        index = Tensor._wrap(_unfold_array(xp, flat, d, size, step), backend)
    out = UNFOLD.record(data, backend, (input,), index=index, numel=input.numel(),
                        self_sizes=tuple(input._data.shape))
    if shared:
        s = strides_of(input)
        strides = s[:d] + (s[d] * step,) + s[d + 1:] + (s[d],)
        make_view(out, input, lambda base: unfold(base, d, size, step),
                  _normalized(tuple(out._data.shape), strides))
    return out


def as_strided_scatter(input: Tensor, src: Tensor, size: Any, stride: Any,
                       storage_offset: int | None = None) -> Tensor:
    """A copy of ``input`` with the elements ``input.as_strided(size, stride,
    storage_offset)`` would show replaced by ``src`` (differentiable in both)."""
    size, stride = _sizes(size, "as_strided_scatter", "size"), _sizes(stride, "as_strided_scatter",
                                                                       "stride")
    offset = storage_offset_of(input) if storage_offset is None else int(storage_offset)
    _check_strided(input, size, stride, offset, "as_strided_scatter")
    if tuple(src.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(size)}")
    backend = input._backend
    xp = backend.xp
    positions = _strided_positions(xp, _int64(backend), offset, size, stride)
    index = _input_index(input, positions)
    n = input.numel()
    # a position outside ``input`` (elsewhere in the storage) writes into one spare slot
    index = xp.where(index >= 0, index, xp.full(index.shape, n, dtype=index.dtype))
    from arraygrad.ops.families.scatter import _index_put_fn
    from arraygrad.ops.shape import cat

    flat = cat([input.reshape(-1), input.new_zeros((1,))])
    written = _index_put_fn(flat, (Tensor._wrap(xp.reshape(index, (-1,)), backend),),
                            src.reshape(-1))
    return written[:n].reshape(tuple(input.shape))


def _slice_key(n: Any) -> tuple[Any, ...]:
    return (slice(None),) * n.dim + (slice(n.start, n.end, n.step),)


# PyTorch's formula: the slice's gradient is the gradient's slice; ``src``'s the rest of it
SLICE_INVERSE = defop(
    "SliceInverseBackward0", jvp=VIA_VJP, inputs=("self", "src"),
    params=("dim", "start", "end", "step"),
    vjp=(lambda g, n: g[_slice_key(n)],
         lambda g, n: _slice_scatter(g, g[_slice_key(n)].new_zeros(()).expand(
             *g[_slice_key(n)].shape), n.dim, n.start, n.end, n.step)), complex=True)


def _slice_scatter(*args: Any) -> Tensor:
    from arraygrad.ops.families.view_ops import slice_scatter

    return slice_scatter(*args)


def slice_inverse(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None,
                  end: int | None = None, step: int = 1) -> Tensor:
    """The view of ``input``'s storage with ``src``'s geometry (shape, strides, storage
    offset): given the slice ``input`` of a tensor like ``src`` (``src[start:end:step]``
    along ``dim``), the tensor it was sliced from (``torch.slice_inverse``). Gradients as
    PyTorch's: ``input`` gets the gradient's slice, ``src`` the rest."""
    for pos, (arg, value) in enumerate((("input", input), ("src", src)), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(f"slice_inverse(): argument '{arg}' (position {pos}) must be Tensor, "
                            f"not {type(value).__name__}")
    d = _wrap_dim(dim, src.ndim, "slice_inverse")
    size, stride = tuple(src.shape), strides_of(src)
    offset = storage_offset_of(src)
    _check_strided(input, size, stride, offset, "slice_inverse")
    data, shared, _ = _storage_read(input, size, stride, offset, False)
    out = SLICE_INVERSE.record(data, input._backend, (input, src), dim=d, start=start, end=end,
                               step=step)
    if shared:
        make_view(out, input, lambda base: slice_inverse(base, src, d, start, end, step),
                  _normalized(size, stride))
    return out


as_strided_ = _view_inplace("as_strided")


def _as_strided_inplace(input: Tensor, size: Any, stride: Any,
                        storage_offset: int | None = None) -> Tensor:
    """``input.as_strided_(size, stride, storage_offset)``: ``input`` becomes that view."""
    return as_strided_(input, size, stride, storage_offset)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "as_strided": as_strided, "as_strided_": _as_strided_inplace,
    "as_strided_scatter": as_strided_scatter, "slice_inverse": slice_inverse,
}
METHODS: dict[str, Callable[..., Any]] = {**FUNCTIONS, "as_strided_": as_strided_,
                                          "unfold": unfold}
