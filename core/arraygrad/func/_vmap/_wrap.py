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

__all__ = ["to_batched", "from_batched"]


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
