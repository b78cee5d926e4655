"""Pooling over 1, 2 or 3 spatial dims: max, average, adaptive, power-average and max-unpooling.

One N-d implementation serves every ``*_pool1d/2d/3d`` name:

* max pooling is one rule (``max_pool_rule``: the backend's kernels, or the windows'
  maximum, the gradient put at each window's winner and summed back by ``col2im``);
* average pooling reduces the window axis of ``im2col`` (the recorded window gather of
  ``arraygrad.nn._functional.conv``), so gradients of any order come from its adjoint
  ``col2im`` and the reduction's own rule;
* adaptive average pooling is separable: one constant bin-averaging matrix
  per axis;
* adaptive max pooling gathers each axis's bins with ``index_select`` (a bin
  shorter than the longest repeats its last element, which does not change the
  maximum) and reduces the flattened bin;
* ``lp_pool`` is PyTorch's formula over ``avg_pool``; ``max_unpool`` is a
  ``scatter`` into a zero plane (its gradient a ``gather``).
"""

from __future__ import annotations

import math
from typing import Any

from arraygrad.ops.arguments import tensor_arg
from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad import dtypes as _dt
from arraygrad.nn._functional.conv import _out_size, _pair, im2col
from arraygrad.nn._functional.max_pool_rule import max_pool
from arraygrad.ops.indexed_operands import indexed_by
from arraygrad.ops.value_checks import index_range
from arraygrad.tensor import Tensor

__all__ = [
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
    "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
    "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d",
    "max_unpool1d", "max_unpool2d", "max_unpool3d",
]

_WORDS = {1: "one", 2: "two", 3: "three"}


# -- arguments ----------------------------------------------------------------------------

def _arg(value: Any, name: str, n: int, op: str) -> tuple[Any, ...]:
    """A pooling argument as ``n`` ints (PyTorch's RuntimeError for a wrong length)."""
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, (list, tuple)) and len(value) not in (1, n):
        raise RuntimeError(f"{op}: {name} must either be a single int, or a tuple of "
                           f"{_WORDS[n]} ints")
    return _pair(value, name, n)


def _pool_input(input: Tensor, n: int, op: str) -> tuple[Tensor, bool]:
    """``input`` with a batch dimension (and whether one was added), PyTorch's shape checks."""
    tensor_arg(op, input)
    kind = "max_pool1d" if op.startswith("max_pool1d") else (
        "max_pool" if op.startswith("max") else "avg_pool")
    check_kernel_dtype(kind, input)
    if input.ndim not in (n + 1, n + 2) or 0 in tuple(input.shape[-n - 1:]):
        raise RuntimeError(f"{op}: Expected {n + 1}D or {n + 2}D (batch mode) tensor with "
                           f"optional 0 dim batch size for input, but got:{list(input.shape)}")
    if input.ndim == n + 1:
        return input.unsqueeze(0), True
    return input, False


def _pool_geom(x: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
               ceil_mode: bool, n: int, op: str) -> tuple[Any, ...]:
    """``(kernel, dilation, stride, padding, out)`` of a pooling, checked as PyTorch does."""
    kernel = _arg(kernel_size, "kernel_size", n, op)
    no_stride = stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0)
    stride = kernel if no_stride else _arg(stride, "stride", n, op)
    padding, dilation = _arg(padding, "padding", n, op), _arg(dilation, "dilation", n, op)
    if min(kernel) <= 0:
        raise RuntimeError(f"{op}: kernel_size must be greater than zero, but got "
                           f"{list(kernel)}")
    if 0 in stride:  # checked before any arithmetic: a zero stride would divide by zero
        raise RuntimeError(f"{op}: stride should not be zero")
    if min(stride) < 0:
        raise RuntimeError(f"{op}: stride must be greater than zero, but got {list(stride)}")
    if min(dilation) <= 0:
        raise RuntimeError(f"{op}: dilation should be greater than zero, but got "
                           f"{list(dilation)}")
    if min(padding) < 0:
        raise RuntimeError(f"{op}: pad must be non-negative, but got {list(padding)}")
    for k, p, d in zip(kernel, padding, dilation):
        if p > k // 2:
            raise RuntimeError(f"{op}: pad should be at most half of effective kernel size, but "
                               f"got pad={p}, kernel_size={k} and dilation={d}")
    sizes = tuple(x.shape[2:])
    out = tuple(_out_size(size, k, s, p, p, d, ceil_mode)
                for size, k, s, p, d in zip(sizes, kernel, stride, padding, dilation))
    if min(out) <= 0:
        c = x.shape[1]
        raise RuntimeError(f"{op}: Given input size: ({'x'.join(map(str, (c,) + sizes))}). "
                           f"Calculated output size: ({'x'.join(map(str, (c,) + out))}). "
                           f"Output size is too small")
    return (kernel, dilation, stride, padding, out)


def _unbatch(values: Any, unbatched: bool) -> Any:
    return values.squeeze(0) if unbatched else values


def _grid(xp: Any, length: int, axis: int, n: int, dtype: Any) -> Any:
    """``arange(length)`` shaped to broadcast along output axis ``axis`` of ``(N, C, *out)``."""
    shape = [1] * (n + 2)
    shape[axis + 2] = length
    return xp.reshape(xp.arange(length, dtype=dtype), tuple(shape))


def _unravel(xp: Any, flat: Any, sizes: tuple[Any, ...]) -> list[Any]:
    """Row-major ``flat`` offsets into one index per axis of ``sizes``."""
    out = []
    for size in reversed(sizes):
        out.append(flat % size)
        flat = flat // size
    return out[::-1]


# -- max pooling ----------------------------------------------------------------------------

def _window_to_flat(offsets: Any, backend: Any, in_sizes: tuple[Any, ...],
                    geom: tuple[Any, ...]) -> Tensor:
    """Window offsets (native) -> PyTorch's flat input index per plane (``(d * H + h) * W + w``)."""
    kernel, dilation, stride, padding, out = geom
    xp = backend.xp
    n = len(kernel)
    flat = None
    offsets = xp.astype(offsets, backend.native_dtype(_dt.int64))  # (a kernel's are narrower)
    for axis, (off, size) in enumerate(zip(_unravel(xp, offsets, kernel), in_sizes)):
        start = _grid(xp, out[axis], axis, n, offsets.dtype) * stride[axis] - padding[axis]
        pos = start + off * dilation[axis]
        flat = pos if flat is None else flat * size + pos
    return Tensor._wrap(flat, backend)


def _max_pool(input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
              ceil_mode: bool, n: int, with_indices: bool = True) -> Any:
    """``(values, indices)``, or the values alone when ``with_indices`` is false (the flat
    indices are work the values do not need)."""
    op = f"max_pool{n}d"
    x, unbatched = _pool_input(input, n, op)
    geom = _pool_geom(x, kernel_size, stride, padding, dilation, ceil_mode, n, op)
    fill = -math.inf if input.dtype.is_floating_point else input._backend.xp.iinfo(
        input._data.dtype).min  # an integer input pads with its smallest value
    values, offsets = max_pool(x, geom, fill, with_indices)
    if not with_indices:
        return _unbatch(values, unbatched)
    indices = _window_to_flat(offsets, x._backend, tuple(x.shape[2:]), geom)
    return _unbatch(values, unbatched), _unbatch(indices, unbatched)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``(values, indices)`` of 1-D max pooling; indices are positions along ``L``."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 1)


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``(values, indices)`` of 2-D max pooling; indices are flat ``h * W + w`` per plane."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 2)


def max_pool3d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``(values, indices)`` of 3-D max pooling; indices are flat ``(d * H + h) * W + w``."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 3)


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """1-D max pooling over ``(N, C, L)`` or ``(C, L)``; padding counts as ``-inf``."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 1,
                     return_indices)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """2-D max pooling (``stride`` defaults to ``kernel_size``); padding counts as ``-inf``."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 2,
                     return_indices)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """3-D max pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, 3,
                     return_indices)


# -- average pooling ------------------------------------------------------------------------

def _avg_divisor(in_sizes: Any, geom: Any, count_include_pad: bool) -> list[Any]:
    """Per-axis window sizes (PyTorch's: clipped to input + padding, or to the input)."""
    kernel, _, stride, padding, out = geom
    per_axis = []
    for size, k, s, p, n in zip(in_sizes, kernel, stride, padding, out):
        counts = []
        for o in range(n):  # one integer per output row/column: not per position
            start = o * s - p
            end = min(start + k, size + p)
            counts.append(end - start if count_include_pad else min(end, size) - max(start, 0))
        per_axis.append(counts)
    return per_axis


def _avg_pool(input: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
              count_include_pad: bool, divisor_override: Any, n: int) -> Tensor:
    op = f"avg_pool{n}d"
    x, unbatched = _pool_input(input, n, op)
    geom = _pool_geom(x, kernel_size, stride, padding, 1, ceil_mode, n, op)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{op}: divisor must be not zero")
    total = im2col(x, geom).sum(dim=2)
    backend = x._backend
    xp = backend.xp
    if divisor_override is not None:
        div = xp.asarray(int(divisor_override), dtype=x._data.dtype)
    else:
        div = None
        for axis, counts in enumerate(_avg_divisor(x.shape[2:], geom, count_include_pad)):
            shape = [1] * n
            shape[axis] = len(counts)
            part = xp.reshape(backend.from_host(counts, x._data.dtype), tuple(shape))
            div = part if div is None else div * part
    if not x.dtype.is_floating_point:  # PyTorch divides integers in their own type (truncating)
        t = total._data
        q = xp.where(t < 0, -((-t) // div), t // div)
        return _unbatch(Tensor._wrap(xp.astype(q, t.dtype), backend), unbatched)
    return _unbatch(total / Tensor._wrap(div, backend), unbatched)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """1-D average pooling over ``(N, C, L)`` or ``(C, L)`` (PyTorch's has no
    ``divisor_override``)."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1)


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """2-D average pooling, with PyTorch's divisor rules for padding and ``ceil_mode``."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 2)


def avg_pool3d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """3-D average pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 3)


# -- adaptive pooling ----------------------------------------------------------------------

def _bins(size: int, out: int) -> list[Any]:
    """PyTorch's adaptive bins ``[floor(i*s/o), ceil((i+1)*s/o))`` along one axis."""
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


def _adaptive_input(input: Tensor, output_size: Any, n: int, op: str) -> tuple[Any, ...]:
    """PyTorch's checks of an adaptive pooling; the output sizes (``None`` keeps a size)."""
    if n == 1:  # (PyTorch's 2-D and 3-D forms are Python code that fails on .size())
        tensor_arg(op, input)
    check_kernel_dtype("adaptive_avg_pool" if "avg" in op else "adaptive_max_pool", input)
    if input.ndim not in (n + 1, n + 2):
        if n == 1:
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional "
                               f"tensor for argument #1 'self' (while checking arguments for "
                               f"{op})")
        raise RuntimeError(f"{op}(): Expected {n + 1}D or {n + 2}D tensor, but got "
                           f"{list(input.shape)}")
    for d in range(1, input.ndim):  # dim 0 (the batch, or unbatched channels) may be empty
        if input.shape[d] == 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")
    if isinstance(output_size, Tensor):
        output_size = output_size.tolist()
    if not isinstance(output_size, (list, tuple)):
        output_size = (output_size,) * n
    if len(output_size) != n:
        raise RuntimeError(f"{op}(): output_size must have {n} element(s) (got "
                           f"{len(output_size)})")
    sizes = tuple(input.shape[-n:])
    out = tuple(s if o is None else int(o) for s, o in zip(sizes, output_size))
    if min(out) < 0:
        raise RuntimeError(f"{op}: elements of output_size must be greater than or equal to 0 "
                           f"but received {{{', '.join(map(str, out))}}}")
    return sizes, out


def _adaptive_avg(input: Tensor, output_size: Any, n: int) -> Tensor:
    sizes, out = _adaptive_input(input, output_size, n, f"adaptive_avg_pool{n}d")
    backend = input._backend
    y = input
    for axis, (size, o) in enumerate(zip(sizes, out)):
        rows = [[1.0 / (end - start) if start <= j < end else 0.0 for j in range(size)]
                for start, end in _bins(size, o)]
        # (size, o) bin-averaging matrix on the last axis, the others moved there and back
        mat = Tensor._wrap(backend.xp.reshape(backend.from_host(rows, input._data.dtype),
                                              (o, size)), backend).transpose(0, 1)
        dim = input.ndim - n + axis
        y = (y.transpose(dim, -1) @ mat).transpose(dim, -1)
    return y


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling of ``(N, C, L)`` or ``(C, L)`` to ``output_size`` bins."""
    return _adaptive_avg(input, output_size, 1)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a fixed ``output_size`` (an int, a pair, ``None`` keeps a size).

    The average over a rectangle is separable, so it is one matmul per axis
    with a constant bin-averaging matrix.
    """
    return _adaptive_avg(input, output_size, 2)


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` to ``output_size``."""
    return _adaptive_avg(input, output_size, 3)


def _adaptive_max(input: Tensor, output_size: Any, n: int) -> tuple[Tensor, Tensor]:
    sizes, out = _adaptive_input(input, output_size, n, f"adaptive_max_pool{n}d")
    backend = input._backend
    xp = backend.xp
    x, unbatched = (input.unsqueeze(0), True) if input.ndim == n + 1 else (input, False)
    lead = tuple(x.shape[:2])
    i64 = backend.native_dtype(_dt.int64)
    if 0 in out:  # nothing to reduce: empty values (still linked to the input) and indices
        values = x.reshape(-1)[:0].reshape(*lead, *out)
        indices = Tensor._wrap(xp.zeros(lead + out, dtype=i64), backend)
        return _unbatch(values, unbatched), _unbatch(indices, unbatched)
    tables, widths = [], []
    y = x
    for axis, (size, o) in enumerate(zip(sizes, out)):
        bins = _bins(size, o)
        width = max(end - start for start, end in bins)
        # a short bin repeats its last element: the maximum (and its first position) stays
        table = [min(start + j, end - 1) for start, end in bins for j in range(width)]
        tables.append(backend.from_host(table, i64))
        widths.append(width)
        dim = 2 + 2 * axis  # every earlier axis is now two: (bins, width)
        y = y.index_select(dim, Tensor._wrap(tables[-1], backend))
        y = y.reshape(*y.shape[:dim], o, width, *y.shape[dim + 1:])
    perm = (0, 1) + tuple(2 + 2 * a for a in range(n)) + tuple(3 + 2 * a for a in range(n))
    y = y.permute(perm).reshape(*lead, *out, math.prod(widths))
    values, arg = y.max(dim=-1)
    flat = None
    a = arg._data
    for axis, off in enumerate(_unravel(xp, a, tuple(widths))):
        at = _grid(xp, out[axis], axis, n, a.dtype) * widths[axis] + off
        pos = xp.reshape(xp.take(tables[axis], xp.reshape(xp.broadcast_to(at, a.shape), (-1,))),
                         a.shape)
        flat = pos if flat is None else flat * sizes[axis] + pos
    return _unbatch(values, unbatched), _unbatch(Tensor._wrap(flat, backend), unbatched)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``(values, indices)`` of adaptive 1-D max pooling."""
    return _adaptive_max(input, output_size, 1)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``(values, indices)`` of adaptive 2-D max pooling; indices flat ``h * W + w``."""
    return _adaptive_max(input, output_size, 2)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size: Any,
                                     return_indices: bool = False) -> tuple[Tensor, Tensor]:
    """``(values, indices)`` of adaptive 3-D max pooling; indices flat per plane."""
    return _adaptive_max(input, output_size, 3)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max over ``output_size`` adaptive bins of ``(N, C, L)`` or ``(C, L)``."""
    values, indices = _adaptive_max(input, output_size, 1)
    return (values, indices) if return_indices else values


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max over adaptive bins to a fixed ``output_size`` (``None`` keeps a size)."""
    values, indices = _adaptive_max(input, output_size, 2)
    return (values, indices) if return_indices else values


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max over adaptive bins of ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""
    values, indices = _adaptive_max(input, output_size, 3)
    return (values, indices) if return_indices else values


# -- power-average pooling -----------------------------------------------------------------

def _lp_pool(input: Tensor, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool,
             n: int) -> Tensor:
    """PyTorch's formula: ``(sign(a) * relu(|a|) * prod(kernel)) ** (1 / p)`` with ``a`` the
    average of ``input ** p`` over each window."""
    kernel = _arg(kernel_size, "kernel_size", n, f"lp_pool{n}d")
    out = _avg_pool(input.pow(norm_type), kernel, stride, 0, ceil_mode, True, None, n)
    return (out.sign() * out.abs().relu() * math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """1-D power-average pooling: ``(sum over the window of x ** p) ** (1 / p)``."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """2-D power-average pooling: ``(sum over the window of x ** p) ** (1 / p)``."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> Tensor:
    """3-D power-average pooling: ``(sum over the window of x ** p) ** (1 / p)``."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


# -- max-unpooling --------------------------------------------------------------------------

def _unpool_size(input: Tensor, kernel: tuple[Any, ...], stride: tuple[Any, ...], padding: tuple[Any, ...],
                 output_size: Any) -> tuple[Any, ...]:
    """PyTorch's ``_unpool_output_size``: the default, or a checked explicit ``output_size``."""
    n = len(kernel)
    default = [(input.shape[input.ndim - n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        return tuple(default)
    output_size = [int(v) for v in output_size]
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, "
                         f"but it has a length of '{len(output_size)}'")
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f"{lo} and {hi})")
    return tuple(output_size)


@indexed_by("indices")
def _max_unpool(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any, padding: Any,
                output_size: Any, n: int) -> Tensor:
    op = f"max_unpool{n}d"
    kernel = _arg(kernel_size, "kernel_size", n, op)
    stride = kernel if stride is None else _arg(stride, "stride", n, op)
    padding = _arg(padding, "padding", n, op)
    if indices.dtype is not _dt.int64:
        raise RuntimeError(f"{op}: elements in indices should be type int64 but got: "
                           f"{indices.dtype}")
    if tuple(indices.shape) != tuple(input.shape):
        raise RuntimeError(f"{op}: Expected shape of indices to be same as that of the input "
                           f"tensor ({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    if input.ndim not in (n + 1, n + 2) or 0 in tuple(input.shape[-n - 1:]):
        raise RuntimeError(f"{op}: Expected {n + 1}D or {n + 2}D (batch mode) tensor for input "
                           f"with non-zero sizes for non-batch dimensions, but got: "
                           f"{list(input.shape)}")
    if min(stride) <= 0:
        raise RuntimeError(f"{op}: stride should be greater than zero, but got {list(stride)}")
    size = _unpool_size(input, kernel, stride, padding, output_size)
    plane = math.prod(size)
    xp = input._backend.xp
    found = index_range(indices._backend, indices._data)
    if found is not None:
        lo, hi = found
        if lo < 0 or hi >= plane:
            bad = lo if lo < 0 else hi
            raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                               f"{'x'.join(map(str, size))})")
    from arraygrad.creation import zeros

    lead = tuple(input.shape[:-n])
    flat_in = input.reshape(*lead, -1)
    base = zeros(*lead, plane, dtype=input.dtype, device=input.device)
    out = base.scatter(len(lead), indices.reshape(*lead, -1), flat_in)
    return out.reshape(*lead, *size)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """The partial inverse of ``max_pool1d``: each value back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """The partial inverse of ``max_pool2d``: each value back at its flat index, zeros
    elsewhere (``output_size`` picks among the sizes that pool to the input's)."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> Tensor:
    """The partial inverse of ``max_pool3d``: each value back at its flat index."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3)
