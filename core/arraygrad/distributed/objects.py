"""Collectives on picklable Python objects: ``broadcast_object_list``, ``all_gather_object``.

Objects are pickled (as in PyTorch: only use them with trusted peers)."""

from __future__ import annotations

from typing import Any

from arraygrad.distributed.group import ProcessGroup, resolve
from arraygrad.distributed.header import agree, encode

__all__ = ["all_gather_object", "broadcast_object_list"]


def broadcast_object_list(object_list: list[Any], src: int | None = None,
                          group: ProcessGroup | None = None, device: Any = None,
                          group_src: int | None = None) -> None:
    """Replace ``object_list``'s items on every rank with rank ``src``'s, in place."""
    g = resolve(group, "broadcast_object_list")
    if g.backend is None:
        return
    if src is not None and group_src is not None:
        raise ValueError("broadcast_object_list: Can't specify both src and group_src")
    root = group_src if group_src is not None else g.group_rank(0 if src is None else src)
    error = None
    if not isinstance(object_list, list):
        error = f"broadcast_object_list: object_list must be a list, got {type(object_list).__name__}"
    n = len(object_list) if error is None else 0
    agree(g.backend, "broadcast_object_list", encode((n,), "int64", root, error is not None),
          error, what="object_list length")
    items = g.backend.broadcast_object(list(object_list) if g.backend.rank == root else None,
                                       root)
    object_list[:] = items


def all_gather_object(object_list: list[Any], obj: Any, group: ProcessGroup | None = None) -> None:
    """Fill ``object_list`` (one slot per rank) with every rank's ``obj``, in rank order."""
    g = resolve(group, "all_gather_object")
    if g.backend is None:
        return
    error = None
    if not isinstance(object_list, list) or len(object_list) != g.backend.size:
        error = (f"all_gather_object: object_list must be a list of the group's size "
                 f"({g.backend.size})")
    agree(g.backend, "all_gather_object", encode((), "int64", -1, error is not None), error)
    object_list[:] = g.backend.allgather_object(obj)
