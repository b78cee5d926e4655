"""``ReduceOp``: how a collective combines the ranks' values (PyTorch's names)."""

from __future__ import annotations

import enum

__all__ = ["ReduceOp"]


class ReduceOp(enum.Enum):
    """A reduction for ``all_reduce``, ``reduce`` and ``reduce_scatter_tensor``.

    ``AVG`` is ``SUM`` divided by the group's size (floating-point tensors only).
    """

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"

    def __repr__(self) -> str:
        return f"<ReduceOp.{self.name}>"
