"""Batching rules: indexing (``x[key]``, ``x[key] = v``, ``take``, ``take_along_axis``) and
the backend's ``scatter_add``.

A key of integers, slices, ``None``, ``...`` and *unbatched* index arrays applies to every
sample alike: it gets a leading ``slice(None)`` for the batch dimension (when its index
arrays are not adjacent NumPy-style indexing moves their dimensions first, and the batch
dimension is moved back). A key with *batched* index arrays is rewritten as pure advanced
indexing with a batch index ``arange(B)`` in front, each sample then reading its own
indices; the few keys that mix batched index arrays with slices go per sample.

An op of the indexing family (``ops.indexed_operands``) computes on its input's backend; when
its indices or sources are batched but its input comes from outside the vmap call,
``lift_indexed`` (the hook ``transform_state.indexed_input`` while vmap runs) first moves the
input onto their level (``BatchingBackend.lift``: a broadcast view, recorded as a device move
so that its gradient leaves the level again).
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.backends.stacking import outer_backend
from arraygrad.ops.transfer import to_backend
from arraygrad.tensor import Tensor
from arraygrad.func._vmap._batched import BatchedArray, Level
from arraygrad.func._vmap.rules_creation import widen
from arraygrad.func._vmap._table import (
    batched, batching_rule, bval, is_batched, materialize, pad, shift,
)


__all__ = ["getitem", "setitem", "scatter_add", "lift_indexed"]


def _backend_of(operand: Any) -> Any:
    """The backend an indexing operand lives on: a tensor's, or for a key an op built
    (``ops._linear_index.LinearKey``) its linear index's level, when batched; else None."""
    backend = getattr(operand, "_backend", None)
    if backend is not None:
        return backend
    lin = getattr(operand, "lin", None)
    return lin.level.backend if type(lin) is BatchedArray else None


def _operands(items: Any) -> Any:
    """The operands in ``items``, tuples and lists (a key, ``index_put``'s indices) opened."""
    for item in items:
        if type(item) in (tuple, list):
            yield from _operands(item)
        else:
            yield item


def lift_indexed(input: Any, others: tuple[Any, ...]) -> Any:
    """``input`` on the backend of a vmap level one of its indexing operands ``others`` (index
    tensors, sources, grids, keys) is batched by while ``input`` comes from outside it, else
    ``input`` itself: the op, which computes on its input's backend, then batches. The
    innermost such level when several are."""
    if not isinstance(input, Tensor):
        return input
    backend = input._backend
    for o in _operands(others):
        found = _backend_of(o)
        if found is not None and found is not backend and outer_backend(found, backend) is found:
            backend = found
    return input if backend is input._backend else to_backend(input, backend)


def _is_array(k: Any) -> bool:
    return hasattr(k, "shape") and not isinstance(k, (int, bool))


def _key_tuple(key: Any) -> tuple[Any, ...]:
    return key if type(key) is tuple else (key,)


def _advanced_positions(key: tuple[Any, ...]) -> list[int]:
    return [i for i, k in enumerate(key) if _is_array(k)]


def _batch_index(level: Level, ndim: int) -> Any:
    base = level.base
    return base.reshape(base.arange(level.size), (level.size,) + (1,) * ndim)


def _pure_advanced(level: Level, key: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """``(arange(B)[:, None...], *indices)`` for a key of integer index arrays and ints only
    (some batched), or None when the key holds anything else."""
    if not all(_is_array(k) or (isinstance(k, int) and not isinstance(k, bool)) for k in key):
        return None
    for k in key:
        if _is_array(k) and "bool" in str(k.dtype):
            return None
    nd = max((k.ndim for k in key if _is_array(k)), default=0)
    parts: list[Any] = [_batch_index(level, nd)]
    for k in key:
        v = bval(k, level)
        parts.append(k if v is None else pad(v, level, nd))
    return tuple(parts)


def _mixed(key: tuple[Any, ...], level: Level) -> bool:
    return any(is_batched(k, level) for k in key)


def getitem(level: Level, x: Any, key: Any) -> Any:
    """``x[key]`` for a batched ``x`` or a key holding batched index arrays."""
    key = _key_tuple(key)
    v = bval(x, level)
    if _mixed(key, level):
        full = _pure_advanced(level, key)
        if full is not None:
            return batched(materialize(x, level)[full], level)
        from arraygrad.func._vmap._fallback import fallback
        return fallback(level, "__getitem__", lambda a, k: a[k], x, key)
    out = v[(slice(None),) + key]
    nd = _separated_ndim(key)
    if nd:  # NumPy put the index arrays' dimensions first, before the batch one
        out = level.base.moveaxis(out, nd, 0)
    return batched(out, level)


def _separated_ndim(key: tuple[Any, ...]) -> int:
    """For a key whose index arrays are not adjacent: the number of dimensions they make
    (NumPy puts those first in the result, before the batch dimension); else 0."""
    adv = _advanced_positions(key)
    if len(adv) < 2 or adv[-1] - adv[0] == len(adv) - 1:
        return 0
    return max(1 if "bool" in str(key[i].dtype) else key[i].ndim for i in adv)


def setitem(level: Level, x: Any, key: Any, value: Any) -> None:
    """``x[key] = value`` for a batched ``x`` (a batched value into an unbatched ``x`` is
    refused before this: see ``check_inplace``)."""
    key = _key_tuple(key)
    v = widen(x, value)
    if _mixed(key, level):
        full = _pure_advanced(level, key)
        if full is None:
            raise NotImplementedError(
                "vmap: assigning through a key that mixes batched index tensors with slices is "
                "not supported")
        target_nd = max((k.ndim for k in key if _is_array(k)), default=0) + (x.ndim - len(key))
        x.value = _assigned(level, v, full, pad(bval(value, level), level, target_nd)
                            if is_batched(value, level) else value)
        return
    phys = (slice(None),) + key
    if type(value) is BatchedArray and value.level is not level:
        value.level.check_write(v)  # batched at another level: v must carry that one too
    if is_batched(value, level):
        target = v[phys]
        vals = pad(value.value, level, target.ndim - 1)
        nd = _separated_ndim(key)
        x.value = _assigned(level, v, phys, level.base.moveaxis(vals, 0, nd) if nd else vals)
    else:
        x.value = _assigned(level, v, phys, value)


def _assigned(level: Level, v: Any, key: Any, values: Any) -> Any:
    """``v`` (a physical value) with ``v[key] = values``: ``v`` itself, written, where the real
    backend's arrays can be written (or ``v`` is an outer level's ``BatchedArray``, which
    stores the same way); else the new array ``Backend.write`` makes (JAX's are immutable).
    The caller stores the result back into its ``BatchedArray`` (a no-op when written)."""
    root = level.backend.root
    if type(v) is BatchedArray or root.mutable_arrays:
        v[key] = values
        return v
    return root.write(v, key, values)


@batching_rule("take")
def take(level: Level, fn: Callable[..., Any], x: Any, indices: Any, /, *,
         axis: Any = None) -> Any:
    """Unbatched indices: one ``take`` along the shifted axis; batched indices: each sample
    takes its own (``take_along_axis`` with the indices spread over the other axes)."""
    base = level.base
    vx = materialize(x, level)
    if axis is None:
        vx = base.reshape(vx, (vx.shape[0], -1))
        nd, ax = 1, 1
    else:
        nd, ax = x.ndim, shift(axis, x.ndim)
    vi = bval(indices, level)
    if vi is None:
        return batched(fn(vx, indices, axis=ax), level)
    # batched indices of shape (B, k): result (B, ..., k, ...) with k at the axis
    k = vi.shape[1]
    shape = list(vx.shape)
    shape[ax] = k
    spread = base.reshape(vi, (vi.shape[0],) + (1,) * (ax - 1) + (k,) + (1,) * (nd - ax))
    return batched(base.take_along_axis(vx, base.broadcast_to(spread, tuple(shape)), axis=ax),
                   level)


@batching_rule("take_along_axis")
def take_along_axis(level: Level, fn: Callable[..., Any], x: Any, indices: Any, /, *,
                    axis: int = -1) -> Any:
    """Both operands with the batch dimension in front (the unbatched one broadcast)."""
    nd = max(x.ndim, indices.ndim)
    vx = materialize(x, level)
    vi = materialize(indices, level)
    return batched(fn(vx, vi, axis=shift(axis, nd)), level)


def scatter_add(level: Level, base_backend: Any, target: Any, key: Any, values: Any) -> Any:
    """``Backend.scatter_add`` for batched arrays: the key rewritten with the batch index in
    front (as ``getitem`` does), then one call of the backend below."""
    keyt = _key_tuple(key)
    tv = widen(target, values) if is_batched(target, level) else None
    if tv is None:
        if is_batched(values, level) or _mixed(keyt, level):
            from arraygrad.func._vmap._batched import INPLACE_MESSAGE
            raise RuntimeError(INPLACE_MESSAGE)
        return base_backend.scatter_add(target, key, values)
    full = _pure_advanced(level, keyt) if _mixed(keyt, level) else None
    if full is None and not _mixed(keyt, level):
        adv = _advanced_positions(keyt)
        if len(adv) <= 1 or adv[-1] - adv[0] == len(adv) - 1:
            phys = (slice(None),) + keyt
            sel_nd = _selected_ndim(tv, phys)
            vals = pad(values.value, level, sel_nd) if is_batched(values, level) else values
            # the backend's result, not ``tv``: an immutable backend's is a new array
            target.value = base_backend.scatter_add(tv, phys, vals)
            return target
    if full is not None:
        nd = max((k.ndim for k in keyt if _is_array(k)), default=0) + (target.ndim - len(keyt))
        vals = pad(values.value, level, nd) if is_batched(values, level) else values
        target.value = base_backend.scatter_add(tv, full, vals)
        return target
    for i in range(level.size):  # keys mixing batched indices with slices: per sample
        ki = tuple(bval(k, level)[i] if is_batched(k, level) else k for k in keyt)
        vi = values.value[i] if is_batched(values, level) else values
        tv = _assigned(level, tv, i, base_backend.scatter_add(tv[i], ki, vi))
    target.value = tv
    return target


def _selected_ndim(tv: Any, phys: tuple[Any, ...]) -> int:
    """The logical rank of ``tv[phys]`` (a view's rank, no copy of the data)."""
    return int(tv[phys].ndim) - 1
