"""Ranks and groups, asked about: ``get_global_rank``, ``get_group_rank``,
``get_process_group_ranks``, ``get_pg_count``, ``get_backend_config``, and what the
launcher says: ``get_node_local_rank``, ``is_torchelastic_launched``."""

from __future__ import annotations

import os

from arraygrad.distributed.backend_names import BackendConfig
from arraygrad.distributed import groups
from arraygrad.distributed.groups import GroupMember, ProcessGroup, default_group

__all__ = ["get_backend_config", "get_global_rank", "get_group_rank", "get_node_local_rank",
           "get_pg_count", "get_process_group_ranks", "is_torchelastic_launched"]

# the local rank MPI launchers give each process, where PyTorch's launcher gives LOCAL_RANK
_LAUNCHER_LOCAL_RANK = ("MPI_LOCALRANKID", "OMPI_COMM_WORLD_LOCAL_RANK", "PMI_LOCAL_RANK",
                        "SLURM_LOCALID")


def _registered(group: ProcessGroup) -> ProcessGroup:
    if group not in groups._groups:
        raise ValueError(f"Group {group} is not registered, please create group with "
                         "torch.distributed.new_group API")
    return group


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    """The global rank of ``group_rank`` of ``group`` (the identity on the world)."""
    if group is GroupMember.WORLD:
        return group_rank
    ranks = _registered(group).ranks
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return ranks[group_rank]


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    """The rank in ``group`` of the process of global rank ``global_rank``."""
    if group is GroupMember.WORLD:
        return global_rank
    return _registered(group).group_rank(global_rank)


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    """The global ranks of ``group``'s members in group-rank order (None: the world)."""
    return list((group or default_group("get_process_group_ranks")).ranks)


def get_pg_count() -> int:
    """How many process groups exist: the default one and every ``new_group`` since."""
    return groups._count[0]


def get_backend_config(group: ProcessGroup | None = None) -> str:
    """``group``'s backend per device type, as ``"cpu:mpi,cuda:mpi"``."""
    g = group or default_group("get_backend_config")
    if g.backend is None:
        raise ValueError("Invalid process group specified")
    return str(BackendConfig(g.backend_name))


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    """This process's rank on its machine: ``LOCAL_RANK`` (torchrun's), else the MPI
    launcher's (MPICH's ``MPI_LOCALRANKID``, Open MPI's, PMI's, Slurm's), else
    ``fallback_rank``; RuntimeError when none is known."""
    for name in ("LOCAL_RANK",) + _LAUNCHER_LOCAL_RANK:
        if name in os.environ:
            return int(os.environ[name])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError(
        "LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
        "`get_node_local_rank` to work, assuming you are not running in a multi-device "
        "context and want the code to run locally instead.")


def is_torchelastic_launched() -> bool:
    """Whether TorchElastic (``torchrun``) started this process: ``TORCHELASTIC_RUN_ID`` is set."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None
