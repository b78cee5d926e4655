"""``torch.distributed.distributed_c10d``: the module PyTorch's process-group API is written
in. Every public name of ``arraygrad.distributed`` is here too (looked up there), with the
private helpers programs reach for: ``_get_default_group`` and ``_rank_not_in_group``."""

from __future__ import annotations

from typing import Any

from arraygrad.distributed.groups import ProcessGroup, default_group

__all__ = ["_get_default_group", "_rank_not_in_group"]


def _get_default_group() -> ProcessGroup:
    """The default process group (ValueError-compatible error before ``init_process_group``)."""
    return default_group("_get_default_group")


def _rank_not_in_group(group: ProcessGroup | None) -> bool:
    """Whether this process is outside ``group`` (None: the default group, never)."""
    return group is not None and group.backend is None


def __getattr__(name: str) -> Any:
    import arraygrad.distributed as package

    if name.startswith("__") or name not in package.__all__:
        raise AttributeError(f"module 'arraygrad.distributed.distributed_c10d' has no attribute "
                             f"{name!r}")
    return getattr(package, name)
