"""``set_num_threads`` and friends: how many threads the CPU computation may use.

arraygrad's CPU work runs in its array library's kernels (NumPy, and the BLAS and OpenMP
libraries it loads), so the intra-op thread count is those libraries' thread pools,
limited through ``threadpoolctl`` (installed with the ``numpy`` extra). arraygrad has no
inter-op pool of its own: ``set_num_interop_threads`` is stored and answered, once, as
PyTorch allows it once (docs/differences.md).
"""

from __future__ import annotations

import importlib
import os
from typing import Any

__all__ = ["get_num_threads", "set_num_threads", "get_num_interop_threads",
           "set_num_interop_threads", "init_num_threads"]

_set: dict[str, Any] = {"threads": None, "interop": None, "limiter": None}


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _threadpoolctl() -> Any:
    try:
        return importlib.import_module("threadpoolctl")
    except ImportError:
        return None


def get_num_threads() -> int:
    """The threads CPU kernels may use: the count set, else the largest of the loaded
    thread pools' (BLAS, OpenMP), else the CPUs this process may run on."""
    if _set["threads"] is not None:
        return int(_set["threads"])
    tpc = _threadpoolctl()
    if tpc is not None:
        counts = [int(info["num_threads"]) for info in tpc.threadpool_info()]
        if counts:
            return max(counts)
    return _cores()


def set_num_threads(int: int) -> None:  # noqa: A002 - PyTorch's parameter name
    """Limit the CPU kernels' thread pools (BLAS, OpenMP) to ``int`` threads."""
    count = int
    if isinstance(count, bool) or not isinstance(count, type(0)):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(count).__name__}")
    if count <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    from arraygrad.backends.registry import default_backend

    default_backend()  # its library loads its thread pools, which are then limited
    tpc = _threadpoolctl()
    if tpc is not None:
        _set["limiter"] = tpc.threadpool_limits(limits=count)
    _set["threads"] = count


def get_num_interop_threads() -> int:
    """The inter-op thread count: the one set, else the CPUs this process may run on."""
    return int(_set["interop"]) if _set["interop"] is not None else _cores()


def set_num_interop_threads(int: int) -> None:  # noqa: A002 - PyTorch's parameter name
    """Set the inter-op thread count, once (PyTorch's RuntimeError the second time). arraygrad
    runs no inter-op pool, so the count is only answered back."""
    count = int
    if isinstance(count, bool) or not isinstance(count, type(0)):
        raise RuntimeError(f"set_num_interop_threads expects an int, but got "
                           f"{type(count).__name__}")
    if count <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    if _set["interop"] is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work "
                           "has started or set_num_interop_threads called")
    _set["interop"] = count


def init_num_threads() -> None:
    """Set up the calling thread's CPU thread count: the limits ``set_num_threads`` made
    hold for the whole process already, so there is nothing left to do."""
