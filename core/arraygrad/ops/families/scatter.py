"""Scatter family: ``scatter``/``scatter_add``/``scatter_reduce``, ``index_add``/``index_copy``/
``index_fill``, ``masked_fill``/``masked_scatter``/``masked_select``, ``take``/``put``.

Every write is lowered to a ``LinearKey`` (the flat positions written, shaped like the
values written), so the forward is the backend's ``scatter_add`` and the backward is
reading at that key (``gather``) or zeroing at it; both are recorded Tensor ops, so
double backward works.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from arraygrad.ops.arguments import tensor_arg
from arraygrad import dtypes as _dt
from arraygrad.transform_state import hooks as _transform_hooks
from arraygrad.ops._linear_index import LinearKey, linear_key
from arraygrad.ops.indexing import (GATHER, _along_dim_key, _normalize_key, _put_linear, _take,
                                    _take_zeroed, getitem, index_put)
from arraygrad.ops.indexed_operands import indexed_by
from arraygrad.ops.families.masked_fill_rule import masked_fill_number
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.ops.value_checks import index_range
from arraygrad.transform_state import vmap_levels
from arraygrad.tensor import Tensor, _wrap_dim, wrap

if TYPE_CHECKING:
    from arraygrad.ops.rule import RuleNode

__all__ = ["scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_fill",
           "masked_fill", "masked_scatter", "masked_select", "take", "put"]


def _gathered(g: Tensor, n: RuleNode) -> Tensor:
    """The gradient read at the written positions (the written values' gradient)."""
    return _take(g, n.key, GATHER, True)


def _const(g: Tensor, data: Any) -> Tensor:
    """A constant (no-grad) tensor of ``g``'s backend holding ``data`` in ``g``'s dtype."""
    xp = g._backend.xp
    return wrap(xp.astype(data, g._data.dtype), g._backend)


# the values written replace the old ones: the old values' gradient is zero there
SCATTER = defop("ScatterBackward0", jvp=VIA_VJP, inputs=("self", "src"), params=("key",),
                vjp=(lambda g, n: _take_zeroed(g, n.key), _gathered), complex=True)
SCATTER_VALUE = defop("ScatterBackward1", jvp=VIA_VJP, params=("key",),
                      vjp=(lambda g, n: _take_zeroed(g, n.key),), complex=True)
# the values written add to the old ones (``base`` already zeroed where include_self=False)
SCATTER_ADD = defop("ScatterAddBackward0", jvp=VIA_VJP, inputs=("self", "src"), params=("key",),
                    vjp=(lambda g, n: g, _gathered), complex=True)
# mean: each target divided by how many values (``count``) reduced into it
SCATTER_MEAN = defop("ScatterReduceBackward0", jvp=VIA_VJP, key="ScatterReduceBackward0/mean",
                     inputs=("self", "src"), params=("key", "count"),
                     vjp=(lambda g, n: g / _const(g, n.count),
                          lambda g, n: _take(g / _const(g, n.count), n.key, GATHER, True)))
# amax/amin: the gradient goes to the values equal to the result, shared evenly between ties
SCATTER_EXTREMUM = defop(
    "ScatterReduceBackward0", jvp=VIA_VJP, key="ScatterReduceBackward0/extremum", inputs=("self", "src"),
    params=("key", "self_mask", "src_mask", "count"),
    vjp=(lambda g, n: g * _const(g, n.self_mask) / _const(g, n.count),
         lambda g, n: _take(g / _const(g, n.count), n.key, GATHER, True) * _const(g, n.src_mask)))


def _prod_self_vjp(g: Tensor, n: RuleNode) -> Tensor:
    """PyTorch's zero-safe formula: the product of the others is the result with ``self``'s
    zeros read as ones, divided by ``self`` (read the same way)."""
    if not n.include:
        return _take_zeroed(g, n.key)
    x = n.self
    masked = masked_fill(x, x == 0, 1)
    return g * _reduce_into(masked, n.key, n.src, "prod", True) / masked


def _prod_src_vjp(g: Tensor, n: RuleNode) -> Tensor:
    """The product of the others for each written value: ``result / src`` where ``src`` is
    nonzero, and where it is its target's only zero the product with it read as one
    (several zeros: zero, which ``result / 1`` gives)."""
    src, key = n.src, n.key
    xp, backend = src._backend.xp, src._backend
    zero = src._data == 0
    n_zeros = backend.scatter_add(xp.zeros((math.prod(key.shape),), dtype=xp.int64),
                                  key.flat(xp), xp.reshape(xp.astype(zero, xp.int64), (-1,)))
    single = wrap(zero & (xp.reshape(xp.take(n_zeros, key.flat(xp), axis=0),
                                     tuple(key.lin.shape)) == 1), backend)
    others = _reduce_into(n.self, key, masked_fill(src, single, 1), "prod", n.include)
    from arraygrad.ops.elementwise import where

    return where(single, _take(g * others, key, GATHER, True),
                 _take(g * n.result, key, GATHER, True) / masked_fill(src, wrap(zero, backend), 1))


# prod: the gradient is the product of the other values reduced into the same target
SCATTER_PROD = defop(
    "ScatterReduceBackward0", jvp=VIA_VJP, key="ScatterReduceBackward0/prod", inputs=("self", "src"),
    saves=("self", "src", "result"), params=("key", "include"),
    vjp=(_prod_self_vjp, _prod_src_vjp))


def _check_index(op: str, input: Tensor, dim: int, index: Any, src: Tensor | None) -> int:
    """Validate a scatter index as PyTorch does; returns the wrapped ``dim``."""
    if not isinstance(index, Tensor) or index.dtype not in (_dt.int64, _dt.int32):
        got = index.dtype if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index, got {got}")
    same_backend(op, input, index)
    nd = input._data.ndim
    d = _wrap_dim(dim, max(nd, 1), op)
    ishape = tuple(index._data.shape)
    if index._data.ndim != nd and not (index._data.ndim <= 1 and nd <= 1):
        raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions as "
                           f"self tensor ({index._data.ndim} vs {nd})")
    sshape = tuple(input._data.shape)
    bad = any(i > s for ax, (i, s) in enumerate(zip(ishape, sshape)) if ax != d)
    if src is not None:
        if src._data.ndim != index._data.ndim and not (src._data.ndim <= 1 and index._data.ndim <= 1):
            raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions as "
                               f"src tensor ({index._data.ndim} vs {src._data.ndim})")
        bad = bad or any(i > s for i, s in zip(ishape, src._data.shape))
    if bad:
        raise RuntimeError(
            f"{op}(): Expected index {list(ishape)} to be smaller than self {list(sshape)} apart "
            f"from dimension {d}" + (f" and to be smaller size than src {list(src.shape)}"
                                     if src is not None else ""))
    found = index_range(index._backend, index._data)
    if found is not None:
        size = sshape[d] if nd else 1
        lo, hi = found
        if lo < 0 or hi >= size:
            raise RuntimeError(f"{op}(): index {hi if hi >= size else lo} is out of bounds for "
                               f"dimension {d} with size {size}")
    return d


def _scatter_key(input: Tensor, d: int, index: Tensor) -> LinearKey:
    xp = input._backend.xp
    if input._data.ndim == 0:  # a 0-d self: one position
        return LinearKey(xp.zeros(tuple(index._data.shape), dtype=xp.int64), ())
    return linear_key(xp, tuple(input._data.shape), _along_dim_key(input, index, d))


def _src_part(src: Tensor, index: Tensor) -> Tensor:
    """``src`` cut to ``index``'s shape (PyTorch reads only that corner of ``src``)."""
    if tuple(src._data.shape) == tuple(index._data.shape):
        return src
    return getitem(src, tuple(slice(0, n) for n in index._data.shape))


def _same_dtype(op: str, input: Tensor, src: Tensor) -> None:
    if src.dtype is not input.dtype:
        raise RuntimeError(f"{op}(): Expected self.dtype to be equal to src.dtype "
                           f"({input.dtype} vs {src.dtype})")


def _put(input: Tensor, key: LinearKey, values: Tensor, rule: Any = SCATTER) -> Tensor:
    """``input`` with ``values`` written at ``key`` (recorded with ``rule``)."""
    backend = input._backend
    xp = backend.xp
    vals = xp.broadcast_to(values._data, tuple(key.lin.shape))
    # where a position is written twice, the last write wins (PyTorch leaves it undefined;
    # adding them up, as the scatter-add underneath would, is never what is meant)
    vals = xp.where(_last_writes(xp, backend, key), vals, xp.zeros_like(vals))
    data = _put_linear(backend, input._data, key, vals)
    return rule.record(data, backend, (input, values), key=key)


def _last_writes(xp: Any, backend: Any, key: LinearKey) -> Any:
    """A key-shaped mask: True at the last of the writes to each position."""
    flat = key.flat(xp)
    k = flat.shape[0]
    if k < 2:
        return xp.ones(tuple(key.lin.shape), dtype=xp.bool)
    order = xp.argsort(flat, stable=True)
    t = xp.take(flat, order, axis=0)
    last = xp.concat([t[1:] != t[:-1], xp.ones((1,), dtype=xp.bool)])
    mark = backend.scatter_add(xp.zeros((k,), dtype=xp.int64), order, xp.astype(last, xp.int64))
    return xp.reshape(mark > 0, tuple(key.lin.shape))


def _add(input: Tensor, key: LinearKey, values: Tensor) -> Tensor:
    """``input`` with ``values`` added at ``key`` (repeats accumulate)."""
    backend = input._backend
    xp = backend.xp
    flat = xp.reshape(xp.asarray(input._data, copy=True), (-1,))
    data = xp.reshape(key.add_into(xp, backend, flat, values._data), tuple(input._data.shape))
    return SCATTER_ADD.record(data, backend, (input, values), key=key)


def _fill(input: Tensor, key: LinearKey, value: Any) -> Tensor:
    """``input`` with the number ``value`` written at ``key``."""
    backend = input._backend
    xp = backend.xp
    # counted in the default integer type: a complex count has no order for ``> 0``
    hit = xp.reshape(key.hits(xp, backend, backend.native_dtype(_dt.int64)) > 0,
                     tuple(input._data.shape))
    fill = xp.asarray(value, dtype=input._data.dtype)
    data = xp.where(hit, fill, input._data)
    return SCATTER_VALUE.record(data, backend, (input,), key=key)


def _number(op: str, value: Any) -> Any:
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"{op}(): only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._data.ndim} dimension(s)")
        return value.item()
    return value


@indexed_by("index", "src", "value")
def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, value: Any = None, *,
            reduce: str | None = None) -> Tensor:
    """``out[index[i][j]][j] = src[i][j]`` (for ``dim=0``), as ``torch.scatter``.

    ``src`` may be a number (PyTorch's ``value`` overload). ``reduce="add"``/``"multiply"``
    is the deprecated form of ``scatter_reduce``.
    """
    tensor_arg("scatter", input)
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    if reduce is not None and reduce not in ("add", "multiply"):
        raise RuntimeError(f"scatter(): reduce argument must be either add or multiply, got {reduce}")
    if not isinstance(src, Tensor):
        d = _check_index("scatter", input, dim, index, None)
        key = _scatter_key(input, d, index)
        if reduce is not None:
            from arraygrad.creation import full

            s = full(tuple(index.shape), src, dtype=input.dtype, device=input.device)
            return scatter_reduce(input, d, index, s, "sum" if reduce == "add" else "prod")
        return _fill(input, key, _number("scatter", src))
    same_backend("scatter", input, src)
    _same_dtype("scatter", input, src)
    d = _check_index("scatter", input, dim, index, src)
    if reduce is not None:
        return scatter_reduce(input, d, index, src, "sum" if reduce == "add" else "prod")
    return _put(input, _scatter_key(input, d, index), _src_part(src, index))


@indexed_by("index", "src")
def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """``out[index[i][j]][j] += src[i][j]`` (for ``dim=0``), repeats accumulating."""
    tensor_arg("scatter_add", input)
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' must be Tensor, not {type(src).__name__}")
    same_backend("scatter_add", input, src)
    _same_dtype("scatter_add", input, src)
    d = _check_index("scatter_add", input, dim, index, src)
    return _add(input, _scatter_key(input, d, index), _src_part(src, index))


_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _segments(xp: Any, backend: Any, n: int, lin: Any, vals: Any, reduce: str) -> Any:
    """Per target ``0..n-1``, ``reduce`` of the ``vals`` whose flat target is ``lin``.

    The standard has no scatter-max; the values are sorted by target, ranked within
    their target, and laid out densely (``n`` rows, as many columns as the most values
    one target gets; the gaps hold the reduction's identity) to reduce along a row.
    """
    dtype = vals.dtype
    ident: float
    if reduce == "prod":
        ident = 1
    elif xp.isdtype(dtype, "real floating"):
        ident = -math.inf if reduce == "amax" else math.inf
    else:
        info = xp.iinfo(dtype)
        ident = info.min if reduce == "amax" else info.max
    k = lin.shape[0]
    hits = backend.scatter_add(xp.zeros((n,), dtype=xp.int64), lin, xp.ones((k,), dtype=xp.int64))
    # without values (meta) any width gives the result's shape
    m = (int(xp.max(hits)) if backend.holds_data else 1) if k and n else 0
    if m == 0:
        return xp.full((n,), ident, dtype=dtype)
    order = xp.argsort(lin, stable=True)
    t = xp.take(lin, order, axis=0)
    v = xp.take(vals, order, axis=0)
    starts = xp.cumulative_sum(hits) - hits
    rank = xp.arange(k, dtype=xp.int64) - xp.take(starts, t, axis=0)
    slot = t * m + rank
    placed = backend.scatter_add(xp.zeros((n * m,), dtype=dtype), slot, v)
    filled = backend.scatter_add(xp.zeros((n * m,), dtype=xp.int64), slot,
                                 xp.ones((k,), dtype=xp.int64)) > 0
    dense = xp.reshape(xp.where(filled, placed, xp.asarray(ident, dtype=dtype)), (n, m))
    if reduce == "prod":
        return xp.prod(dense, axis=1, dtype=dtype)
    return xp.max(dense, axis=1) if reduce == "amax" else xp.min(dense, axis=1)


def _reduce_into(input: Tensor, key: LinearKey, src: Tensor, reduce: str,
                 include_self: bool) -> Tensor:
    """``input`` with each position ``key`` hits reduced with the values written there."""
    backend = input._backend
    xp = backend.xp
    shape = tuple(input._data.shape)
    n = math.prod(shape)
    hits = xp.reshape(key.hits(xp, backend, xp.int64), shape)
    hit = hits > 0
    base = input if include_self else _take_zeroed(input, key)
    if reduce == "sum":
        return _add(base, key, src)
    if reduce == "mean":
        count = hits + (1 if include_self else 0)
        count = xp.where(count == 0, xp.ones_like(count), count)
        total = _add(base, key, src)
        data = total._data
        if xp.isdtype(data.dtype, "integral"):
            data = data // xp.astype(count, data.dtype)
        else:
            data = data / xp.astype(count, data.dtype)
        return SCATTER_MEAN.record(data, backend, (base, src), key=key, count=count)
    red = xp.reshape(_segments(xp, backend, n, key.flat(xp), xp.reshape(src._data, (-1,)), reduce),
                     shape)
    if reduce == "prod":
        data = xp.where(hit, red * input._data if include_self else red, input._data)
        return SCATTER_PROD.record(data, backend, (input, src), key=key, include=include_self)
    if include_self:
        red = xp.maximum(red, input._data) if reduce == "amax" else xp.minimum(red, input._data)
    data = xp.where(hit, red, input._data)
    self_mask = (input._data == data) & (xp.logical_not(hit) | include_self)
    src_mask = src._data == key.take(xp, data)
    ties = backend.scatter_add(xp.zeros((n,), dtype=xp.int64), key.flat(xp),
                               xp.astype(xp.reshape(src_mask, (-1,)), xp.int64))
    count = xp.reshape(ties, shape) + xp.astype(self_mask, xp.int64)
    count = xp.where(count == 0, xp.ones_like(count), count)
    return SCATTER_EXTREMUM.record(data, backend, (input, src), key=key, self_mask=self_mask,
                                   src_mask=src_mask, count=count)


@indexed_by("index", "src")
def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """``src`` reduced into ``input`` at ``index`` along ``dim`` with ``reduce`` ("sum",
    "prod", "mean", "amax", "amin"); ``include_self=False`` leaves the old values of the
    positions written out of the reduction."""
    if reduce not in _REDUCES:
        raise RuntimeError(f"scatter_reduce(): reduce argument must be either sum, prod, mean, "
                           f"amax or amin, got {reduce}")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' must be Tensor, not {type(src).__name__}")
    same_backend("scatter_reduce", input, src)
    _same_dtype("scatter_reduce", input, src)
    d = _check_index("scatter_reduce", input, dim, index, src)
    return _reduce_into(input, _scatter_key(input, d, index), _src_part(src, index), reduce,
                        include_self)


def _index_key(op: str, input: Tensor, dim: int, index: Any) -> tuple[int, LinearKey]:
    """The key of ``index`` (1-D, int64/int32, in range) along ``dim`` and all of the rest."""
    if not isinstance(index, Tensor) or index.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")
    same_backend(op, input, index)
    if index._data.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    nd = max(input._data.ndim, 1)
    d = _wrap_dim(dim, nd, op)
    if input._data.ndim == 0:
        x = input.reshape(1)
    else:
        x = input
    size = x._data.shape[d]
    xp = input._backend.xp
    found = index_range(index._backend, index._data)
    if found is not None:
        # as PyTorch: index_fill counts negative indices from the end, the others refuse
        # them; index_add reports a RuntimeError, index_copy/index_fill an IndexError
        low = -size if op == "index_fill" else 0
        lo, hi = found
        if lo < low or hi >= size:
            err = RuntimeError if op == "index_add" else IndexError
            raise err(f"{op}(): index {hi if hi >= size else lo} is out of bounds for "
                      f"dimension {d} with size {size}")
    key, _ = _normalize_key(x, (slice(None),) * d + (index.reshape(-1),))
    if input._data.ndim == 0:
        key = LinearKey(xp.reshape(key.lin, tuple(index.reshape(-1)._data.shape)), ())
    return d, key


def _check_source(op: str, input: Tensor, key: LinearKey, source: Tensor) -> None:
    if not isinstance(source, Tensor):
        raise TypeError(f"{op}(): argument 'source' must be Tensor, not {type(source).__name__}")
    same_backend(op, input, source)
    _same_dtype(op, input, source)
    if tuple(source._data.shape) != tuple(key.lin.shape) and source.numel() != key.lin.size:
        raise RuntimeError(f"{op}(): source tensor shape {list(source.shape)} must match self "
                           f"shape {list(input.shape)} apart from the indexed dimension "
                           f"(expected {list(key.lin.shape)})")


@indexed_by("index", "source")
def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """``input`` with ``alpha * source`` added at ``index`` along ``dim`` (repeats accumulate)."""
    _, key = _index_key("index_add", input, dim, index)
    _check_source("index_add", input, key, source)
    src = source.reshape(tuple(key.lin.shape))
    if alpha != 1:
        src = src * alpha
    return _add(input, key, src)


@indexed_by("index", "source")
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """``input`` with ``source`` written at ``index`` along ``dim``."""
    _, key = _index_key("index_copy", input, dim, index)
    _check_source("index_copy", input, key, source)
    return _put(input, key, source.reshape(tuple(key.lin.shape)))


@indexed_by("index", "value")
def index_fill(input: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    """``input`` with the number ``value`` written at ``index`` along ``dim``."""
    _, key = _index_key("index_fill", input, dim, index)
    return _fill(input, key, _number("index_fill", value))


def _mask(op: str, input: Tensor, mask: Any) -> Tensor:
    if not isinstance(mask, Tensor) or mask.dtype is not _dt.bool:
        got = mask.dtype if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"{op}(): expected mask dtype to be Bool but got {got}")
    same_backend(op, input, mask)
    return mask


def _broadcast_shape(op: str, a: tuple[Any, ...], b: tuple[Any, ...]) -> tuple[Any, ...]:
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and 1 not in (x, y):
            raise RuntimeError(f"{op}(): The size of tensor a ({x}) must match the size of "
                               f"tensor b ({y}) at non-singleton dimension {max(len(a), len(b)) - i}")
        out.append(max(x, y) if 0 not in (x, y) else 0)
    return tuple(reversed(out))


def _fitting_mask(op: str, input: Tensor, mask: Tensor) -> Tensor:
    """``mask``, checked to broadcast to ``input``'s shape (which it may not grow)."""
    shape = _broadcast_shape(op, tuple(input._data.shape), tuple(mask._data.shape))
    if shape != tuple(input._data.shape):
        raise RuntimeError(f"{op}(): mask of shape {list(mask.shape)} cannot be broadcast to "
                           f"self of shape {list(input.shape)}")
    return mask


def _expanded(mask: Tensor, input: Tensor) -> Tensor:
    shape = tuple(input._data.shape)
    return mask.expand(*shape) if tuple(mask._data.shape) != shape else mask


def _full_mask(op: str, input: Tensor, mask: Tensor) -> Tensor:
    """``mask`` broadcast to ``input``'s shape (which it may not grow)."""
    return _expanded(_fitting_mask(op, input, mask), input)


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """``input`` with ``value`` where ``mask`` (broadcast to ``input``) is True."""
    mask = _fitting_mask("masked_fill", input, _mask("masked_fill", input, mask))
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"masked_fill(): only supports a 0-dimensional value tensor, "
                               f"but got tensor with {value._data.ndim} dimension(s)")
    # the recorded op where(mask, value, input): a value that requires grad (a second input),
    # inside vmap (mask and input may sit at different batch levels, which the array-level
    # rule does not lift), while recording (compile and ONNX export see the Tensor op), and
    # on the meta and lazy backends, as before the one-node rule
    backend = input._backend
    if vmap_levels or _transform_hooks.arrays_only or (
            isinstance(value, Tensor) and value.requires_grad) \
            or not backend.holds_data or backend.lazy:
        from arraygrad.ops.elementwise import where

        fill = (value.to(input.dtype) if isinstance(value, Tensor) else
                input.new_full((), _number("masked_fill", value)))
        return where(_expanded(mask, input), fill, input)
    # the mask as given: the array-level where broadcasts it (no expanded view to make)
    return masked_fill_number(input, mask, _number("masked_fill", value))


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The 1-D tensor of ``input``'s entries where ``mask`` is True (both broadcast)."""
    mask = _mask("masked_select", input, mask)
    shape = _broadcast_shape("masked_select", tuple(input._data.shape), tuple(mask._data.shape))
    x = input.expand(*shape) if tuple(input._data.shape) != shape else input
    m = mask.expand(*shape) if tuple(mask._data.shape) != shape else mask
    return getitem(x.reshape(-1), m.reshape(-1))


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``input`` with the first entries of ``source`` (in order) where ``mask`` is True."""
    mask = _full_mask("masked_scatter", input, _mask("masked_scatter", input, mask))
    if not isinstance(source, Tensor):
        raise TypeError(f"masked_scatter(): argument 'source' must be Tensor, "
                        f"not {type(source).__name__}")
    same_backend("masked_scatter", input, source)
    _same_dtype("masked_scatter", input, source)
    if not input._backend.holds_data and source.numel():
        # meta: which entries of source land where is in the mask's values; one of them
        # everywhere gives the result's shape and the gradients' (source's own, input's)
        from arraygrad.ops.elementwise import where

        return where(mask, source.reshape(-1)[0], input)
    key, _ = _normalize_key(input, (mask,))
    k = key.lin.shape[0]
    if source.numel() < k:
        raise RuntimeError(f"masked_scatter(): Number of elements of source < number of ones "
                           f"in mask ({source.numel()} < {k})")
    return _put(input, key, getitem(source.reshape(-1), slice(0, k)))


def _flat_key(op: str, input: Tensor, index: Any) -> LinearKey:
    if not isinstance(index, Tensor) or index.dtype is not _dt.int64:
        raise RuntimeError(f"{op}(): Expected a long tensor for index")
    same_backend(op, input, index)
    n = input.numel()
    xp = input._backend.xp
    found = index_range(index._backend, index._data)
    if found is not None:
        lo, hi = found
        if lo < -n or hi >= n:
            bad = hi if hi >= n else lo
            raise IndexError(f"{op}(): out of range: tried to access index {bad} on a tensor of "
                             f"{n} elements.")
    if not n:
        raise IndexError(f"{op}(): tried to access index on an empty tensor")
    lin = xp.astype(index._data, xp.int64)
    return LinearKey(xp.where(lin < 0, lin + n, lin), tuple(input._data.shape))


@indexed_by("index")
def take(input: Tensor, index: Tensor) -> Tensor:
    """``input`` read as 1-D at ``index`` (negative indices count from the end)."""
    if isinstance(index, Tensor) and index.numel() == 0 and index.dtype is _dt.int64:
        return getitem(input.reshape(-1), index)
    key = _flat_key("take", input, index)
    return _take(input, key, GATHER, True)


@indexed_by("index", "source")
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``source`` written (or added, ``accumulate=True``) at the flat ``index``."""
    if not isinstance(source, Tensor):
        raise TypeError(f"put(): argument 'source' must be Tensor, not {type(source).__name__}")
    same_backend("put", input, source)
    _same_dtype("put", input, source)
    if isinstance(index, Tensor) and index.numel() != source.numel():
        raise RuntimeError(f"put(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {source.numel()}, "
                           f"index.numel() = {index.numel()}")
    if index.numel() == 0:
        return input.clone()
    key = _flat_key("put", input, index)
    src = source.reshape(tuple(key.lin.shape))
    return _add(input, key, src) if accumulate else _put(input, key, src)


@indexed_by("indices", "values")
def index_put_(input: Tensor, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
    """``input`` with ``values`` written (or added, ``accumulate=True``) at ``indices`` (a tuple
    of index tensors, as ``input[indices] = values``)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    key = tuple(indices)
    if not accumulate:
        return index_put(input, key, values)
    norm, advanced = _normalize_key(input, key)
    if not isinstance(values, Tensor):
        from arraygrad.ops.arguments import as_tensor_like

        values = as_tensor_like(values, input, "index_put")
    if not advanced:
        from arraygrad.ops.indexing import index_add_into

        picked = tuple(input._data[norm].shape)
        return input + index_add_into(values.to(input.dtype).expand(*picked),
                                      tuple(input._data.shape), norm, False)
    vals = values.to(input.dtype)
    if tuple(vals._data.shape) != tuple(norm.lin.shape):
        vals = vals.expand(*norm.lin.shape)
    return _add(input, norm, vals)


def _index_put_fn(input: Tensor, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
    """``torch.index_put``: out-of-place ``input[indices] = values`` (or ``+=``)."""
    return index_put_(input, indices, values, accumulate)


FUNCTIONS = {"scatter": scatter, "scatter_add": scatter_add, "scatter_reduce": scatter_reduce,
             "index_add": index_add, "index_copy": index_copy, "index_fill": index_fill,
             "masked_fill": masked_fill, "masked_scatter": masked_scatter,
             "masked_select": masked_select, "take": take, "put": put,
             "index_put": _index_put_fn}
METHODS = dict(FUNCTIONS)
INPLACE = {name + "_": fn for name, fn in FUNCTIONS.items() if name not in ("masked_select", "take")}
