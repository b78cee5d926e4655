"""Reductions: ``sum``, ``mean``, ``prod``, ``max``/``min``, ``argmax``/``argmin``,
``var``/``std``, ``logsumexp``, ``norm``, ``cumsum``, ``all``/``any``.

All take ``dim`` (int, tuple or None; ``axis`` is an alias) and ``keepdim``.
Backward formulas put the reduced dimensions back with ``_unreduce``.
"""

from __future__ import annotations

import collections
import math

from arraygrad import dtypes as _dt
from arraygrad.ops._record import (
    OUTPUT, backward_node, normalize_dims, record, record_multi, to_float_data,
)
from arraygrad.ops import elementwise as ew
from arraygrad.tensor import Tensor

__all__ = [
    "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std",
    "logsumexp", "norm", "cumsum", "all", "any", "return_types",
]


class return_types:
    """Named results of reductions that return values and indices (``torch.return_types``)."""

    max = collections.namedtuple("max", ["values", "indices"])
    min = collections.namedtuple("min", ["values", "indices"])


def _dims(input: Tensor, dim, axis, op: str):
    if axis is not None:
        if dim is not None:
            raise TypeError(f"{op}: got both dim and axis")
        dim = axis
    return normalize_dims(dim, input._data.ndim, op)


def _unreduce(g: Tensor, shape: tuple, dims, keepdim: bool) -> Tensor:
    """``g`` (the gradient of a reduction) broadcast back to the input's ``shape``."""
    if dims is None:
        dims = tuple(range(len(shape)))
    if not keepdim and dims:
        g = g.reshape(tuple(1 if i in dims else n for i, n in enumerate(shape)))
    return g.expand(shape)


def _count(shape: tuple, dims) -> int:
    if dims is None:
        return math.prod(shape)
    return math.prod(shape[d] for d in dims)


def _axis(dims):
    return dims if dims is None or len(dims) != 1 else dims[0]


# -- sum / mean / prod --------------------------------------------------------

def _sum_backward(node, g):
    shape, dims, keepdim, native = node.args
    g = _unreduce(g, shape, dims, keepdim)
    return ew.to_native(g, native)


SumBackward0 = backward_node("SumBackward0", _sum_backward)
SumBackward1 = backward_node("SumBackward1", _sum_backward)


def sum(input, dim=None, keepdim=False, *, dtype=None, axis=None):  # noqa: A001
    """Sum over ``dim`` (all dims by default); integer and bool sums are int64."""
    dims = _dims(input, dim, axis, "sum")
    backend = input._backend
    d = dtype if dtype is not None else input.dtype
    if not d.is_floating_point and d is not _dt.int64 and dtype is None:
        d = _dt.int64
    native = backend.native_dtype(d)
    data = backend.xp.sum(input._data, axis=dims, keepdims=keepdim, dtype=native)
    cls = SumBackward0 if dims is None else SumBackward1
    return record(data, backend, cls, (input,),
                  args=(input._data.shape, dims, keepdim, input._data.dtype))


def _mean_backward(node, g):
    shape, dims, keepdim = node.args
    # divide the small gradient, then expand: the result stays a broadcast view
    return _unreduce(g / _count(shape, dims), shape, dims, keepdim)


MeanBackward0 = backward_node("MeanBackward0", _mean_backward)
MeanBackward1 = backward_node("MeanBackward1", _mean_backward)


def mean(input, dim=None, keepdim=False, *, dtype=None, axis=None):
    """Mean over ``dim`` (all dims by default); floating dtypes only, as in PyTorch."""
    dims = _dims(input, dim, axis, "mean")
    if dtype is not None:
        input = ew.to_dtype(input, dtype)
    if not input.dtype.is_floating_point:
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {input.dtype.name}")
    data = input._backend.xp.mean(input._data, axis=dims, keepdims=keepdim)
    cls = MeanBackward0 if dims is None else MeanBackward1
    return record(data, input._backend, cls, (input,), args=(input._data.shape, dims, keepdim))


def _prod_of_others(x: Tensor, dims) -> Tensor:
    """For each element, the product of the other elements of its slice over ``dims``.

    Computed without division, so it is right (and differentiable again) when a
    slice holds zeros: the reduced dims are moved last and flattened to ``n``,
    each element's row of ``n`` copies has its own position replaced by 1, and
    the rows are multiplied out (O(n^2), only used when there are zeros).
    """
    ndim = x.ndim
    if ndim == 0:
        return x * 0 + 1  # ones, in the graph
    red = tuple(range(ndim)) if dims is None else tuple(dims)
    kept = tuple(i for i in range(ndim) if i not in red)
    order = kept + red
    xt = x.permute(order)
    kept_shape = tuple(x.shape[i] for i in kept)
    red_shape = tuple(x.shape[i] for i in red)
    n = math.prod(red_shape)
    flat = xt.reshape(kept_shape + (n,))
    from arraygrad.creation import eye

    diag = eye(n, dtype=_dt.bool, device=x.device)
    rows = ew.where(diag, 1.0, flat.unsqueeze(-2).expand(kept_shape + (n, n)))
    others = prod(rows, dim=-1).reshape(kept_shape + red_shape)
    inverse = [0] * ndim
    for i, d in enumerate(order):
        inverse[d] = i
    return others.permute(tuple(inverse))


def _prod_backward(node, g):
    (x,) = node.saved_tensors
    shape, dims, keepdim = node.args
    g_full = _unreduce(g, shape, dims, keepdim)
    if not bool(any(x == 0)):
        # no zeros: the product of the others is prod / x
        out = prod(x, dim=dims, keepdim=True)
        return g_full * (out / x)
    return g_full * _prod_of_others(x, dims)


ProdBackward0 = backward_node("ProdBackward0", _prod_backward)
ProdBackward1 = backward_node("ProdBackward1", _prod_backward)


def prod(input, dim=None, keepdim=False, *, dtype=None, axis=None):
    """Product over ``dim`` (all dims by default)."""
    dims = _dims(input, dim, axis, "prod")
    backend = input._backend
    d = dtype if dtype is not None else input.dtype
    if not d.is_floating_point and dtype is None:
        d = _dt.int64
    data = backend.xp.prod(input._data, axis=dims, keepdims=keepdim, dtype=backend.native_dtype(d))
    cls = ProdBackward0 if dims is None else ProdBackward1
    return record(data, backend, cls, (input,), saved=(input,),
                  args=(input._data.shape, dims, keepdim))


# -- max / min --------------------------------------------------------------------

def _extreme_all_backward(node, g):
    x, out = node.saved_tensors
    # ties share the gradient evenly, as PyTorch's full max()/min() do
    mask = ew.to_native(x == out, x._data.dtype)
    return mask * (g / sum(mask))


MaxBackward1 = backward_node("MaxBackward1", _extreme_all_backward)
MinBackward1 = backward_node("MinBackward1", _extreme_all_backward)


def _extreme_dim_backward(node, g, _g_indices=None):
    (indices,) = node.saved_tensors
    shape, dim, keepdim = node.args
    if not keepdim:
        g = g.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    from arraygrad.creation import arange

    positions = arange(shape[dim], device=g.device).reshape(
        tuple(shape[dim] if i == dim else 1 for i in range(len(shape))))
    mask = ew.to_native(positions == indices, g._data.dtype)
    return g * mask


MaxBackward0 = backward_node("MaxBackward0", _extreme_dim_backward)
_ZeroDimMaxBackward = backward_node("MaxBackward0", lambda node, g: g)
_ZeroDimMinBackward = backward_node("MinBackward0", lambda node, g: g)
MinBackward0 = backward_node("MinBackward0", _extreme_dim_backward)


def _extreme(op: str, input, dim, keepdim, other, is_max: bool):
    if isinstance(dim, Tensor) and other is None:
        dim, other = None, dim
    if other is not None:
        return ew.maximum(input, other) if is_max else ew.minimum(input, other)
    xp = input._backend.xp
    if input.numel() == 0:
        raise RuntimeError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0."
                           if dim is None else f"{op}(): cannot reduce an empty dimension")
    if dim is None:
        data = (xp.max if is_max else xp.min)(input._data)
        return record(data, input._backend, MaxBackward1 if is_max else MinBackward1, (input,),
                      saved=(input, OUTPUT))
    dims = normalize_dims(dim, input._data.ndim, op)
    if not dims:  # 0-dim input: the value itself, at index 0
        values = xp.asarray(input._data, copy=True)
        indices = xp.zeros((), dtype=input._backend.native_dtype(_dt.int64))
        vals = record(values, input._backend,
                      _ZeroDimMaxBackward if is_max else _ZeroDimMinBackward, (input,))
        return (return_types.max if is_max else return_types.min)(
            vals, Tensor._wrap(indices, input._backend))
    d = dims[0]
    values = (xp.max if is_max else xp.min)(input._data, axis=d, keepdims=keepdim)
    indices = (xp.argmax if is_max else xp.argmin)(input._data, axis=d, keepdims=keepdim)
    indices = xp.astype(indices, input._backend.native_dtype(_dt.int64))
    index_t = Tensor._wrap(indices, input._backend)
    cls = MaxBackward0 if is_max else MinBackward0
    vals, idx = record_multi((values, indices), input._backend, cls, (input,), saved=(index_t,),
                             args=(input._data.shape, d, keepdim), differentiable=(True, False))
    return (return_types.max if is_max else return_types.min)(vals, idx)


def max(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """``max(x)``: the largest element; ``max(x, dim)``: ``(values, indices)``; ``max(x, y)``: elementwise."""
    return _extreme("max", input, dim, keepdim, other, True)


def min(input, dim=None, keepdim=False, *, other=None):  # noqa: A001
    """``min(x)``: the smallest element; ``min(x, dim)``: ``(values, indices)``; ``min(x, y)``: elementwise."""
    return _extreme("min", input, dim, keepdim, other, False)


def amax(input, dim=(), keepdim=False):
    """Maximum over ``dim`` (ties share the gradient evenly)."""
    return _amaxmin(input, dim, keepdim, True)


def amin(input, dim=(), keepdim=False):
    """Minimum over ``dim`` (ties share the gradient evenly)."""
    return _amaxmin(input, dim, keepdim, False)


def _amax_backward(node, g):
    x, out = node.saved_tensors
    shape, dims, keepdim = node.args
    out_full = _unreduce(out, shape, dims, keepdim)
    mask = ew.to_native(x == out_full, x._data.dtype)
    count = sum(mask, dim=dims, keepdim=True)
    return _unreduce(g, shape, dims, keepdim) * mask / count


AmaxBackward0 = backward_node("AmaxBackward0", _amax_backward)
AminBackward0 = backward_node("AminBackward0", _amax_backward)


def _amaxmin(input, dim, keepdim, is_max):
    dims = normalize_dims(dim, input._data.ndim, "amax" if is_max else "amin")
    xp = input._backend.xp
    data = (xp.max if is_max else xp.min)(input._data, axis=dims, keepdims=keepdim)
    return record(data, input._backend, AmaxBackward0 if is_max else AminBackward0, (input,),
                  saved=(input, OUTPUT), args=(input._data.shape, dims, keepdim))


def argmax(input, dim=None, keepdim=False):
    """Index of the largest element (flattened when ``dim`` is None)."""
    return _arg(input, dim, keepdim, True)


def argmin(input, dim=None, keepdim=False):
    """Index of the smallest element (flattened when ``dim`` is None)."""
    return _arg(input, dim, keepdim, False)


def _arg(input, dim, keepdim, is_max):
    xp = input._backend.xp
    fn = xp.argmax if is_max else xp.argmin
    if dim is None:
        data = fn(xp.reshape(input._data, (-1,)))
        if keepdim:
            data = xp.reshape(data, (1,) * input._data.ndim)
    else:
        dims = normalize_dims(dim, input._data.ndim, "argmax" if is_max else "argmin")
        if not dims:  # 0-dim input
            data = xp.zeros((), dtype=input._backend.native_dtype(_dt.int64))
        else:
            data = fn(input._data, axis=dims[0], keepdims=keepdim)
    return Tensor._wrap(xp.astype(data, input._backend.native_dtype(_dt.int64)), input._backend)


# -- var / std / logsumexp / norm -------------------------------------------------------

def _correction(unbiased, correction):
    if correction is not None:
        return correction
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


def _var_backward(node, g):
    (x,) = node.saved_tensors
    shape, dims, keepdim, corr = node.args
    centered = x - mean(x, dim=dims, keepdim=True)
    return _unreduce(g, shape, dims, keepdim) * centered * (2.0 / (_count(shape, dims) - corr))


VarBackward0 = backward_node("VarBackward0", _var_backward)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=None):
    """Variance over ``dim`` with Bessel's ``correction`` (1 by default)."""
    if isinstance(dim, bool):  # legacy positional form var(unbiased)
        dim, unbiased = None, dim
    dims = _dims(input, dim, axis, "var")
    corr = _correction(unbiased, correction)
    data = input._backend.xp.var(to_float_data(input), axis=dims, correction=corr, keepdims=keepdim)
    return record(data, input._backend, VarBackward0, (input,), saved=(input,),
                  args=(input._data.shape, dims, keepdim, corr))


def _std_backward(node, g):
    x, out = node.saved_tensors
    shape, dims, keepdim, corr = node.args
    centered = x - mean(x, dim=dims, keepdim=True)
    # 0 where the std is 0 (a single element, or equal ones), as PyTorch; g / 0 would be NaN
    scale = _unreduce(ew.where(out == 0, 0.0, g / ew.where(out == 0, 1.0, out)), shape, dims,
                      keepdim)
    return scale * centered / (_count(shape, dims) - corr)


StdBackward0 = backward_node("StdBackward0", _std_backward)


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=None):
    """Standard deviation over ``dim`` with Bessel's ``correction`` (1 by default)."""
    if isinstance(dim, bool):  # legacy positional form std(unbiased)
        dim, unbiased = None, dim
    dims = _dims(input, dim, axis, "std")
    corr = _correction(unbiased, correction)
    data = input._backend.xp.std(to_float_data(input), axis=dims, correction=corr, keepdims=keepdim)
    return record(data, input._backend, StdBackward0, (input,), saved=(input, OUTPUT),
                  args=(input._data.shape, dims, keepdim, corr))


def _logsumexp_backward(node, g):
    x, out = node.saved_tensors
    shape, dims, keepdim = node.args
    return _unreduce(g, shape, dims, keepdim) * ew.exp(x - _unreduce(out, shape, dims, keepdim))


LogsumexpBackward0 = backward_node("LogsumexpBackward0", _logsumexp_backward)


def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(x)))`` over ``dim``, computed without overflow."""
    dims = normalize_dims(dim, input._data.ndim, "logsumexp")
    xp = input._backend.xp
    x = to_float_data(input)
    m = xp.max(x, axis=dims, keepdims=True)
    m = xp.where(xp.isfinite(m), m, xp.zeros_like(m))
    data = xp.log(xp.sum(xp.exp(x - m), axis=dims, keepdims=True)) + m
    if not keepdim:
        data = xp.reshape(data, tuple(n for i, n in enumerate(x.shape)
                                      if i not in (dims or range(x.ndim))))
    return record(data, input._backend, LogsumexpBackward0, (input,), saved=(input, OUTPUT),
                  args=(input._data.shape, dims, keepdim))


def _norm_backward(node, g):
    x, out = node.saved_tensors
    shape, dims, keepdim, p = node.args
    g_full = _unreduce(g, shape, dims, keepdim)
    out_full = _unreduce(out, shape, dims, keepdim)
    if p == 2:
        return g_full * x / ew.where(out_full == 0, 1.0, out_full)
    if p == 1:
        return g_full * ew.sign(x)
    if math.isinf(p):
        mask = ew.to_native(ew.abs(x) == out_full, x._data.dtype)
        count = sum(mask, dim=dims, keepdim=True)
        return g_full * ew.sign(x) * mask / count
    if p == 0:
        return g_full * 0
    safe = ew.where(out_full == 0, 1.0, out_full)
    return g_full * x * ew.abs(x) ** (p - 2) / safe ** (p - 1)


NormBackward1 = backward_node("NormBackward1", _norm_backward)


def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector p-norm over ``dim`` (``"fro"``/2, 1, inf, -inf, 0 or any float)."""
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise RuntimeError(f"norm: unsupported norm type {p!r}")
    p = float(p)
    dims = normalize_dims(dim, input._data.ndim, "norm")
    if dtype is not None:
        input = ew.to_dtype(input, dtype)
    xp = input._backend.xp
    x = to_float_data(input)
    ax = dims
    a = xp.abs(x)
    if p == 2:
        data = xp.sqrt(xp.sum(x * x, axis=ax, keepdims=keepdim))
    elif p == 1:
        data = xp.sum(a, axis=ax, keepdims=keepdim)
    elif p == math.inf:
        data = xp.max(a, axis=ax, keepdims=keepdim)
    elif p == -math.inf:
        data = xp.min(a, axis=ax, keepdims=keepdim)
    elif p == 0:
        data = xp.sum(xp.astype(a != 0, x.dtype), axis=ax, keepdims=keepdim)
    else:
        data = xp.sum(a ** p, axis=ax, keepdims=keepdim) ** (1.0 / p)
    return record(data, input._backend, NormBackward1, (input,), saved=(input, OUTPUT),
                  args=(input._data.shape, dims, keepdim, p))


# -- cumsum / all / any ------------------------------------------------------------------

def _cumsum_backward(node, g):
    dim, native = node.args
    return ew.to_native(cumsum(g.flip(dim), dim).flip(dim), native)


CumsumBackward0 = backward_node("CumsumBackward0", _cumsum_backward)


def cumsum(input, dim, *, dtype=None):
    """Running sum along ``dim``; integer sums are int64."""
    dims = normalize_dims(dim, input._data.ndim, "cumsum")
    d = dims[0] if dims else 0
    backend = input._backend
    out_dtype = dtype or (input.dtype if input.dtype.is_floating_point else _dt.int64)
    x = input._data
    if x.ndim == 0:
        data = backend.xp.astype(x, backend.native_dtype(out_dtype))
    else:
        data = backend.xp.cumulative_sum(x, axis=d, dtype=backend.native_dtype(out_dtype))
    return record(data, backend, CumsumBackward0, (input,), args=(d, input._data.dtype))


def all(input, dim=None, keepdim=False):  # noqa: A001
    """Whether every element (along ``dim``) is true."""
    dims = normalize_dims(dim, input._data.ndim, "all")
    return Tensor._wrap(input._backend.xp.all(input._data, axis=dims, keepdims=keepdim),
                        input._backend)


def any(input, dim=None, keepdim=False):  # noqa: A001
    """Whether any element (along ``dim``) is true."""
    dims = normalize_dims(dim, input._data.ndim, "any")
    return Tensor._wrap(input._backend.xp.any(input._data, axis=dims, keepdims=keepdim),
                        input._backend)
