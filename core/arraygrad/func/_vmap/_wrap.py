"""Moving tensors into and out of a vmap level, as recorded ops (so that ``grad`` of a
vmapped function, and forward-mode AD through one, see them like any other op).

``to_batched(t, level, dim)``: ``t``'s dimension ``dim`` becomes the level's batch (the
result is a tensor of the level's backend holding a ``BatchedArray``); its gradient is
``from_batched`` of the output's gradient, and the other way round.
"""

from __future__ import annotations

from typing import Any

from arraygrad.func._vmap._batched import BatchedArray, Level
from arraygrad.func._vmap._table import materialize
from arraygrad.ops.rule import defop
from arraygrad.tensor import Tensor

__all__ = ["to_batched", "from_batched", "leave_levels"]


def to_batched(t: Tensor, level: Level, dim: int) -> Tensor:
    """``t`` with its dimension ``dim`` (non-negative) as ``level``'s batch dimension."""
    data = t._data
    if dim != 0:
        data = level.base.moveaxis(data, dim, 0)
    return TO_BATCHED.record(BatchedArray(data, level), level.backend, (t,), level=level, dim=dim)


def from_batched(t: Tensor, level: Level, dim: int) -> Tensor:
    """The physical tensor of ``t`` (one level down), its batch dimension at ``dim``
    (non-negative, counted in the result); an unbatched ``t`` is broadcast along the batch."""
    data = materialize(t._data, level)
    if dim != 0:
        data = level.base.moveaxis(data, 0, dim)
    return FROM_BATCHED.record(data, level.backend.base, (t,), level=level, dim=dim)


TO_BATCHED = defop("ToBatchedBackward0", params=("level", "dim"),
                   vjp=(lambda g, n: from_batched(g, n.level, n.dim),),
                   jvp=lambda t, n: to_batched(t, n.level, n.dim))
FROM_BATCHED = defop("FromBatchedBackward0", params=("level", "dim"),
                     vjp=(lambda g, n: _gradient_to_batched(g, n.level, n.dim),),
                     jvp=lambda t, n: from_batched(t, n.level, n.dim))


def _gradient_to_batched(g: Tensor, level: Level, dim: int) -> Tensor:
    data = g._data
    if type(data) is BatchedArray and data.level is level:  # already batched (a vmapped grad)
        return g
    return to_batched(g, level, dim)


def is_batched_tensor(t: Any, level: Level) -> bool:
    """Whether tensor ``t``'s data is batched at ``level``."""
    data = t._data
    return type(data) is BatchedArray and data.level is level


def leave_levels(g: Tensor, target: Any, ended_only: bool = False) -> Tensor:
    """The gradient ``g`` of a tensor of backend ``target`` (a tensor from outside a vmap
    call) when ``g`` came back batched by the call's level: summed over the batch, each
    sample's contribution added, as PyTorch's batching rules reduce it. ``ended_only``: only
    levels whose call has returned (inside the call, ``autograd.grad`` keeps the per-sample
    gradients: ``vmap(grad(f))``)."""
    while g._backend is not target:
        level = getattr(g._backend, "level", None)  # a BatchingBackend's
        if level is None or (ended_only and level.active):
            break
        g = from_batched(g, level, 0).sum(0)
    return g
