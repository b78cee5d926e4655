"""Picklable Python objects: ``broadcast_object_list``, ``all_gather_object``,
``gather_object``, ``scatter_object_list`` (collectives) and ``send_object_list``,
``recv_object_list`` (point to point).

Objects are pickled (as in PyTorch: only use them with trusted peers). An object holding
tensors (which arraygrad does not pickle) travels as ``arraygrad.save`` writes it, and
is read back with ``arraygrad.load(..., weights_only=False)``, as PyTorch's object
collectives use its own tensor pickling.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

from arraygrad.distributed.errors import DistBackendError
from arraygrad.distributed.groups import ProcessGroup, resolve
from arraygrad.distributed.header import agree, encode

__all__ = ["all_gather_object", "broadcast_object_list", "gather_object", "recv_object_list",
           "scatter_object_list", "send_object_list"]


def _dumps(obj: Any) -> bytes:
    """``obj`` as bytes: pickled, or (when it holds tensors) as ``arraygrad.save`` writes it."""
    try:
        return b"P" + pickle.dumps(obj)
    except TypeError:  # a tensor inside: arraygrad's checkpoint format carries it
        from arraygrad.serialization import save

        buf = io.BytesIO()
        save(obj, buf)
        return b"A" + buf.getvalue()


def _loads(data: bytes) -> Any:
    """The object ``_dumps`` wrote."""
    if data[:1] == b"P":
        return pickle.loads(data[1:])
    from arraygrad.serialization import load

    return load(io.BytesIO(data[1:]), weights_only=False)


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
    data = g.backend.broadcast_object(_dumps(list(object_list)) if g.backend.rank == root
                                      else None, root)
    object_list[:] = _loads(data)


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
    object_list[:] = [_loads(d) for d in g.backend.allgather_object(_dumps(obj))]


def _output_list_error(me: int, root: int, gather_list: Any) -> ValueError | None:
    """PyTorch's rule: the destination gives ``gather_list``, the other ranks do not."""
    if me == root and gather_list is None:
        return ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if me != root and gather_list:
        return ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                          "ranks.")
    return None


def gather_object(obj: Any, object_gather_list: list[Any] | None = None, dst: int | None = None,
                  group: ProcessGroup | None = None, group_dst: int | None = None) -> None:
    """Every rank's ``obj``, in rank order, into ``object_gather_list`` on rank ``dst``."""
    from arraygrad.distributed.collectives import _root

    g = resolve(group, "gather_object")
    if g.backend is None:
        return
    root = _root(g, "gather_object", 0 if dst is None and group_dst is None else dst,
                 group_dst, "dst")
    error = _output_list_error(g.backend.rank, root, object_gather_list)
    if error is None and object_gather_list is not None and \
            len(object_gather_list) != g.backend.size:
        error = ValueError(f"gather_object: object_gather_list must have the group's size "
                           f"({g.backend.size}), got {len(object_gather_list)}")
    agree(g.backend, "gather_object", encode((), "int64", root, error is not None), error)
    every = g.backend.gather_object(_dumps(obj), root)
    if object_gather_list is not None and every is not None:
        object_gather_list[:] = [_loads(d) for d in every]


def scatter_object_list(scatter_object_output_list: list[Any],
                        scatter_object_input_list: list[Any] | None = None,
                        src: int | None = None, group: ProcessGroup | None = None,
                        group_src: int | None = None) -> None:
    """Rank r's ``scatter_object_output_list[0]`` becomes item r of rank ``src``'s
    ``scatter_object_input_list``."""
    from arraygrad.distributed.collectives import _root

    g = resolve(group, "scatter_object_list")
    if g.backend is None:
        return
    root = _root(g, "scatter_object_list", 0 if src is None and group_src is None else src,
                 group_src, "src")
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at "
                         "least 1.")
    comm = g.backend
    error: Exception | None = None
    if comm.rank == root:
        if scatter_object_input_list is None:
            error = ValueError("source rank must provide non-None scatter_object_input_list")
        elif len(scatter_object_input_list) != comm.size:
            error = RuntimeError(f"scatter_object_list: Incorrect input list size "
                                 f"{len(scatter_object_input_list)}. Input list size should be "
                                 f"{comm.size}, same as size of the process group.")
    agree(comm, "scatter_object_list", encode((), "int64", root, error is not None), error)
    objs = ([_dumps(o) for o in scatter_object_input_list or []] if comm.rank == root
            else None)
    scatter_object_output_list[0] = _loads(comm.scatter_object(objs, root))


def send_object_list(object_list: list[Any], dst: int | None = None,
                     group: ProcessGroup | None = None, device: Any = None,
                     group_dst: int | None = None, use_batch: bool = False) -> None:
    """Send the picklable objects of ``object_list`` to rank ``dst`` (``recv_object_list``
    there receives them). ``device`` and ``use_batch`` are accepted as PyTorch's (the objects
    travel pickled on the backend's control channel either way)."""
    from arraygrad.distributed.p2p import _peer

    g = resolve(group, "send_object_list")
    if g.backend is None:
        return
    peer = _peer(g, "send_object_list", dst, group_dst, "dst")
    if not isinstance(object_list, list):
        raise TypeError(f"send_object_list: object_list must be a list, got "
                        f"{type(object_list).__name__}")
    g.backend.send_object(_dumps(list(object_list)), peer, 0)


def recv_object_list(object_list: list[Any], src: int | None = None,
                     group: ProcessGroup | None = None, device: Any = None,
                     group_src: int | None = None, use_batch: bool = False) -> int:
    """Fill ``object_list`` with the objects rank ``src`` (None: any) sent with
    ``send_object_list``; the sender's global rank. The lists must have the same length."""
    from arraygrad.distributed.p2p import _peer

    g = resolve(group, "recv_object_list")
    if g.backend is None:
        return -1
    peer = _peer(g, "recv_object_list", src, group_src, "src", allow_any=True)
    if not isinstance(object_list, list):
        raise TypeError(f"recv_object_list: object_list must be a list, got "
                        f"{type(object_list).__name__}")
    data, source = g.backend.recv_object(peer, 0)
    items = _loads(data)
    if len(items) != len(object_list):
        raise DistBackendError(f"recv_object_list: rank {g.ranks[source]} sent {len(items)} "
                               f"objects but object_list has {len(object_list)} slots")
    object_list[:] = items
    return g.ranks[source]
