"""PyTorch's distributed error classes: ``DistError`` and the kinds below it.

``DistBackendError`` is what a collective raises when the ranks disagree (another
shape or dtype on some rank, a rank whose own checks failed); the stores raise
``DistStoreError`` on a timeout, ``QueueEmptyError`` for a non-blocking pop of an
empty queue, and ``DistNetworkError`` when a ``TCPStore`` cannot reach its server.
Every one is a ``RuntimeError``, as in PyTorch.
"""

from __future__ import annotations

__all__ = ["DistBackendError", "DistError", "DistNetworkError", "DistStoreError",
           "QueueEmptyError"]


class DistError(RuntimeError):
    """An error of ``arraygrad.distributed`` (PyTorch's ``torch.distributed.DistError``)."""


class DistBackendError(DistError):
    """A process-group backend's error: the ranks of a collective disagree, or one failed."""


class DistNetworkError(DistError):
    """A network error: a ``TCPStore`` client cannot connect to its server in time."""


class DistStoreError(DistError):
    """A store's error: a key not set before the store's timeout."""


class QueueEmptyError(DistStoreError):
    """``Store.queue_pop(key, block=False)`` on an empty queue."""
