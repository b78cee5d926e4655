"""Debugging aids: the debug level (``TORCH_DISTRIBUTED_DEBUG``), ``breakpoint`` on one rank,
``log`` (the package's logger) and ``record_comm`` (a profiler range naming communication).

PyTorch's ``DETAIL`` level turns on checks arraygrad always makes (every collective
compares the ranks' shapes and dtypes first; DDP names the parameters that got no
gradient); the level is kept for code that reads or sets it.
"""

from __future__ import annotations

import contextlib
import enum
import logging
import os
import pdb
import sys
import traceback
from typing import Any, Iterator

__all__ = ["DebugLevel", "breakpoint", "get_debug_level", "log", "record_comm",
           "set_debug_level", "set_debug_level_from_env"]

log = logging.getLogger("arraygrad.distributed")


class DebugLevel(enum.Enum):
    """``OFF``, ``INFO`` or ``DETAIL`` (PyTorch's ``TORCH_DISTRIBUTED_DEBUG`` values)."""

    OFF = 0
    INFO = 1
    DETAIL = 2

    def __int__(self) -> int:
        return int(self.value)

    def __index__(self) -> int:
        return int(self.value)

    def __str__(self) -> str:
        return f"DebugLevel.{self.name}"


_level = DebugLevel.OFF


def get_debug_level() -> DebugLevel:
    """The current debug level."""
    return _level


def set_debug_level(level: DebugLevel) -> None:
    """Set the debug level (a ``DebugLevel``; TypeError for anything else, as PyTorch's)."""
    global _level
    if not isinstance(level, DebugLevel):
        raise TypeError("set_debug_level(): incompatible function arguments. The following "
                        "argument types are supported:\n    1. (arg0: DebugLevel) -> None\n\n"
                        f"Invoked with: {level!r}")
    _level = level


def set_debug_level_from_env() -> None:
    """Set the level from ``TORCH_DISTRIBUTED_DEBUG`` (``OFF``, ``INFO`` or ``DETAIL``, any case);
    OFF when it is not set, ValueError for another value."""
    value = os.environ.get("TORCH_DISTRIBUTED_DEBUG")
    if value is None:
        set_debug_level(DebugLevel.OFF)
        return
    try:
        set_debug_level(DebugLevel[value.upper()])
    except KeyError:
        raise ValueError("The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL.") \
            from None


class _DistributedPdb(pdb.Pdb):
    """A pdb that reads the terminal even on a rank whose stdin is not it (``mpiexec``
    gives rank 0 the terminal's input; PyTorch's does the same with ``/dev/stdin``)."""

    def interaction(self, *args: Any, **kwargs: Any) -> None:
        _stdin = sys.stdin
        try:
            sys.stdin = open("/dev/stdin")  # noqa: SIM115 - restored below, as PyTorch's
            pdb.Pdb.interaction(self, *args, **kwargs)
        finally:
            sys.stdin = _stdin


_breakpoint_cache: dict[int, int] = {}


def breakpoint(rank: int = 0, skip: int = 0, timeout_s: Any = 3600) -> None:
    """Stop in pdb on rank ``rank`` only; the other ranks wait at a barrier until it goes on.

    ``skip``: pass the first ``skip`` calls by. ``timeout_s`` is accepted as PyTorch's
    (it lengthens the process groups' timeouts; MPI has none to lengthen).
    """
    from arraygrad.distributed.collectives import barrier
    from arraygrad.distributed.groups import get_rank

    if skip > 0:
        key = hash(str(traceback.format_exc()))
        counter = _breakpoint_cache.get(key, 0) + 1
        _breakpoint_cache[key] = counter
        if counter <= skip:
            log.warning("Skip the breakpoint, counter=%d", counter)
            return
    if get_rank() == rank:
        debugger = _DistributedPdb()
        debugger.message("\n!!! ATTENTION !!!\n\nType 'up' to get to the frame that called "
                         f"dist.breakpoint(rank={rank})\n")
        debugger.set_trace()
    barrier()


@contextlib.contextmanager
def record_comm(name: str) -> Iterator[None]:
    """Name the communication inside the block ``name`` in profiler traces (a profiler range,
    ``arraygrad.profiler.record_function(name)``; PyTorch names its C++ comm records)."""
    from arraygrad.autograd.profiler import record_function

    with record_function(name):
        yield
