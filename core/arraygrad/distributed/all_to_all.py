"""``all_to_all`` and ``all_to_all_single``: rank r sends block j of its input to rank j and
receives rank j's block r into block j of its output (``MPI_Alltoallv``).

Blocks may differ in size (``all_to_all_single``'s split sizes, the lists' tensors);
after the usual header (dtype and, for the single form, the rows' shape), the ranks
exchange their block sizes, so a block one rank sends and its receiver expects in
another size is an error on every rank before any data moves.
"""

from __future__ import annotations

from array import array
from typing import Any

from arraygrad.distributed.buffers import Buffer, host_empty
from arraygrad.distributed.collectives import _done, _tensor
from arraygrad.distributed.errors import DistBackendError
from arraygrad.distributed.groups import ProcessGroup, resolve
from arraygrad.distributed.header import agree, encode
from arraygrad.distributed.work import Work
from arraygrad.tensor import Tensor

__all__ = ["all_to_all", "all_to_all_single"]


def _dtype_error(a: Tensor, b: Tensor) -> ValueError | None:
    if a.dtype == b.dtype:
        return None
    return ValueError(f"Invalid usage of tensors with different dtypesFound {a.dtype} and  "
                      f"{b.dtype}")


def _counts_agree(comm: Any, call: str, send: list[int], recv: list[int]) -> None:
    """Every rank's send and receive counts; raise on every rank where a pair disagrees."""
    n = comm.size
    every = comm.allgather_header(array("q", send + recv))
    rows = [list(every[i * 2 * n:(i + 1) * 2 * n]) for i in range(n)]
    wrong = [(i, j) for i in range(n) for j in range(n) if rows[i][j] != rows[j][n + i]]
    if wrong:
        shown = ", ".join(f"rank {i} sends {rows[i][j]} elements to rank {j}, which expects "
                          f"{rows[j][n + i]}" for i, j in wrong)
        raise DistBackendError(f"{call}: the ranks' split sizes do not match: {shown}")


def _splits(call: str, t: Tensor, given: Any, size: int, name: str) -> list[int]:
    """The row counts of ``t``'s blocks (even blocks when ``given`` is None)."""
    rows = t.shape[0] if t.dim() > 0 else 1
    if given is None:
        if rows % size != 0:
            raise RuntimeError(f"{call}: the {name} tensor's first dimension ({rows}) must be "
                               f"divisible by the group's size ({size}) without split sizes")
        return [rows // size] * size
    splits = [int(s) for s in given]
    if len(splits) != size:
        raise RuntimeError("Number of tensor splits not equal to group size")
    if sum(splits) != rows or any(s < 0 for s in splits):
        raise RuntimeError("Split sizes doesn't match total dim 0 size")
    return splits


def all_to_all_single(output: Tensor, input: Tensor, output_split_sizes: list[int] | None = None,
                      input_split_sizes: list[int] | None = None,
                      group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Split ``input`` along dim 0 (``input_split_sizes`` rows per rank, else evenly), send
    block j to rank j, and put what rank j sends into ``output``'s block j
    (``output_split_sizes``)."""
    call = "all_to_all_single"
    g = resolve(group, call)
    out = _tensor(output, call, "output")
    inp = _tensor(input, call, "input")
    if g.backend is None:
        return None
    comm = g.backend
    error: Exception | None = _dtype_error(out, inp)
    send: list[int] = []
    recv: list[int] = []
    if error is None:
        try:
            in_rows = _splits(call, inp, input_split_sizes, comm.size, "input")
            out_rows = _splits(call, out, output_split_sizes, comm.size, "output")
            if tuple(inp.shape[1:]) != tuple(out.shape[1:]):
                raise RuntimeError(f"{call}: input {list(inp.shape)} and output "
                                   f"{list(out.shape)} must have the same shape past dim 0")
        except RuntimeError as exc:
            error = exc
        else:
            row = 1
            for d in inp.shape[1:]:
                row *= d
            send, recv = [r * row for r in in_rows], [r * row for r in out_rows]
    agree(comm, call, encode(tuple(inp.shape[1:]), inp.dtype, -1, error is not None), error,
          what="input's shape past dim 0 or dtype")
    _counts_agree(comm, call, send, recv)
    buf = Buffer(out, comm)
    comm.alltoall(Buffer(inp, comm).array, send, buf.array, recv)
    buf.commit()
    return _done(async_op)


def _type_error(name: str, tensors: Any) -> TypeError | None:
    if isinstance(tensors, list) and all(isinstance(t, Tensor) for t in tensors):
        return None
    return TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                     "List[torch.Tensor]")


def _size_error(call: str, name: str, tensors: list[Tensor], size: int) -> Exception | None:
    if len(tensors) == size:
        return None
    return RuntimeError(f"{call}: {name.split('_')[0]} tensor list size {len(tensors)} does "
                        f"not match world size {size}")


def all_to_all(output_tensor_list: list[Tensor], input_tensor_list: list[Tensor],
               group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Send ``input_tensor_list[j]`` to rank j; ``output_tensor_list[j]`` receives rank j's
    tensor for this rank (the sizes may differ between pairs of ranks)."""
    call = "all_to_all"
    g = resolve(group, call)
    if g.backend is None:
        return None
    comm = g.backend
    error: Exception | None = (_type_error("output_tensor_list", output_tensor_list)
                               or _type_error("input_tensor_list", input_tensor_list))
    if error is None:
        error = (_size_error(call, "output_tensor_list", output_tensor_list, comm.size)
                 or _size_error(call, "input_tensor_list", input_tensor_list, comm.size))
    tensors = output_tensor_list + input_tensor_list if error is None else []
    if error is None:
        for t in tensors[1:]:
            error = error or _dtype_error(tensors[0], t)
    like = tensors[0] if tensors else None
    send = [t.numel() for t in input_tensor_list] if error is None else []
    recv = [t.numel() for t in output_tensor_list] if error is None else []
    agree(comm, call, encode((), like.dtype if like is not None else None, -1,
                             error is not None), error, what="dtype")
    _counts_agree(comm, call, send, recv)
    assert like is not None
    packed = host_empty(like, (sum(send),))
    at = 0
    for t in input_tensor_list:
        packed[at:at + t.numel()] = t._backend.to_host(t._data).reshape(-1)
        at += t.numel()
    gathered = host_empty(like, (sum(recv),))
    comm.alltoall(packed, send, gathered, recv)
    at = 0
    for t in output_tensor_list:
        Buffer(t, comm).write(gathered[at:at + t.numel()])
        at += t.numel()
    return _done(async_op)
