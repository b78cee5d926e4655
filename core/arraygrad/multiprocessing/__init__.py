"""``arraygrad.multiprocessing``: PyTorch's ``torch.multiprocessing``: the standard library's
``multiprocessing`` (every name of it), ``spawn``/``start_processes`` with their error
reporting, and the sharing-strategy settings.

Tensors sent through its queues and pipes cross by value (``reductions``: their data is
copied), where PyTorch moves them to shared memory; so there is no shared-memory transport to
choose: the sharing strategy is kept and validated as PyTorch does and changes nothing.
"""

from __future__ import annotations

import multiprocessing
import sys
from multiprocessing import *  # noqa: F403 - PyTorch re-exports all of it

from arraygrad.multiprocessing import reductions
from arraygrad.multiprocessing.reductions import init_reductions
from arraygrad.multiprocessing.spawn import (ENV_VAR_PARALLEL_START, ProcessContext,
                                             ProcessExitedException, ProcessRaisedException,
                                             SpawnContext, spawn, start_processes)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies",
           "ENV_VAR_PARALLEL_START", "ProcessContext", "ProcessExitedException",
           "ProcessRaisedException", "SpawnContext", "spawn", "start_processes",
           "init_reductions", "reductions",
           *multiprocessing.__all__]

if sys.platform in ("darwin", "win32"):
    _all_sharing_strategies = {"file_system"}
else:
    _all_sharing_strategies = {"file_descriptor", "file_system"}
_sharing_strategy = [next(iter(sorted(_all_sharing_strategies)))]


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose how CPU tensors would be shared (one of ``get_all_sharing_strategies()``; else
    AssertionError, as in PyTorch). arraygrad sends tensors by value (``reductions``), so this
    changes nothing."""
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of "
                             f"{_all_sharing_strategies}")
    _sharing_strategy[0] = new_strategy


def get_sharing_strategy() -> str:
    """The sharing strategy set (``file_descriptor`` by default on Linux)."""
    return _sharing_strategy[0]


def get_all_sharing_strategies() -> set[str]:
    """The sharing strategies of this platform."""
    return _all_sharing_strategies


init_reductions()
