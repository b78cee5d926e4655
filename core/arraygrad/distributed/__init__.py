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

from typing import Any, NewType

from arraygrad.distributed.all_to_all import all_to_all, all_to_all_single
from arraygrad.distributed.backend_names import (
    Backend, BackendConfig, get_default_backend_for_device, is_backend_available,
    is_gloo_available, is_nccl_available, is_ucc_available, is_xccl_available,
)
from arraygrad.distributed.batch_p2p import P2POp, batch_isend_irecv
from arraygrad.distributed.coalesced import (
    all_gather_coalesced, all_reduce_coalesced, reduce_scatter,
)
from arraygrad.distributed.collectives import (
    all_gather, all_gather_into_tensor, all_gather_single, all_reduce, barrier, broadcast,
    gather, reduce, reduce_scatter_single, reduce_scatter_tensor, scatter,
)
from arraygrad.distributed import constants
from arraygrad.distributed.constants import default_pg_timeout
from arraygrad.distributed.debug import (
    DebugLevel, breakpoint, get_debug_level, log, record_comm, set_debug_level,
    set_debug_level_from_env,
)
from arraygrad.distributed import device_mesh
from arraygrad.distributed.device_mesh import DeviceMesh, init_device_mesh
from arraygrad.distributed.errors import (
    DistBackendError, DistError, DistNetworkError, DistStoreError, QueueEmptyError,
)
from arraygrad.distributed.groups import (
    DistNotInitializedError, GroupMember, ProcessGroup, destroy_process_group, get_backend,
    get_rank, get_world_size, group, init_process_group, is_available, is_initialized,
    is_mpi_available, new_group,
)
from arraygrad.distributed.monitored import monitored_barrier
from arraygrad.distributed.objects import (
    all_gather_object, broadcast_object_list, gather_object, recv_object_list,
    scatter_object_list, send_object_list,
)
from arraygrad.distributed.p2p import irecv, isend, recv, send
from arraygrad.distributed.ranks import (
    get_backend_config, get_global_rank, get_group_rank, get_node_local_rank, get_pg_count,
    get_process_group_ranks, is_torchelastic_launched,
)
from arraygrad.distributed.reduce_ops import ReduceOp, reduce_op, supports_complex
from arraygrad.distributed.rendezvous import register_rendezvous_handler, rendezvous
from arraygrad.distributed.stores import FileStore, HashStore, PrefixStore, Store, TCPStore
from arraygrad.distributed.subgroups import (
    new_subgroups, new_subgroups_by_enumeration, split_group,
)
from arraygrad.distributed.work import Work
from arraygrad.distributed import algorithms

GroupName = NewType("GroupName", str)  # PyTorch's name for a group's name
RankType = int  # PyTorch's (int | SymInt): arraygrad has no symbolic integers

set_debug_level_from_env()  # as PyTorch at import: TORCH_DISTRIBUTED_DEBUG

__all__ = [
    "Backend", "BackendConfig", "DebugLevel", "DeviceMesh", "DistBackendError", "DistError",
    "DistNetworkError", "DistNotInitializedError", "DistStoreError", "FileStore", "GroupMember",
    "GroupName", "HashStore", "P2POp", "PrefixStore", "ProcessGroup", "QueueEmptyError",
    "RankType", "ReduceOp", "Store", "TCPStore", "Work", "algorithms", "all_gather",
    "all_gather_coalesced", "all_gather_into_tensor", "all_gather_object", "all_gather_single",
    "all_reduce", "all_reduce_coalesced", "all_to_all", "all_to_all_single", "barrier",
    "batch_isend_irecv", "breakpoint", "broadcast", "broadcast_object_list", "constants",
    "default_pg_timeout", "destroy_process_group", "device_mesh", "distributed_c10d", "gather",
    "gather_object", "get_backend", "get_backend_config", "get_debug_level",
    "get_default_backend_for_device", "get_global_rank", "get_group_rank",
    "get_node_local_rank", "get_pg_count", "get_process_group_ranks", "get_rank",
    "get_world_size", "group", "init_device_mesh", "init_process_group", "irecv",
    "is_available", "is_backend_available", "is_gloo_available", "is_initialized",
    "is_mpi_available", "is_nccl_available", "is_torchelastic_launched", "is_ucc_available",
    "is_xccl_available", "isend", "log", "monitored_barrier", "new_group", "new_subgroups",
    "new_subgroups_by_enumeration", "record_comm", "recv", "recv_object_list",
    "reduce", "reduce_op",
    "reduce_scatter", "reduce_scatter_single", "reduce_scatter_tensor",
    "register_rendezvous_handler", "rendezvous", "scatter", "scatter_object_list", "send",
    "send_object_list", "set_debug_level", "set_debug_level_from_env", "split_group",
    "supports_complex",
]


def __getattr__(name: str) -> Any:
    """``distributed_c10d`` (the module PyTorch's API is written in, which looks its names up
    here) loads on first use: importing it with the package would make the two import each
    other."""
    import importlib

    if name == "distributed_c10d":
        return importlib.import_module(f"{__name__}.{name}")
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.distributed", name, "arraygrad.distributed")
