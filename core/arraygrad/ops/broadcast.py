"""Broadcasting: the result shape, and undoing it in one place (``sum_to``)."""

from __future__ import annotations

import math
from typing import Any

from arraygrad.ops import rule as _rule
from arraygrad.ops.casting import to_native
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.tensor import Tensor


__all__ = ["broadcast_shapes", "sum_to", "sum_to_data", "mul_sum_to"]


def broadcast_shapes(op: str, *shapes: Any) -> tuple[Any, ...]:
    """The broadcast of ``shapes``; RuntimeError naming the op and shapes if incompatible."""
    ndim = max(map(len, shapes))  # (no generator: its frames are calls on the hot path)
    out = [1] * ndim
    for s in shapes:
        offset = ndim - len(s)
        for i, n in enumerate(s):
            j = i + offset
            if n != 1:
                if out[j] != 1 and out[j] != n:
                    raise RuntimeError(
                        f"{op}: shapes {' and '.join(str(list(x)) for x in shapes)} cannot be "
                        f"broadcast together (mismatch at dimension {j - ndim})")
                out[j] = n
    return tuple(out)


SUM_TO_SIZE = defop("SumToSizeBackward0", jvp=VIA_VJP, params=("size",), vjp=(lambda g, n: g.expand(n.size),), complex=True)


def sum_to(g: Tensor, shape: tuple[Any, ...]) -> Tensor:
    """Sum ``g`` over the dimensions broadcasting added, so it has ``shape``.

    The single place where broadcasting is undone in every backward.
    """
    gshape = g._data.shape
    if gshape == shape:
        return g
    data = sum_to_data(g._backend.xp, g._data, shape)
    return SUM_TO_SIZE.record(data, g._backend, (g,), size=tuple(gshape))


def sum_to_data(xp: Any, data: Any, shape: tuple[Any, ...]) -> Any:
    """``sum_to`` on a native array: ``data`` summed over the dimensions broadcasting added to
    ``shape`` (nothing recorded; first-order backward formulas finish with it)."""
    gshape = data.shape
    if gshape == shape:
        return data
    lead = len(gshape) - len(shape)
    axes = list(range(lead))
    for i, n in enumerate(shape):
        if n == 1 and gshape[lead + i] != 1:
            axes.append(lead + i)
    if axes:
        data = xp.sum(data, axis=tuple(axes))
    # (a reduction to 0-d may answer a backend scalar: the reshape makes it an array)
    return data if data.shape == shape and shape else xp.reshape(data, shape)


_rule.finishers.sum_to = sum_to
_rule.finishers.sum_to_data = sum_to_data


def _compact(g: Tensor) -> Tensor:
    """``g`` without the dimensions an ``expand`` repeated (logical stride 0, size > 1)."""
    strides = g._strides
    if strides is None:
        return g
    key = tuple(slice(0, 1) if s == 0 and n > 1 else slice(None)
                for s, n in zip(strides, g._data.shape))
    return g[key] if any(k != slice(None) for k in key) else g


def mul_sum_to(g: Tensor, other: Any, shape: tuple[Any, ...]) -> Tensor:
    """``sum_to(g * other, shape)`` without materialising the broadcast product.

    The gradient of one factor of a broadcasting product is a contraction: dimensions
    summed away where both ``g`` and ``other`` vary become the inner dimension of a
    batched matmul, dimensions only one of them varies along are summed first, and
    ``g``'s own broadcast (an ``expand`` from a reduction's backward) is undone before
    anything is multiplied; dimensions along which neither varies are computed once and
    expanded at the end. Small products are simply multiplied.
    """
    if not isinstance(other, Tensor):
        return sum_to(g, shape) * other
    g0 = _compact(g)
    nd = max(g0.ndim, other.ndim, len(shape))
    gs = (1,) * (nd - g0.ndim) + tuple(g0._data.shape)
    bs = (1,) * (nd - other.ndim) + tuple(other._data.shape)
    ts = (1,) * (nd - len(shape)) + tuple(shape)
    full = [max(a, b) for a, b in zip(gs, bs)]
    # where neither factor varies the result is the same for every index: compute it once
    eff = tuple(t if f > 1 else 1 for t, f in zip(ts, full))
    if other._data.dtype != g0._data.dtype:
        other = to_native(other, g0._data.dtype)
    a = g0.reshape(gs)
    b = other.reshape(bs)
    if math.prod(full) <= 2 * max(math.prod(gs), math.prod(bs), math.prod(eff), 1):
        r = sum_to(a * b, eff)  # nothing big to avoid
    else:
        r = _contract(a, b, gs, bs, eff, full, nd)
    if eff != ts:
        r = r.expand(ts)
    return r.reshape(shape)


def _contract(a: Tensor, b: Tensor, gs: Any, bs: Any, ts: Any, full: Any, nd: int) -> Tensor:
    """``sum_to(a * b, ts)`` as one batched matmul (shapes aligned to ``nd`` dims)."""
    solo_a = tuple(d for d in range(nd) if ts[d] == 1 and gs[d] > 1 and bs[d] == 1)
    solo_b = tuple(d for d in range(nd) if ts[d] == 1 and bs[d] > 1 and gs[d] == 1)
    if solo_a:
        a = a.sum(solo_a, keepdim=True)
    if solo_b:
        b = b.sum(solo_b, keepdim=True)
    both = [d for d in range(nd) if ts[d] > 1 and gs[d] > 1 and bs[d] > 1]
    only_a = [d for d in range(nd) if ts[d] > 1 and gs[d] > 1 and bs[d] == 1]
    only_b = [d for d in range(nd) if ts[d] > 1 and bs[d] > 1 and gs[d] == 1]
    inner = [d for d in range(nd) if ts[d] == 1 and gs[d] > 1 and bs[d] > 1]
    rest_a = [d for d in range(nd) if d not in both + only_a + inner]
    rest_b = [d for d in range(nd) if d not in both + inner + only_b]
    size = lambda dims: math.prod(full[d] for d in dims)  # noqa: E731
    a2 = a.permute(*(both + only_a + inner + rest_a)).reshape(size(both), size(only_a), size(inner))
    b2 = b.permute(*(both + inner + only_b + rest_b)).reshape(size(both), size(inner), size(only_b))
    r = a2 @ b2  # (both, only_a, only_b)
    order = both + only_a + only_b
    r = r.reshape(tuple(full[d] for d in order))
    kept = [order.index(d) for d in range(nd) if d in order]
    r = r.permute(*kept) if kept != list(range(len(kept))) else r
    return r.reshape(ts)
