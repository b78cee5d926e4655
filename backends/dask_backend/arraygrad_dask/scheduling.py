"""Which Dask scheduler computes an array when the backend asks for values.

Dask's default for arrays is its thread pool, which pays off when chunks can be computed side
by side. A graph whose every layer is a single chunk (what ``chunks="auto"`` gives any array
under Dask's chunk size, so every small tensor) has nothing to run side by side: the pool only
adds its hand-offs, which cost more than the tiny NumPy calls themselves (twice the compute
time of a convolution's backward, measured). Such graphs run in the calling thread.

The user's choice always wins: a ``dask.distributed.Client`` set as default, or a scheduler set
with ``dask.config.set(scheduler=...)``, is used as it is.
"""

from __future__ import annotations

from typing import Any, Sequence

__all__ = ["scheduler_for"]


def scheduler_for(arrays: Sequence[Any]) -> Any:
    """The ``scheduler=`` to compute or persist ``arrays`` with: ``"sync"`` for graphs of one
    chunk per layer under Dask's default scheduler, else None (Dask's own choice)."""
    import dask
    import dask.threaded
    from dask.base import get_scheduler

    if dask.config.get("scheduler", None) is not None:
        return None  # set by the user
    if get_scheduler(collections=list(arrays)) is not dask.threaded.get:
        return None  # a distributed client (or another collection's default)
    for array in arrays:
        graph = array.__dask_graph__()
        # one task per layer: no two chunks of one step could run side by side
        if len(graph) > len(getattr(graph, "layers", graph)):
            return None
    return "sync"
