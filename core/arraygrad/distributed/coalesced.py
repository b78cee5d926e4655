"""Collectives over lists of tensors, as one call on one packed buffer:
``all_reduce_coalesced``, ``all_gather_coalesced`` and ``reduce_scatter`` (a list per rank).

The tensors of a list must share a dtype (PyTorch's ValueError otherwise); they are
packed into one contiguous host buffer, communicated once, and unpacked.
"""

from __future__ import annotations

import warnings
from typing import Any

from arraygrad.distributed.all_to_all import _dtype_error, _type_error
from arraygrad.distributed.buffers import Buffer, host_empty
from arraygrad.distributed.collectives import _done, _op, _tensor, reduce_scatter_block
from arraygrad.distributed.groups import ProcessGroup, resolve
from arraygrad.distributed.header import agree, encode
from arraygrad.distributed.reduce_ops import ReduceOp
from arraygrad.distributed.work import Work
from arraygrad.tensor import Tensor

__all__ = ["all_gather_coalesced", "all_reduce_coalesced", "reduce_scatter"]


def _same_dtype(tensors: list[Tensor]) -> Exception | None:
    for t in tensors[1:]:
        error = _dtype_error(tensors[0], t)
        if error is not None:
            return error
    return None


def _pack(tensors: list[Tensor]) -> Any:
    """The tensors' values, flattened and concatenated, in a host array of their dtype."""
    packed = host_empty(tensors[0], (sum(t.numel() for t in tensors),))
    at = 0
    for t in tensors:
        packed[at:at + t.numel()] = t._backend.to_host(t._data).reshape(-1)
        at += t.numel()
    return packed


def _unpack(packed: Any, tensors: list[Tensor], comm: Any) -> None:
    at = 0
    for t in tensors:
        Buffer(t, comm).write(packed[at:at + t.numel()])
        at += t.numel()


def all_reduce_coalesced(tensors: list[Tensor], op: ReduceOp = ReduceOp.SUM,
                         group: ProcessGroup | None = None,
                         async_op: bool = False) -> Work | None:
    """``all_reduce`` of every tensor of ``tensors`` (one dtype), in place, as one call."""
    call = "all_reduce_coalesced"
    g = resolve(group, call)
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    if g.backend is None:
        return None
    comm = g.backend
    error: Exception | str | None = _type_error("tensors", tensors) or _same_dtype(tensors)
    if error is None and tensors:
        error = _op(op, call, tensors[0])
    total = sum(t.numel() for t in tensors) if error is None else 0
    like = tensors[0] if error is None and tensors else None
    agree(comm, call, encode((len(tensors) if error is None else 0, total),
                             like.dtype if like is not None else None, -1, error is not None),
          error, what="list of tensors")
    if like is None:
        return _done(async_op)
    packed = _pack(tensors)
    request = comm.allreduce(packed, "sum" if op is ReduceOp.AVG else op.value, async_op)

    def finish() -> None:
        if op is ReduceOp.AVG:
            packed[...] /= comm.size
        _unpack(packed, tensors, comm)

    work = Work(request, finish)
    if not async_op:
        work.wait()
    return _done(async_op, work)


def all_gather_coalesced(output_tensor_lists: list[list[Tensor]], input_tensor_list: list[Tensor],
                         group: ProcessGroup | None = None,
                         async_op: bool = False) -> Work | None:
    """``output_tensor_lists[r][i]`` receives rank r's ``input_tensor_list[i]``, as one call.

    Deprecated in PyTorch (a FutureWarning, as there). With ``async_op=True`` PyTorch
    returns a Future; arraygrad returns a completed ``Work`` (``wait()`` as on a Future).
    """
    warnings.warn("`torch.distributed.all_gather_coalesced` will be deprecated. If you must use "
                  "it, please revisit our documentation later at "
                  "https://pytorch.org/docs/main/distributed.html#collective-functions",
                  FutureWarning, stacklevel=2)
    call = "all_gather_coalesced"
    g = resolve(group, call)
    if g.backend is None:
        return None
    comm = g.backend
    error: Exception | str | None = (_type_error("input_tensor_list", input_tensor_list)
                                     or _same_dtype(input_tensor_list))
    if error is None and not isinstance(output_tensor_lists, list):
        error = TypeError("Invalid function argument: output_tensor_lists should be a list")
    if error is None:
        for row in output_tensor_lists:
            error = error or _type_error("output_tensor_lists", row) or _same_dtype(row)
    if error is None and (len(output_tensor_lists) != comm.size or any(
            len(row) != len(input_tensor_list)
            or any(tuple(o.shape) != tuple(i.shape) or o.dtype != i.dtype
                   for o, i in zip(row, input_tensor_list)) for row in output_tensor_lists)):
        error = (f"{call}: output_tensor_lists must hold {comm.size} lists (the group's size), "
                 "each of tensors of the input tensors' shapes and dtype")
    ok = error is None and bool(input_tensor_list)
    total = sum(t.numel() for t in input_tensor_list) if ok else 0
    like = input_tensor_list[0] if ok else None
    agree(comm, call, encode((len(input_tensor_list) if ok else 0, total),
                             like.dtype if like is not None else None, -1, error is not None),
          error, what="list of tensors")
    if like is None:
        return _done(async_op)
    gathered = host_empty(like, (comm.size * total,))
    comm.allgather(_pack(input_tensor_list), gathered)
    for r, row in enumerate(output_tensor_lists):
        _unpack(gathered[r * total:(r + 1) * total], row, comm)
    return _done(async_op)


def reduce_scatter(output: Tensor, input_list: list[Tensor], op: ReduceOp = ReduceOp.SUM,
                   group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Reduce ``input_list[r]`` across the ranks into rank r's ``output``."""
    call = "reduce_scatter"
    g = resolve(group, call)
    out = _tensor(output, call, "output")
    if g.backend is None:
        return None
    comm = g.backend
    error: Exception | str | None = _type_error("input_list", input_list)
    if error is None:
        error = _same_dtype([out] + input_list) or _op(op, call, out)
    if error is None and len(input_list) != comm.size:
        error = "invalid input tensor list size, must be world size"
    if error is None and any(tuple(t.shape) != tuple(out.shape) for t in input_list):
        error = (f"{call}: every tensor of input_list must have the output's shape "
                 f"{list(out.shape)}, got {[list(t.shape) for t in input_list]}")
    agree(comm, call, encode(tuple(out.shape), out.dtype, -1, error is not None), error)
    reduce_scatter_block(comm, out, _pack(input_list), op)
    return _done(async_op)
