"""Indexing (``x[key]``) and writes through an index (``x[key] = v``) as ONNX nodes.

Basic indexing is a ``Slice`` (every sliced axis in one node, Python's bounds: negative
from the end, clamped), a ``Gather`` per integer (highest axis first, so the others keep
their numbers) and an ``Unsqueeze`` for the ``None``s. Advanced indexing (integer arrays,
constant boolean masks as their integer positions) is a ``Gather`` for one array alone,
else a ``GatherND`` over the indexed axes moved to the front, the result's axes put where
NumPy puts them (where the indices were, when they are next to each other; in front
otherwise). A write is a ``ScatterND`` of the value, broadcast to the indexed part, at the
indexed positions: the slot then holds the written array.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.compiler.recording import Slot
from arraygrad.onnx._dims import SymInt
from arraygrad.onnx._graph import INT64_MAX, INT64_MIN

if TYPE_CHECKING:
    from arraygrad.onnx._translate import Translator

__all__ = ["getitem", "setitem"]


def _is_array(t: "Translator", k: Any) -> bool:
    return k.__class__ is Slot or (hasattr(k, "shape") and hasattr(k, "dtype")
                                   and k.__class__ is not SymInt)


def _items(t: "Translator", x: Any, key: Any) -> list[Any]:
    """``key`` as one item per axis (Ellipsis expanded, constant boolean masks as integer
    arrays), ``None``s kept."""
    keys = list(key) if key.__class__ is tuple else [key]
    items: list[Any] = []
    for k in keys:
        if _is_array(t, k) and t.native(k) is not None and "bool" in str(t.native(k)):
            if k.__class__ is Slot:
                raise t.unsupported("getitem", "indexing with a boolean mask computed by "
                                    "the model (its result's shape depends on values)")
            items.extend(t.g.backend.xp.nonzero(k))  # a constant mask: its positions
        else:
            items.append(k)
    used = sum(1 for k in items if k is not None and k is not Ellipsis)
    rank = t.rank(x)
    out: list[Any] = []
    for k in items:
        if k is Ellipsis:
            out.extend([slice(None)] * (rank - used))
            used = rank
        else:
            out.append(k)
    consumed = sum(1 for k in out if k is not None)
    out.extend([slice(None)] * (rank - consumed))
    return out


def _slice_bounds(s: slice) -> tuple[Any, Any, Any] | None:
    """ONNX ``Slice``'s start, end and step for Python slice ``s`` (None: the whole axis)."""
    step = 1 if s.step is None else s.step
    if s.start is None and s.stop is None and step == 1:
        return None
    start = s.start if s.start is not None else (0 if step > 0 else -1)
    stop = s.stop if s.stop is not None else (INT64_MAX if step > 0 else INT64_MIN)
    return start, stop, step


def _sliced(t: "Translator", value: str, axes: list[tuple[int, slice]]) -> str:
    specs = [(a, b) for a, s in axes if (b := _slice_bounds(s)) is not None]
    if not specs:
        return value
    g = t.g
    return g.node("Slice", [value, t.sizes([b[0] for _, b in specs]),
                            t.sizes([b[1] for _, b in specs]), g.ints([a for a, _ in specs]),
                            t.sizes([b[2] for _, b in specs])])


def getitem(t: "Translator", x: Any, key: Any, out: int | None = None) -> str:
    """``x[key]``."""
    g = t.g
    items = _items(t, x, key)
    slices: list[tuple[int, slice]] = []
    ints: list[tuple[int, Any]] = []
    arrays: list[tuple[int, Any]] = []
    news: list[int] = []  # output positions of the ``None``s
    axis = pos = 0
    for k in items:
        if k is None:
            news.append(pos)
            pos += 1
            continue
        if k.__class__ is slice:
            slices.append((axis, k))
            pos += 1
        elif _is_array(t, k):
            arrays.append((axis, k))
        else:
            ints.append((axis, k))
        axis += 1
    value = _sliced(t, t.value(x), slices)
    if not arrays:
        for a, i in sorted(ints, key=lambda p: -p[0]):
            value = g.node("Gather", [value, _scalar_index(t, i)], axis=a)
        return g.unsqueeze(value, news)
    if news:
        raise t.unsupported("getitem", "advanced indexing (with index arrays) and None together")
    if len(arrays) == 1 and not ints:
        a, idx = arrays[0]
        return g.node("Gather", [value, t.value(idx, g.T.INT64)], axis=a)
    return _gather_nd(t, value, t.rank(x), ints + arrays, items)


def _scalar_index(t: "Translator", i: Any) -> str:
    if i.__class__ is SymInt:
        return t.g.node("Squeeze", [t.size(i)])
    return t.g.const(int(i), t.g.T.INT64)


def _gather_nd(t: "Translator", value: str, rank: int, advanced: list[tuple[int, Any]],
               items: list[Any]) -> str:
    """Advanced indexing of several axes (integers count as 0-d index arrays)."""
    g = t.g
    advanced.sort(key=lambda p: p[0])
    axes = [a for a, _ in advanced]
    rest = [a for a in range(rank) if a not in axes]
    moved = g.node("Transpose", [value], perm=axes + rest) if axes != list(range(len(axes))) \
        else value
    indices = [t.value(i, g.T.INT64) if _is_array(t, i) else _scalar_index(t, i)
               for _, i in advanced]
    total = indices[0]
    for i in indices[1:]:  # the broadcast shape of every index
        total = g.node("Add", [total, i])
    shape = g.node("Shape", [total], g.T.INT64)
    stacked = g.node("Concat", [g.unsqueeze(g.node("Expand", [i, shape]), [-1])
                                for i in indices], axis=-1)
    result = g.node("GatherND", [moved, stacked])
    consecutive = axes == list(range(axes[0], axes[0] + len(axes)))
    if not consecutive or axes[0] == 0:
        return result
    # NumPy puts the indexed axes where the indices were when they are next to each other
    index_rank = max(t.rank(i) if _is_array(t, i) else 0 for _, i in advanced)
    before = axes[0]  # the (sliced) axes in front of them
    perm = list(range(index_rank, index_rank + before)) + list(range(index_rank)) + \
        list(range(index_rank + before, index_rank + len(rest)))
    return g.node("Transpose", [result], perm=perm)


def setitem(t: "Translator", target: Slot, key: Any, v: Any) -> str:
    """The array ``target`` holds after ``target[key] = v``."""
    g = t.g
    elem = t.elem(target)
    assert elem is not None
    base = t.value(target)
    items = _items(t, target, key)
    if any(k is None for k in items):
        raise t.unsupported("setitem", "a write through an index with None")
    if all(k.__class__ is slice and _slice_bounds(k) is None for k in items):
        return g.node("Expand", [t.value(v, elem), g.node("Shape", [base], g.T.INT64)], elem)
    shape = t.shape(target)
    ranges: list[str] = []
    for a, k in enumerate(items):
        if _is_array(t, k):
            if len(items) != 1 or t.rank(k) != 1:
                raise t.unsupported("setitem", "a write through index arrays other than one "
                                    "1-D array")
            ranges.append(t.value(k, g.T.INT64))
            continue
        ranges.append(_positions(t, k, shape[a]))
    n = len(ranges)
    if n == 1:
        grid = g.unsqueeze(ranges[0], [-1])
        region = g.node("Shape", [ranges[0]], g.T.INT64)
    else:
        lengths = [g.node("Shape", [r], g.T.INT64) for r in ranges]
        region = g.node("Concat", lengths, axis=0)
        parts = []
        for a, r in enumerate(ranges):
            along = g.node("Reshape", [r, g.ints([1] * a + [-1] + [1] * (n - a - 1))])
            parts.append(g.unsqueeze(g.node("Expand", [along, region]), [-1]))
        grid = g.node("Concat", parts, axis=-1)
    # the value broadcast to what ``target[key]`` reads, then to the grid's shape
    read = getitem(t, target, key)
    update = g.node("Expand", [t.value(v, elem), g.node("Shape", [read], g.T.INT64)], elem)
    update = g.node("Reshape", [update, region])
    return g.node("ScatterND", [base, grid, update], elem)


def _positions(t: "Translator", k: Any, dim: Any) -> str:
    """The positions an index item ``k`` selects along an axis of size ``dim``, 1-D int64."""
    g = t.g
    if k.__class__ is not slice:
        if k.__class__ is int and k < 0:
            if dim.__class__ is not int:
                raise t.unsupported("setitem", "a negative index on a dynamic axis")
            k += dim
        return g.node("Reshape", [t.size(k) if k.__class__ is SymInt else g.ints([k]),
                                  g.ints([1])])
    if all(v.__class__ is int or v is None for v in (k.start, k.stop, k.step)) and \
            dim.__class__ is int:
        start, stop, step = k.indices(dim)
        return g.ints(list(range(start, stop, step)))
    step = 1 if k.step is None else k.step
    if step.__class__ is not int or step <= 0 or any(
            v.__class__ is int and v < 0 for v in (k.start, k.stop)):
        raise t.unsupported("setitem", "a write through a slice with negative bounds or step "
                            "on a dynamic axis")
    start = k.start if k.start is not None else 0
    stop = k.stop if k.stop is not None else dim

    def scalar(v: Any) -> str:
        return g.node("Squeeze", [t.size(v)]) if v.__class__ is SymInt else \
            g.const(int(v), g.T.INT64)
    return g.node("Range", [scalar(start), scalar(stop), scalar(step)], g.T.INT64)
