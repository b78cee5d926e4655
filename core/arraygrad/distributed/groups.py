"""Process groups: the default (world) group and ``new_group``'s subgroups.

A ``ProcessGroup`` is a backend communicator plus the global ranks of its
members; ``src``/``dst`` arguments are global ranks, as in PyTorch.
"""

from __future__ import annotations

import importlib.util
from typing import Any

from arraygrad.distributed.backend import ProcessGroupBackend
from arraygrad.distributed.registry import get_factory

__all__ = ["DistNotInitializedError", "GroupMember", "group", "ProcessGroup", "default_group",
           "destroy_process_group", "get_backend", "get_rank", "get_world_size",
           "init_process_group", "is_available", "is_initialized", "is_mpi_available",
           "new_group", "resolve"]


class DistNotInitializedError(RuntimeError, ValueError):
    """A call needs ``init_process_group`` first.

    A RuntimeError (as the issue asks) that is also the ValueError PyTorch raises.
    """


class ProcessGroup:
    """A group of processes: its backend communicator and its members' global ranks."""

    def __init__(self, backend: ProcessGroupBackend | None, ranks: list[int],
                 backend_name: str, group_name: str = "", group_desc: str | None = None) -> None:
        self.backend = backend  # None on a rank outside the group
        self.ranks = ranks
        self.backend_name = backend_name
        self.group_name = group_name  # PyTorch's: "0" for the world, then "1", "2", ...
        self.group_desc = group_desc or "undefined"

    def rank(self) -> int:
        """This process's rank in the group (-1 outside it)."""
        return self.backend.rank if self.backend is not None else -1

    def size(self) -> int:
        """How many processes the group has."""
        return len(self.ranks)

    def name(self) -> str:
        """The backend's name."""
        return self.backend_name

    def group_rank(self, global_rank: int) -> int:
        """The group rank of ``global_rank``; ValueError if it is not a member."""
        try:
            return self.ranks.index(global_rank)
        except ValueError:
            raise ValueError(f"Global rank {global_rank} is not part of group {self}") from None

    def __repr__(self) -> str:
        return f"ProcessGroup(backend={self.backend_name!r}, ranks={self.ranks})"


class GroupMember:
    """PyTorch's ``GroupMember``: ``WORLD`` (the default group) and ``NON_GROUP_MEMBER``."""

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = -100


class _WorldMeta(type):
    """``group.WORLD``: the default group, read when asked (PyTorch's metaclass trick)."""

    @property
    def WORLD(cls) -> ProcessGroup | None:  # noqa: N802 - PyTorch's name
        return GroupMember.WORLD


class group(metaclass=_WorldMeta):  # noqa: N801 - PyTorch's name
    """PyTorch's ``torch.distributed.group``: ``group.WORLD`` is the default group."""


_groups: list[ProcessGroup] = []
_count = [0]  # groups created since the default group was (get_pg_count)


def _register(group: ProcessGroup) -> ProcessGroup:
    """Record a new group: it gets the next name and counts for ``get_pg_count``."""
    if not group.group_name:
        group.group_name = str(_count[0])
    _count[0] += 1
    _groups.append(group)
    return group


def is_available() -> bool:
    """Whether ``arraygrad.distributed`` can run here (mpi4py is installed)."""
    return is_mpi_available()


def is_mpi_available() -> bool:
    """Whether the ``mpi`` backend's mpi4py is installed."""
    return importlib.util.find_spec("mpi4py") is not None


def is_initialized() -> bool:
    """Whether the default process group exists."""
    return GroupMember.WORLD is not None


def default_group(call: str) -> ProcessGroup:
    """The default group; ``DistNotInitializedError`` naming ``call`` before init."""
    if GroupMember.WORLD is None:
        raise DistNotInitializedError(
            f"{call}: Default process group has not been initialized, please make sure to "
            "call init_process_group.")
    return GroupMember.WORLD


def resolve(group: ProcessGroup | None, call: str) -> ProcessGroup:
    """``group`` or the default group (which must exist either way)."""
    world = default_group(call)
    return world if group is None else group


def init_process_group(backend: str | None = "mpi", init_method: str | None = None,
                       timeout: Any = None, world_size: int = -1, rank: int = -1,
                       store: Any = None, group_name: str = "", pg_options: Any = None,
                       device_id: Any = None, _ranks: list[int] | None = None) -> None:
    """Create the default group. Rank and world size come from the backend (``mpiexec``).

    A plain ``python`` run is a world of one. ``world_size``/``rank``, when given,
    must agree with MPI's (ValueError otherwise); ``init_method``, ``store`` and
    ``timeout`` are accepted for compatibility (MPI's launcher already connected
    the processes). ``group_name`` names the group (default ``"0"``; with ``_ranks``, a
    name made from them, as in PyTorch).
    """
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = (backend or "mpi").lower()
    factory = get_factory(name)
    comm: ProcessGroupBackend = factory(timeout=timeout)
    problems = []
    if world_size not in (-1, comm.size):
        problems.append(f"world_size={world_size} but the launcher started {comm.size} "
                        "processes")
    if rank not in (-1, comm.rank):
        problems.append(f"rank={rank} but this process is rank {comm.rank}")
    if problems:
        comm.close()
        raise ValueError("init_process_group: " + "; ".join(problems))
    if _ranks:
        group_name = str(hash(tuple(_ranks)) & 0xFFFFFFFF)
    from arraygrad.distributed.backend_names import Backend

    GroupMember.WORLD = _register(ProcessGroup(comm, list(range(comm.size)), Backend(name),
                                               group_name))


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Destroy ``group``, or (None) every group and the default one."""
    world = default_group("destroy_process_group")
    doomed = list(_groups) if group is None or group is world else [group]
    for g in doomed:
        if g.backend is not None:
            g.backend.close()
            g.backend = None
        if g in _groups:
            _groups.remove(g)
    if group is None or group is world:
        GroupMember.WORLD = None
        _count[0] = 0


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in ``group`` (default: the world); -1 outside the group."""
    return resolve(group, "get_rank").rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of processes in ``group`` (default: the world); -1 outside the group."""
    g = resolve(group, "get_world_size")
    return g.size() if g.backend is not None else -1


def get_backend(group: ProcessGroup | None = None) -> str:
    """The name of ``group``'s backend (``"mpi"``), a ``Backend`` (a ``str``)."""
    return resolve(group, "get_backend").backend_name


def new_group(ranks: Any = None, timeout: Any = None, backend: Any = None,
              pg_options: Any = None, use_local_synchronization: bool = False,
              group_desc: Any = None, device_id: Any = None,
              sort_ranks: bool = True) -> ProcessGroup:
    """A group of the global ``ranks`` (None: all). Every process must call it.

    ValueError for a rank outside the world or a repeated rank (before any
    communication, so no process is left waiting on the others).
    """
    world = default_group("new_group")
    size = world.size()
    members = list(range(size)) if ranks is None else [int(r) for r in ranks]
    bad = [r for r in members if not 0 <= r < size]
    if bad:
        raise ValueError(f"new_group: ranks {bad} are not in the world of size {size} "
                         f"(valid ranks are 0..{size - 1})")
    if len(set(members)) != len(members):
        raise ValueError(f"new_group: ranks {members} contain duplicates")
    if sort_ranks:
        members.sort()
    assert world.backend is not None
    sub = world.backend.split(members)
    return _register(ProcessGroup(sub, members, world.backend_name, group_desc=group_desc))
