"""``arraygrad.distributed``: PyTorch's ``torch.distributed`` on MPI (mpi4py).

Start ``N`` processes with ``mpiexec -n N python -m mpi4py train.py`` (or
``python -m arraygrad.distributed.run``) and call ``init_process_group()``; rank and
world size come from MPI, and a plain ``python`` run is a world of one.

>>> import arraygrad.distributed as dist
>>> dist.init_process_group()            # backend="mpi"
>>> t = arraygrad.ones(3) * dist.get_rank()
>>> dist.all_reduce(t)                   # in place: the sum over the ranks

Tensors on the NumPy backend travel as their own buffers (no copy, no pickling);
other backends go through a host copy. Every collective first exchanges a small
header, so a tensor of another shape or dtype on one rank is a RuntimeError on
every rank. Process-group backends are plugins (the ``arraygrad_register_distributed``
hook): ``mpi`` comes with the core, ``nccl`` with the CuPy backend.
"""

from arraygrad.distributed.collectives import (
    all_gather, all_gather_into_tensor, all_reduce, barrier, broadcast, gather, reduce,
    reduce_scatter_tensor, scatter,
)
from arraygrad.distributed.group import (
    DistNotInitializedError, GroupMember, ProcessGroup, destroy_process_group, get_backend,
    get_rank, get_world_size, init_process_group, is_available, is_initialized,
    is_mpi_available, new_group,
)
from arraygrad.distributed.objects import all_gather_object, broadcast_object_list
from arraygrad.distributed.p2p import irecv, isend, recv, send
from arraygrad.distributed.reduce_op import ReduceOp
from arraygrad.distributed.work import Work

__all__ = [
    "DistNotInitializedError", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather",
    "all_gather_into_tensor", "all_gather_object", "all_reduce", "barrier", "broadcast",
    "broadcast_object_list", "destroy_process_group", "gather", "get_backend", "get_rank",
    "get_world_size", "init_process_group", "irecv", "is_available", "is_initialized",
    "is_mpi_available", "isend", "new_group", "recv", "reduce", "reduce_scatter_tensor",
    "scatter", "send",
]
