"""Collectives on tensors: ``all_reduce``, ``broadcast``, ``reduce``, ``all_gather``,
``all_gather_into_tensor`` (``all_gather_single``), ``reduce_scatter_tensor``
(``reduce_scatter_single``), ``gather``, ``scatter``, ``barrier``.

Each one checks its arguments, exchanges a header (``header.agree``) so every rank
raises together on a mismatch, then runs the backend's call on the tensors' buffers.
Only ``all_reduce`` is truly asynchronous; the others complete before returning a
finished ``Work`` when ``async_op=True``. On a process outside ``group`` they do nothing.
"""

from __future__ import annotations

from typing import Any

from arraygrad.distributed.buffers import Buffer, host_empty
from arraygrad.distributed.groups import ProcessGroup, resolve
from arraygrad.distributed.header import agree, encode
from arraygrad.distributed.reduce_ops import ReduceOp
from arraygrad.distributed.work import Work
from arraygrad.tensor import Tensor

__all__ = ["all_gather", "all_gather_into_tensor", "all_gather_single", "all_reduce", "barrier",
           "broadcast", "gather", "reduce", "reduce_scatter_block", "reduce_scatter_single",
           "reduce_scatter_tensor", "scatter"]


def _tensor(value: Any, call: str, name: str = "tensor") -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{call}: {name} must be a Tensor, got {type(value).__name__}")
    return value


def _op(op: Any, call: str, tensor: Tensor) -> str | None:
    """The backend's name for ``op``; AVG on integers is an error (returned, not raised)."""
    if not isinstance(op, ReduceOp):
        raise TypeError(f"{call}: op must be a ReduceOp, got {op!r}")
    if op is ReduceOp.AVG and not tensor.is_floating_point():
        return f"{call}: ReduceOp.AVG needs a floating-point tensor, got {tensor.dtype}"
    return None


def _root(g: ProcessGroup, call: str, rank: int | None, group_rank: int | None,
          what: str) -> int:
    """The group rank of a ``src``/``dst`` given as a global or a group rank."""
    if rank is not None and group_rank is not None:
        raise ValueError(f"{call}: Can't specify both {what} and group_{what}")
    if group_rank is not None:
        if not 0 <= group_rank < g.size():
            raise ValueError(f"{call}: group_{what}={group_rank} is not a rank of {g}")
        return group_rank
    if rank is None:
        raise ValueError(f"{call}: Must specify {what} or group_{what}")
    return g.group_rank(rank)


def _sig(t: Tensor, root: int = -1, error: str | None = None) -> Any:
    return encode(tuple(t.shape), t.dtype, root, error is not None)


def _done(async_op: bool, work: Work | None = None) -> Work | None:
    return (work or Work()) if async_op else None


def all_reduce(tensor: Tensor, op: ReduceOp = ReduceOp.SUM, group: ProcessGroup | None = None,
               async_op: bool = False) -> Work | None:
    """Reduce ``tensor`` across the group, in place on every rank (``Iallreduce`` if async)."""
    g = resolve(group, "all_reduce")
    tensor = _tensor(tensor, "all_reduce")
    error = _op(op, "all_reduce", tensor)
    if g.backend is None:
        return None
    comm = g.backend
    agree(comm, "all_reduce", _sig(tensor, -1, error), error)
    buf = Buffer(tensor, comm)
    request = comm.allreduce(buf.array, "sum" if op is ReduceOp.AVG else op.value, async_op)

    def finish() -> None:
        if op is ReduceOp.AVG:
            buf.array /= comm.size
        buf.commit()

    work = Work(request, finish)
    if not async_op:
        work.wait()
    return _done(async_op, work)


def broadcast(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None,
              async_op: bool = False, group_src: int | None = None) -> Work | None:
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every rank of the group."""
    g = resolve(group, "broadcast")
    tensor = _tensor(tensor, "broadcast")
    if g.backend is None:
        return None
    root = _root(g, "broadcast", src, group_src, "src")
    agree(g.backend, "broadcast", _sig(tensor, root), None)
    buf = Buffer(tensor, g.backend)
    g.backend.broadcast(buf.array, root)
    buf.commit()
    return _done(async_op)


def reduce(tensor: Tensor, dst: int | None = None, op: ReduceOp = ReduceOp.SUM,
           group: ProcessGroup | None = None, async_op: bool = False,
           group_dst: int | None = None) -> Work | None:
    """Reduce ``tensor`` across the group into rank ``dst``'s ``tensor``."""
    g = resolve(group, "reduce")
    tensor = _tensor(tensor, "reduce")
    error = _op(op, "reduce", tensor)
    if g.backend is None:
        return None
    comm = g.backend
    root = _root(g, "reduce", dst, group_dst, "dst")
    agree(comm, "reduce", _sig(tensor, root, error), error)
    buf = Buffer(tensor, comm)
    comm.reduce(buf.array, root, "sum" if op is ReduceOp.AVG else op.value)
    if comm.rank == root:
        if op is ReduceOp.AVG:
            buf.array /= comm.size
        buf.commit()
    return _done(async_op)


def _same(t: Tensor, like: Tensor) -> bool:
    return tuple(t.shape) == tuple(like.shape) and t.dtype == like.dtype


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: ProcessGroup | None = None,
               async_op: bool = False) -> Work | None:
    """Every rank's ``tensor``, in rank order, into ``tensor_list`` (one per rank)."""
    g = resolve(group, "all_gather")
    tensor = _tensor(tensor, "all_gather")
    if g.backend is None:
        return None
    comm = g.backend
    error = None
    if not isinstance(tensor_list, list) or len(tensor_list) != comm.size:
        error = (f"all_gather: tensor_list must be a list of {comm.size} tensors (the group's "
                 f"size), got {len(tensor_list) if isinstance(tensor_list, list) else tensor_list!r}")
    elif not all(isinstance(t, Tensor) and _same(t, tensor) for t in tensor_list):
        error = ("all_gather: every tensor of tensor_list must have the input's shape "
                 f"{list(tensor.shape)} and dtype {tensor.dtype}")
    agree(comm, "all_gather", _sig(tensor, -1, error), error)
    out = host_empty(tensor, (comm.size,) + tuple(tensor.shape))
    comm.allgather(Buffer(tensor, comm).array, out)
    for i, t in enumerate(tensor_list):
        Buffer(t, comm).write(out[i])
    return _done(async_op)


def _all_gather_into(call: str, output_tensor: Tensor, input_tensor: Tensor,
                     group: ProcessGroup | None, async_op: bool) -> Work | None:
    g = resolve(group, call)
    inp = _tensor(input_tensor, call, "input_tensor")
    out = _tensor(output_tensor, call, "output_tensor")
    if g.backend is None:
        return None
    comm = g.backend
    error = None
    if out.dtype != inp.dtype or out.numel() != comm.size * inp.numel():
        error = (f"{call}: output tensor size must be equal to world_size "
                 f"({comm.size}) times input tensor size, with the same dtype; got output "
                 f"{list(out.shape)} {out.dtype} for input {list(inp.shape)} {inp.dtype}")
    agree(comm, call, _sig(inp, -1, error), error)
    buf = Buffer(out, comm)
    comm.allgather(Buffer(inp, comm).array, buf.array)
    buf.commit()
    return _done(async_op)


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor,
                           group: ProcessGroup | None = None,
                           async_op: bool = False) -> Work | None:
    """Every rank's ``input_tensor`` concatenated (or stacked) in rank order into ``output_tensor``."""
    return _all_gather_into("all_gather_into_tensor", output_tensor, input_tensor, group,
                            async_op)


def all_gather_single(output_tensor: Tensor, input_tensor: Tensor,
                      group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """PyTorch's other name for ``all_gather_into_tensor`` (the same call)."""
    return _all_gather_into("all_gather_single", output_tensor, input_tensor, group, async_op)


def reduce_scatter_block(comm: Any, out: Tensor, send: Any, op: ReduceOp) -> None:
    """Reduce the host or backend array ``send`` (``size`` blocks of ``out``'s size) across
    ranks; rank r's ``out`` gets block r (AVG: divided by the size)."""
    buf = Buffer(out, comm)
    comm.reduce_scatter(send, buf.array, "sum" if op is ReduceOp.AVG else op.value)
    if op is ReduceOp.AVG:
        buf.array /= comm.size
    buf.commit()


def _reduce_scatter_into(call: str, output: Tensor, input: Tensor, op: ReduceOp,
                         group: ProcessGroup | None, async_op: bool) -> Work | None:
    g = resolve(group, call)
    inp = _tensor(input, call, "input")
    out = _tensor(output, call, "output")
    error = _op(op, call, inp)
    if g.backend is None:
        return None
    comm = g.backend
    if error is None and (out.dtype != inp.dtype or inp.numel() != comm.size * out.numel()):
        error = (f"{call}: input tensor size must be equal to world_size "
                 f"({comm.size}) times output tensor size, with the same dtype; got input "
                 f"{list(inp.shape)} {inp.dtype} for output {list(out.shape)} {out.dtype}")
    agree(comm, call, _sig(inp, -1, error), error)
    reduce_scatter_block(comm, out, Buffer(inp, comm).array, op)
    return _done(async_op)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: ReduceOp = ReduceOp.SUM,
                          group: ProcessGroup | None = None,
                          async_op: bool = False) -> Work | None:
    """Reduce ``input`` across ranks; rank r gets block r (of ``output``'s size) in ``output``."""
    return _reduce_scatter_into("reduce_scatter_tensor", output, input, op, group, async_op)


def reduce_scatter_single(output: Tensor, input: Tensor, op: ReduceOp = ReduceOp.SUM,
                          group: ProcessGroup | None = None,
                          async_op: bool = False) -> Work | None:
    """PyTorch's other name for ``reduce_scatter_tensor`` (the same call)."""
    return _reduce_scatter_into("reduce_scatter_single", output, input, op, group, async_op)


def _root_list_error(op: str, name: str, role: str, comm: Any, root: int, tensors: Any,
                     like: Tensor) -> str | None:
    """The root rank's list must be one tensor per rank like ``like``; other ranks give none
    (the message, or None when this rank's arguments are right)."""
    if comm.rank == root:
        if (not isinstance(tensors, list) or len(tensors) != comm.size
                or not all(isinstance(t, Tensor) and _same(t, like) for t in tensors)):
            return (f"{op}: on the {role} rank {name} must be {comm.size} tensors of "
                    f"shape {list(like.shape)} and dtype {like.dtype}")
    elif tensors:
        return f"{op}: Argument ``{name}`` must NOT be specified on non-{role} ranks."
    return None


def gather(tensor: Tensor, gather_list: list[Tensor] | None = None, dst: int | None = None,
           group: ProcessGroup | None = None, async_op: bool = False,
           group_dst: int | None = None) -> Work | None:
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst`` (None elsewhere)."""
    g = resolve(group, "gather")
    tensor = _tensor(tensor, "gather")
    if g.backend is None:
        return None
    comm = g.backend
    root = _root(g, "gather", 0 if dst is None and group_dst is None else dst, group_dst, "dst")
    error = _root_list_error("gather", "gather_list", "destination", comm, root, gather_list,
                             tensor)
    agree(comm, "gather", _sig(tensor, root, error), error)
    out = host_empty(tensor, (comm.size,) + tuple(tensor.shape)) if comm.rank == root else None
    comm.gather(Buffer(tensor, comm).array, out, root)
    if out is not None and gather_list is not None:
        for i, t in enumerate(gather_list):
            Buffer(t, comm).write(out[i])
    return _done(async_op)


def scatter(tensor: Tensor, scatter_list: list[Tensor] | None = None, src: int | None = None,
            group: ProcessGroup | None = None, async_op: bool = False,
            group_src: int | None = None) -> Work | None:
    """Rank r's ``tensor`` receives ``scatter_list[r]`` of rank ``src``."""
    g = resolve(group, "scatter")
    tensor = _tensor(tensor, "scatter")
    if g.backend is None:
        return None
    comm = g.backend
    root = _root(g, "scatter", 0 if src is None and group_src is None else src, group_src, "src")
    error = _root_list_error("scatter", "scatter_list", "source", comm, root, scatter_list,
                             tensor)
    agree(comm, "scatter", _sig(tensor, root, error), error)
    send = None
    if comm.rank == root and scatter_list is not None:
        send = host_empty(tensor, (comm.size,) + tuple(tensor.shape))
        for i, t in enumerate(scatter_list):
            send[i] = t._backend.to_host(t._data)
    buf = Buffer(tensor, comm)
    comm.scatter(send, buf.array, root)
    buf.commit()
    return _done(async_op)


def barrier(group: ProcessGroup | None = None, async_op: bool = False, device_ids: Any = None,
            timeout: Any = None) -> Work | None:
    """Wait until every rank of the group reached the barrier."""
    g = resolve(group, "barrier")
    if g.backend is not None:
        g.backend.barrier()
    return _done(async_op)
