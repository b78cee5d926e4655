"""``monitored_barrier``: a barrier with a timeout that says which ranks did not arrive.

Rank 0 of the group waits (polling, up to ``timeout``) for a token from every other
rank, then releases them; a rank missing at the deadline makes rank 0 raise naming it
(``wait_all_ranks=True``: every missing rank), and a rank that rank 0 never released
raises too. The tokens are tiny point-to-point messages on a tag of their own
(``MONITORED_BARRIER_TAG``); PyTorch has this for Gloo only, arraygrad for every backend.
"""

from __future__ import annotations

import time
import warnings
from array import array
from datetime import timedelta
from typing import Any

from arraygrad.distributed.constants import default_pg_timeout
from arraygrad.distributed.errors import DistBackendError
from arraygrad.distributed.groups import GroupMember, ProcessGroup, resolve

__all__ = ["MONITORED_BARRIER_TAG", "monitored_barrier"]

MONITORED_BARRIER_TAG = 32766  # under MPI's least tag bound (32767); user tags rarely reach it
# requests given up at a timeout keep their buffers alive: MPI may still write into them
_abandoned: list[tuple[Any, array]] = []


def _timeout_s(timeout: Any) -> float:
    if timeout is None:
        timeout = default_pg_timeout
    elif isinstance(timeout, float):
        warnings.warn("Please specify timeout arg as a timedelta. Converting current value of "
                      f"{timeout} assuming it represents seconds", stacklevel=3)
        timeout = timedelta(seconds=timeout)
    if not isinstance(timeout, timedelta):
        raise TypeError("Expected timeout argument to be of type datetime.timedelta, got "
                        f"{type(timeout)}")
    return timeout.total_seconds()


def _wait_all(requests: dict[int, tuple[Any, array]], deadline: float) -> list[int]:
    """Poll until every request completed or the deadline; the peers still missing."""
    waiting = dict(requests)
    while waiting:
        for peer in [p for p, (req, _) in waiting.items() if req.test()]:
            del waiting[peer]
        if not waiting or time.monotonic() >= deadline:
            break
        time.sleep(0.001)
    _abandoned.extend(waiting.values())
    return sorted(waiting)


def monitored_barrier(group: ProcessGroup | None = GroupMember.WORLD, timeout: Any = None,
                      wait_all_ranks: bool = False) -> None:
    """Wait until every rank of ``group`` arrived, or raise naming the ranks that did not
    within ``timeout`` (a ``timedelta``; a float is taken as seconds, with a warning)."""
    g = resolve(group, "monitored_barrier")
    seconds = _timeout_s(timeout)
    if g.backend is None:
        return
    comm = g.backend
    deadline = time.monotonic() + seconds
    ms = int(seconds * 1000)
    tag = MONITORED_BARRIER_TAG
    if comm.rank == 0:
        tokens = {r: array("q", [0]) for r in range(1, comm.size)}
        missing = _wait_all({r: (comm.recv(buf, r, tag, True), buf)
                             for r, buf in tokens.items()}, deadline)
        if missing:
            shown = missing if wait_all_ranks else missing[:1]
            names = ", ".join(str(g.ranks[r]) for r in shown)
            raise DistBackendError(f"[Rank {g.ranks[0]}]: Rank{'s' if len(shown) > 1 else ''} "
                                   f"{names} failed to pass monitoredBarrier in {ms} ms")
        releases = [(comm.send(array("q", [1]), r, tag, True)) for r in range(1, comm.size)]
        for request in releases:
            request.wait()
        return
    token = array("q", [1])
    sent = comm.send(token, 0, tag, True)
    release = array("q", [0])
    if _wait_all({0: (comm.recv(release, 0, tag, True), release)}, deadline):
        _abandoned.append((sent, token))
        raise DistBackendError(
            f"Rank {g.ranks[comm.rank]} successfully reached monitoredBarrier, but received "
            f"errors while waiting for send/recv from rank {g.ranks[0]}. Please check rank "
            f"{g.ranks[0]} logs for faulty rank.")
    sent.wait()
