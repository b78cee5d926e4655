"""Sorting and order statistics: ``sort``, ``argsort``, ``msort``, ``topk``, ``kthvalue``,
``median``, ``nanmedian``, ``mode``, ``quantile``, ``nanquantile``.

Orders come from the Array API's ``argsort`` (``stable=True`` always: PyTorch's order for
``stable=True``, and a valid one otherwise; NaN sorts as the largest value, as in PyTorch).
The values are the input read at the chosen positions through a rule (``_select.pick``)
whose backward adds the gradient back at those positions, so double backward works.
``median()``/``nanmedian()`` over all elements share the gradient evenly among the elements
equal to the result, as PyTorch's do. ``quantile`` is built from ``sort`` and ``gather``.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.ops import elementwise as ew
from arraygrad.ops.casting import to_native
from arraygrad.ops.complex_checks import refuse_complex_forward
from arraygrad.ops.families._select import int64, moved_last, named, pick, pick_rule, wrap_dim
from arraygrad.ops.indexing import gather
from arraygrad.ops.reduction import sum as _sum
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.ops.value_checks import any_true
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.ops.rule import RuleNode

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode",
           "quantile", "nanquantile"]

SORT = pick_rule("SortBackward0")
TOPK = pick_rule("TopkBackward0")
KTHVALUE = pick_rule("KthvalueBackward0")
MEDIAN_DIM = pick_rule("MedianBackward1")
NANMEDIAN_DIM = pick_rule("NanmedianBackward1")
MODE = pick_rule("ModeBackward0")


def _tensor(input: Any, op: str) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")


def _order(input: Tensor, d: int, descending: bool) -> Any:
    """Stable argsort of ``input`` (seen as at least 1-D) along ``d``, int64."""
    xp = input._backend.xp
    data = input._data if input._data.ndim else xp.reshape(input._data, (1,))
    return xp.astype(xp.argsort(data, axis=d, descending=bool(descending), stable=True),
                     int64(input))


_NO_COMPLEX_SORT = " Sort does not support complex dtypes on CPU"  # PyTorch's words


def sort(input: Tensor, dim: int = -1, descending: bool = False, *,
         stable: bool | None = False) -> Any:
    """``(values, indices)`` of ``input`` sorted along ``dim`` (NaN counts as largest)."""
    _tensor(input, "sort")
    refuse_complex_forward("sort", input, error=RuntimeError, message=_NO_COMPLEX_SORT)
    d = wrap_dim(dim, input, "sort")
    return pick(SORT, input, _order(input, d, descending), d, True, named("sort"))


def argsort(input: Tensor, dim: int = -1, descending: bool = False, *,
            stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along ``dim``."""
    _tensor(input, "argsort")
    refuse_complex_forward("argsort", input, error=RuntimeError, message=_NO_COMPLEX_SORT)
    d = wrap_dim(dim, input, "argsort")
    idx = _order(input, d, descending)
    xp = input._backend.xp
    return Tensor._wrap(xp.reshape(idx, tuple(input._data.shape)), input._backend)


def msort(input: Tensor) -> Tensor:
    """``input`` sorted along its first dimension (the values of ``sort(input, 0)``)."""
    return sort(input, 0).values


def _size(input: Tensor, d: int) -> int:
    return int(input._data.shape[d]) if input._data.ndim else 1


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True,
         sorted: bool = True) -> Any:
    """The ``k`` largest (``largest=False``: smallest) elements along ``dim``, as
    ``(values, indices)``; always in sorted order (a valid order for ``sorted=False``)."""
    check_kernel_dtype("topk", input)
    _tensor(input, "topk")
    d = wrap_dim(dim, input, "topk")
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"topk(): argument 'k' must be int, not {type(k).__name__}")
    if not 0 <= k <= _size(input, d):
        raise RuntimeError(f"topk(): selected index k out of range (k={k}, dimension {d} of "
                           f"size {_size(input, d)} in input of shape {list(input.shape)})")
    idx = _order(input, d, largest)
    idx = idx[(slice(None),) * d + (slice(0, k), ...)]
    return pick(TOPK, input, idx, d, True, named("topk"))


def _at(idx: Any, d: int, position: int) -> Any:
    """``idx`` at ``position`` along ``d``, which is kept (size 1)."""
    return idx[(slice(None),) * d + (slice(position, position + 1), ...)]


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """The ``k``-th smallest element (1-based) along ``dim``, as ``(values, indices)``."""
    check_kernel_dtype("kthvalue", input)
    _tensor(input, "kthvalue")
    d = wrap_dim(dim, input, "kthvalue")
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"kthvalue(): argument 'k' must be int, not {type(k).__name__}")
    if _size(input, d) == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= _size(input, d):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d} "
                           f"(k={k}, size {_size(input, d)})")
    idx = _order(input, d, False)
    return pick(KTHVALUE, input, _at(idx, d, k - 1), d, keepdim, named("kthvalue"))


def _median_positions(input: Tensor, d: int, ignore_nan: bool) -> Any:
    """For each slice along ``d``: the sort order and the position (in it) of the lower
    median (of the non-NaN values for ``ignore_nan``; else the first NaN where there is one)."""
    xp = input._backend.xp
    data = input._data if input._data.ndim else xp.reshape(input._data, (1,))
    order = _order(input, d, False)
    n = int(data.shape[d])
    if n == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    nan = xp.isnan(data) if xp.isdtype(data.dtype, "real floating") else \
        xp.zeros(data.shape, dtype=xp.bool)
    valid = xp.sum(xp.astype(~nan, int64(input)), axis=d, keepdims=True)
    if ignore_nan:
        position = xp.where(valid > 0, (valid - 1) // 2, xp.zeros_like(valid))
    else:
        position = xp.where(valid < n, valid, xp.full_like(valid, (n - 1) // 2))
    return order, position


def _median_dim(input: Tensor, dim: int, keepdim: bool, ignore_nan: bool) -> Any:
    op = "nanmedian" if ignore_nan else "median"
    d = wrap_dim(dim, input, op)
    xp = input._backend.xp
    order, position = _median_positions(input, d, ignore_nan)
    idx = xp.take_along_axis(order, position, axis=d)
    return pick(NANMEDIAN_DIM if ignore_nan else MEDIAN_DIM, input, idx, d, keepdim,
                named(op))


def _evenly(g: Tensor, n: RuleNode) -> Tensor:
    """PyTorch's ``evenly_distribute_backward``: ``g`` shared among the elements equal to
    the result (the NaNs when the result is NaN)."""
    x, r = n.self, n.result
    hit = ew.logical_or(x == r, ew.logical_and(ew.isnan(x), ew.isnan(r)))
    mask = to_native(hit, x._data.dtype)
    return mask * (g / _sum(mask))


MEDIAN_ALL = defop("MedianBackward0", jvp=VIA_VJP, saves=("self", "result"), vjp=(_evenly,))
NANMEDIAN_ALL = defop("NanmedianBackward0", jvp=VIA_VJP, saves=("self", "result"), vjp=(_evenly,))


def _median_all(input: Tensor, ignore_nan: bool) -> Tensor:
    xp = input._backend.xp
    if input.numel() == 0:
        # PyTorch: NaN for an empty input
        data = xp.full((), math.nan, dtype=input._data.dtype)
    else:
        flat = Tensor._wrap(xp.reshape(input._data, (-1,)), input._backend)
        order, position = _median_positions(flat, 0, ignore_nan)
        at = xp.take(order, xp.reshape(position, (-1,)), axis=0)
        data = xp.reshape(xp.take(xp.reshape(input._data, (-1,)), at, axis=0), ())
    rule = NANMEDIAN_ALL if ignore_nan else MEDIAN_ALL
    return rule.record(data, input._backend, (input,))


def median(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """The lower median: of all elements (a tensor) or along ``dim`` (``(values, indices)``).
    NaN where a slice holds NaN."""
    check_kernel_dtype("median", input)
    _tensor(input, "median")
    if dim is None:
        return _median_all(input, False)
    return _median_dim(input, dim, keepdim, False)


def nanmedian(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    """``median`` ignoring NaN (NaN only where a slice is all NaN)."""
    _tensor(input, "nanmedian")
    if dim is None:
        return _median_all(input, True)
    return _median_dim(input, dim, keepdim, True)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """The most frequent value along ``dim`` (the smallest among equally frequent ones) and
    the index of its last occurrence, as ``(values, indices)``."""
    _tensor(input, "mode")
    d = wrap_dim(dim, input, "mode")
    xp = input._backend.xp
    data = input._data if input._data.ndim else xp.reshape(input._data, (1,))
    n = int(data.shape[d])
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    x = moved_last(xp, data, d)                                   # (..., n)
    same = xp.expand_dims(x, axis=-1) == xp.expand_dims(x, axis=-2)  # (..., n, n)
    counts = xp.sum(xp.astype(same, int64(input)), axis=-1)       # (..., n)
    top = xp.max(counts, axis=-1, keepdims=True)
    frequent = counts == top
    # the smallest of the most frequent values: order by value, take the first frequent one
    order = xp.argsort(x, axis=-1, stable=True)
    freq_sorted = xp.take_along_axis(frequent, order, axis=-1)
    first = xp.argmax(xp.astype(freq_sorted, xp.int8), axis=-1, keepdims=True)
    value = xp.take_along_axis(x, xp.take_along_axis(order, first, axis=-1), axis=-1)
    # its last occurrence
    positions = xp.arange(n, dtype=int64(input))
    hit = x == value
    last = xp.max(xp.where(hit, positions, xp.full_like(positions, -1)), axis=-1,
                  keepdims=True)
    idx = xp.astype(last, int64(input))
    axes = list(range(idx.ndim - 1))
    axes.insert(d, idx.ndim - 1)
    idx = xp.permute_dims(idx, tuple(axes))
    return pick(MODE, input, idx, d, keepdim, named("mode"))


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(op: str, input: Tensor, q: Any, dim: Any, keepdim: bool, interpolation: str,
              ignore_nan: bool) -> Tensor:
    _tensor(input, op)
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    backend = input._backend
    xp = backend.xp
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        qs = xp.asarray([float(q)], dtype=input._data.dtype)
    else:
        if q._data.ndim > 1:
            raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
        if q.dtype != input.dtype:
            raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
        qs = xp.reshape(q._data, (-1,))
    if any_true(input._backend, (qs < 0) | (qs > 1)):
        raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
    if input.numel() == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    x = input
    if dim is None:
        x = input.reshape(-1)
        d = 0
    else:
        d = wrap_dim(dim, input, op)
        if x._data.ndim == 0:
            x = x.reshape(1)
    nd = x._data.ndim
    n = int(x._data.shape[d])
    sorted_x = sort(x, d).values                                  # NaN last
    data = x._data
    nan = xp.isnan(data)
    valid = xp.sum(xp.astype(~nan, data.dtype), axis=d, keepdims=True)  # (.., 1, ..)
    if not ignore_nan:
        # any NaN: every quantile of the slice is NaN (read the last, a NaN)
        valid = xp.where(valid < n, xp.zeros_like(valid), valid)
    qshape = (-1,) + (1,) * nd
    pos = xp.reshape(qs, qshape) * (xp.expand_dims(valid, axis=0) - 1)  # (Q, .., 1, ..)
    empty = xp.expand_dims(valid, axis=0) == 0
    pos = xp.where(empty, xp.full_like(pos, n - 1), pos)
    if interpolation == "lower":
        pos = xp.floor(pos)
    elif interpolation == "higher":
        pos = xp.ceil(pos)
    elif interpolation == "nearest":
        pos = xp.round(pos)  # half to even, as PyTorch
    lo = xp.floor(pos)
    hi = xp.ceil(pos)
    frac = pos - lo
    if interpolation == "midpoint":
        frac = xp.where(hi > lo, xp.full_like(frac, 0.5), xp.zeros_like(frac))
    nq = int(qs.shape[0])
    expanded = sorted_x.unsqueeze(0).expand((nq,) + tuple(sorted_x.shape))
    i64 = int64(input)

    def read(p: Any) -> Tensor:
        return gather(expanded, d + 1, Tensor._wrap(xp.astype(p, i64), backend))

    low = read(lo)
    out = low
    if interpolation in ("linear", "midpoint"):
        w = Tensor._wrap(frac, backend)
        out = low + (read(hi) - low) * w
    out = out.squeeze(d + 1)
    if keepdim:
        if dim is None:
            out = out.reshape((nq,) + (1,) * input._data.ndim)
        elif input._data.ndim:
            out = out.unsqueeze(d + 1)
    if scalar_q:
        out = out.squeeze(0)
    return out


def quantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The ``q``-th quantiles (a float or a 1-D tensor, which adds a leading dim) of
    ``input`` (flattened when ``dim`` is None); NaN where a slice holds NaN."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(input: Tensor, q: Any, dim: Any = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """``quantile`` ignoring NaN (NaN only where a slice is all NaN)."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


FUNCTIONS = {"sort": sort, "argsort": argsort, "msort": msort, "topk": topk,
             "kthvalue": kthvalue, "median": median, "nanmedian": nanmedian, "mode": mode,
             "quantile": quantile, "nanquantile": nanquantile}
METHODS = {name: fn for name, fn in FUNCTIONS.items()}
