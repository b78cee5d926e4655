"""``get_worker_info`` and the ``WorkerInfo`` a DataLoader worker sets: apart from the worker
loop (``_worker``), so that importing ``arraygrad.utils.data`` does not import
``multiprocessing`` (8 ms) for loaders that start no worker."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["WorkerInfo", "get_worker_info", "set_worker_info"]


@dataclass(frozen=True)
class WorkerInfo:
    """Inside a worker: its ``id``, the loader's ``num_workers``, the ``seed`` it was given and
    its own copy of the ``dataset`` (``torch.utils.data.get_worker_info()``)."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The current worker's ``WorkerInfo``; None in the main process."""
    return _worker_info


def set_worker_info(info: WorkerInfo) -> None:
    """Set by a worker process as it starts (``_worker.worker_loop``)."""
    global _worker_info
    _worker_info = info
