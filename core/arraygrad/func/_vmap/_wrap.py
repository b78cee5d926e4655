"""Moving tensors into and out of a vmap level, as recorded ops (so that ``grad`` of a
vmapped function, and forward-mode AD through one, see them like any other op).

``to_batched(t, level, dim)``: ``t``'s dimension ``dim`` becomes the level's batch (the
result is a tensor of the level's backend holding a ``BatchedArray``); its gradient is
``from_batched`` of the output's gradient, and the other way round.

Either may meet an array already batched by a *deeper* level (one opened later): a
cotangent batched by a ``vmap`` call that differentiates this level's ops after it ended
(``jacrev(jacrev(f))``), or a batched tangent (``jacfwd`` of a function that calls
``vmap``). Arrays nest by depth, so the move happens under the deeper level's batch
(``_enter``/``_leave`` recurse into its physical value, the logical ``dim`` one further
right) and the result keeps that level, and its backend.
"""

from __future__ import annotations

from typing import Any

from arraygrad.func._vmap._batched import BatchedArray, Level
from arraygrad.func._vmap._table import materialize
from arraygrad.ops.rule import defop
from arraygrad.tensor import Tensor

__all__ = ["to_batched", "from_batched", "leave_levels"]


def _enter(data: Any, level: Level, dim: int) -> BatchedArray:
    """``data``'s logical dimension ``dim`` as ``level``'s batch, under any deeper level."""
    if type(data) is BatchedArray and data.level.depth > level.depth:
        return BatchedArray(_enter(data.value, level, dim + 1), data.level)
    if dim != 0:
        data = level.base.moveaxis(data, dim, 0)
    return BatchedArray(data, level)


def _leave(data: Any, level: Level, dim: int) -> Any:
    """``data`` without ``level``'s batch, which becomes logical dimension ``dim``, under any
    deeper level (an array not batched at ``level`` is broadcast along it)."""
    if type(data) is BatchedArray and data.level.depth > level.depth:
        return BatchedArray(_leave(data.value, level, dim + 1), data.level)
    data = materialize(data, level)
    if dim != 0:
        data = level.base.moveaxis(data, 0, dim)
    return data


def _backend_of(data: Any, level: Level) -> Any:
    """The backend of a tensor holding ``data``: its outermost level's, else the real one."""
    return data.level.backend if type(data) is BatchedArray else level.backend.root


def to_batched(t: Tensor, level: Level, dim: int) -> Tensor:
    """``t`` with its dimension ``dim`` (non-negative) as ``level``'s batch dimension."""
    data = _enter(t._data, level, dim)
    return TO_BATCHED.record(data, data.level.backend, (t,), level=level, dim=dim)


def from_batched(t: Tensor, level: Level, dim: int) -> Tensor:
    """The physical tensor of ``t`` (one level down), its batch dimension at ``dim``
    (non-negative, counted in the result); an unbatched ``t`` is broadcast along the batch."""
    data = _leave(t._data, level, dim)
    return FROM_BATCHED.record(data, _backend_of(data, level), (t,), level=level, dim=dim)


# moving data between vmap levels: linear, for complex tensors too
TO_BATCHED = defop("ToBatchedBackward0", params=("level", "dim"), complex=True,
                   vjp=(lambda g, n: from_batched(g, n.level, n.dim),),
                   jvp=lambda t, n: to_batched(t, n.level, n.dim))
FROM_BATCHED = defop("FromBatchedBackward0", params=("level", "dim"), complex=True,
                     vjp=(lambda g, n: _gradient_to_batched(g, n.level, n.dim),),
                     jvp=lambda t, n: from_batched(t, n.level, n.dim))


def _gradient_to_batched(g: Tensor, level: Level, dim: int) -> Tensor:
    if is_batched_tensor(g, level):  # already batched (a vmapped grad)
        return g
    return to_batched(g, level, dim)


def is_batched_tensor(t: Any, level: Level) -> bool:
    """Whether tensor ``t``'s data is batched at ``level`` (under any deeper levels)."""
    data = t._data
    while type(data) is BatchedArray and data.level.depth >= level.depth:
        if data.level is level:
            return True
        data = data.value
    return False


def _own_levels(target: Any) -> list[Level]:
    """The levels a tensor of backend ``target`` is batched at: its own and the enclosing
    ones it was opened over."""
    found = []
    while hasattr(target, "level"):  # a BatchingBackend
        found.append(target.level)
        target = target.base
    return found


def leave_levels(g: Tensor, target: Any, ended_only: bool = False) -> Tensor:
    """The gradient ``g`` of a tensor of backend ``target`` (a tensor from outside a vmap
    call) when ``g`` came back batched by the call's level: summed over the batch, each
    sample's contribution added, as PyTorch's batching rules reduce it. ``ended_only``: only
    levels whose call has returned (inside the call, ``autograd.grad`` keeps the per-sample
    gradients: ``vmap(grad(f))``). Every level ``g`` carries is looked at, not only the
    outermost: an ended level may sit under an active one (``jacrev(jacrev(f))``: the inner
    call's batch under the outer call's, which is running)."""
    own = _own_levels(target)
    data = g._data
    ended = []
    while type(data) is BatchedArray:
        level = data.level
        if level not in own and not (ended_only and level.active):
            ended.append(level)
        data = data.value
    for level in ended:
        g = from_batched(g, level, 0).sum(0)
    return g
