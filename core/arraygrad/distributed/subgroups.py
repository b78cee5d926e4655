"""Several groups at once: ``new_subgroups`` (equal blocks of consecutive ranks),
``new_subgroups_by_enumeration`` (the blocks given) and ``split_group`` (PyTorch's
split of a parent group). Every process calls them; each gets the group it is in.

The blocks are checked before any group is made, so a bad list raises on every rank
and no rank is left waiting in a split the others did not start.
"""

from __future__ import annotations

from typing import Any

from arraygrad.distributed.groups import ProcessGroup, default_group, new_group

__all__ = ["new_subgroups", "new_subgroups_by_enumeration", "split_group"]


def new_subgroups(group_size: int | None = None, group: ProcessGroup | None = None,
                  timeout: Any = None, backend: Any = None, pg_options: Any = None,
                  group_desc: str | None = None) -> tuple[ProcessGroup | None,
                                                           list[ProcessGroup]]:
    """Groups of ``group_size`` consecutive ranks of ``group``; (this rank's, all of them).

    ``group_size=None`` means one group per machine in PyTorch (its CUDA device count):
    arraygrad needs it given unless CUDA is available, as PyTorch does.
    """
    if group_size is None:
        from arraygrad import cuda

        if not cuda.is_available():
            raise ValueError("Default group size only takes effect when CUDA is available."
                             "If your subgroup using a backend that does not depend on CUDA,"
                             "please pass in 'group_size' correctly.")
        group_size = int(cuda.device_count())
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    parent = group or default_group("new_subgroups")
    world_size = parent.size()
    if world_size < group_size:
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size "
                         f"({world_size})")
    if world_size % group_size != 0:
        raise ValueError(f"The world size ({world_size}) must be divisible by '{group_size=}'")
    ranks = parent.ranks
    blocks = [ranks[i:i + group_size] for i in range(0, len(ranks), group_size)]
    return new_subgroups_by_enumeration(blocks, timeout=timeout, backend=backend,
                                        pg_options=pg_options, group_desc=group_desc)


def new_subgroups_by_enumeration(ranks_per_subgroup_list: list[list[int]], timeout: Any = None,
                                 backend: Any = None, pg_options: Any = None,
                                 group_desc: str | None = None
                                 ) -> tuple[ProcessGroup | None, list[ProcessGroup]]:
    """One group per list of global ranks; (this rank's or None, all of them)."""
    if ranks_per_subgroup_list is None or len(ranks_per_subgroup_list) == 0:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    me = default_group("new_subgroups_by_enumeration").rank()
    owner: dict[int, list[int]] = {}
    for ranks in ranks_per_subgroup_list:
        for rank in ranks:
            if rank in owner:
                raise ValueError(f"Rank {rank} has appeared in both subgroup {owner[rank]} and "
                                 f"{ranks}")
            owner[rank] = ranks
    subgroups, mine = [], None
    for ranks in ranks_per_subgroup_list:
        subgroup = new_group(ranks=ranks, timeout=timeout, backend=backend,
                             pg_options=pg_options, group_desc=group_desc)
        subgroups.append(subgroup)
        if me in ranks:
            mine = subgroup
    return mine, subgroups


def split_group(parent_pg: ProcessGroup | None = None, split_ranks: list[list[int]] | None = None,
                timeout: Any = None, pg_options: Any = None, group_desc: str | None = None,
                backend: str | None = None) -> ProcessGroup | None:
    """Split ``parent_pg`` (default: the world) into the groups ``split_ranks`` lists (ranks
    of the parent); this rank's group, or None when it is in none of them.

    ``backend`` selects, as in PyTorch, which of the parent's per-device backends the
    children keep: each device it names must use the parent's backend (ValueError otherwise).
    """
    parent = parent_pg or default_group("split_group")
    if backend is not None:
        from arraygrad.distributed.backend_names import BackendConfig

        wanted = BackendConfig(backend).get_device_backend_map()
        have = BackendConfig(parent.backend_name).get_device_backend_map()
        wrong = {d: b for d, b in wanted.items() if have.get(d) != b}
        if wrong:
            raise ValueError(f"split_group: backend {backend!r} asks for {wrong}, but the parent "
                             f"group's backends are {have}")
    if split_ranks is None or len(split_ranks) == 0:
        raise ValueError("split_ranks cannot be None or empty")
    if parent.backend is None:
        raise ValueError("Invalid process group specified")
    size = parent.size()
    for ranks in split_ranks:
        if len(ranks) == 0:
            raise ValueError("the split group cannot be empty")
        if len(ranks) > size:
            raise ValueError("the split group's size should be less or equal to the world_size "
                             "set by init_process_group")
        if len(ranks) != len(set(ranks)):
            raise ValueError("the split group cannot have duplicate ranks")
        bad = [r for r in ranks if not 0 <= r < size]
        if bad:
            raise ValueError(f"split_group: ranks {bad} are not ranks of the parent group of "
                             f"size {size}")
    seen: set[int] = set()
    for ranks in split_ranks:
        if seen & set(ranks):
            raise ValueError(f"split_group: rank(s) {sorted(seen & set(ranks))} are in more "
                             "than one split group")
        seen |= set(ranks)
    mine = None
    for ranks in split_ranks:
        members = sorted(parent.ranks[r] for r in ranks)
        group = _split(parent, members, group_desc)
        if group.backend is not None:
            mine = group
    return mine


def _split(parent: ProcessGroup, members: list[int], group_desc: str | None) -> ProcessGroup:
    """A group of the global ``members`` made by splitting ``parent``'s communicator."""
    from arraygrad.distributed.groups import _register

    assert parent.backend is not None
    local = [parent.group_rank(r) for r in members]
    return _register(ProcessGroup(parent.backend.split(local), members, parent.backend_name,
                                  group_desc=group_desc))
