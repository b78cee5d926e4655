"""``P2POp`` and ``batch_isend_irecv``: several point-to-point operations started together.

Every operation is posted non-blocking (``isend``/``irecv``) before any is waited on,
so a ring of sends and receives cannot deadlock; the ``Work`` of each is returned,
in the list's order.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.distributed.groups import ProcessGroup, default_group
from arraygrad.distributed.p2p import irecv, isend
from arraygrad.distributed.work import Work
from arraygrad.tensor import Tensor

__all__ = ["P2POp", "batch_isend_irecv"]


class P2POp:
    """One point-to-point operation for ``batch_isend_irecv``: ``op`` (``isend`` or
    ``irecv``), its ``tensor``, the peer's global rank ``peer`` (or ``group_peer``, its rank
    in ``group``), ``group`` and ``tag``."""

    def __new__(cls, op: Callable[..., Any], tensor: Tensor, peer: int | None = None,
                group: ProcessGroup | None = None, tag: int = 0,
                group_peer: int | None = None) -> "P2POp":
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type "
                             "``torch.distributed.isend`` or ``torch.distributed.irecv``.")
        if not isinstance(tensor, Tensor):
            raise TypeError("Invalid function argument. Expected parameter `tensor` of type "
                            "torch.Tensor")
        return object.__new__(cls)

    def __init__(self, op: Callable[..., Any], tensor: Tensor, peer: int | None = None,
                 group: ProcessGroup | None = None, tag: int = 0,
                 group_peer: int | None = None) -> None:
        self.op = op
        self.tensor = tensor
        self.group = group or default_group("P2POp")
        if peer is not None and group_peer is not None:
            raise ValueError("Can't specify both peer and group_peer")
        if peer is None and group_peer is None:
            raise ValueError("Must specify peer or group_peer")
        if group_peer is None:
            assert peer is not None
            group_peer = self.group.group_rank(peer)
        self.group_peer: int = group_peer
        self.peer: int = self.group.ranks[group_peer] if peer is None else peer
        self.tag = tag

    def __repr__(self) -> str:
        me = self.group.rank()
        src, dst = ((me, self.group_peer) if self.op is isend else (self.group_peer, me))
        return (f"P2POp({self.op.__name__} pg={self.group.group_name}, group_src={src}, "
                f"group_dst={dst},  {tuple(self.tensor.shape)}, {self.tensor.dtype})")


def batch_isend_irecv(p2p_op_list: list[P2POp]) -> list[Work]:
    """Start every operation of ``p2p_op_list`` at once; their ``Work``, in order."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type "
                         "``torch.distributed.P2POp``.")
    if not p2p_op_list:  # PyTorch's IndexError (it reads the first op's group)
        raise IndexError("batch_isend_irecv: p2p_op_list is empty")
    group = p2p_op_list[0].group
    if any(p.group is not group for p in p2p_op_list):
        raise ValueError("All ops need to use the same group.")
    works: dict[int, Work | None] = {}
    # receives first: every matching send then finds its receive posted
    for i in sorted(range(len(p2p_op_list)), key=lambda i: p2p_op_list[i].op is isend):
        p = p2p_op_list[i]
        key = "group_dst" if p.op is isend else "group_src"
        works[i] = p.op(p.tensor, group=p.group, tag=p.tag, **{key: p.group_peer})
    return [w for i in range(len(p2p_op_list)) if (w := works[i]) is not None]
