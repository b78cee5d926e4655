"""The contract a process-group backend implements (``mpi``, ``nccl``, third-party plugins).

A backend is one communicator: ``rank`` and ``size`` within it, and the
operations below on *buffers* — NumPy arrays for host backends, device arrays
for device ones (``accepts(array)`` says which it takes; others go through the
host). Non-blocking calls return a request with ``wait()`` and ``test()``.
Reductions receive ``op`` as one of "sum", "product", "min", "max".
"""

from __future__ import annotations

import abc
from typing import Any

__all__ = ["ProcessGroupBackend"]


class ProcessGroupBackend(abc.ABC):
    """One communicator of a process-group backend; see the module docstring."""

    name: str = ""
    rank: int = 0
    size: int = 1

    def accepts(self, array: Any) -> bool:
        """Whether ``array`` (a tensor's native array) can be communicated as it is."""
        return False

    @abc.abstractmethod
    def split(self, ranks: list[int]) -> "ProcessGroupBackend | None":
        """A communicator of ``ranks`` (called on every rank; None on non-members)."""

    @abc.abstractmethod
    def allgather_header(self, header: Any) -> Any:
        """Every rank's small integer ``header`` (an ``array('q')``), concatenated."""

    @abc.abstractmethod
    def allreduce(self, buf: Any, op: str, async_op: bool) -> Any:
        """Reduce ``buf`` across ranks in place; a request when ``async_op``, else None."""

    @abc.abstractmethod
    def broadcast(self, buf: Any, root: int) -> None:
        """Copy ``root``'s ``buf`` into every rank's ``buf``."""

    @abc.abstractmethod
    def reduce(self, buf: Any, root: int, op: str) -> None:
        """Reduce ``buf`` into ``root``'s ``buf`` (other ranks' ``buf`` unchanged)."""

    @abc.abstractmethod
    def allgather(self, send: Any, recv: Any) -> None:
        """Every rank's ``send`` concatenated, in rank order, into ``recv``."""

    @abc.abstractmethod
    def reduce_scatter(self, send: Any, recv: Any, op: str) -> None:
        """Reduce ``send`` across ranks; rank r receives block r into ``recv``."""

    @abc.abstractmethod
    def gather(self, send: Any, recv: Any, root: int) -> None:
        """``root``'s ``recv`` receives every rank's ``send`` in rank order."""

    @abc.abstractmethod
    def scatter(self, send: Any, recv: Any, root: int) -> None:
        """Rank r's ``recv`` receives block r of ``root``'s ``send``."""

    @abc.abstractmethod
    def send(self, buf: Any, dst: int, tag: int, async_op: bool) -> Any:
        """Send ``buf`` to ``dst``; a request when ``async_op``."""

    @abc.abstractmethod
    def recv(self, buf: Any, src: int, tag: int, async_op: bool) -> Any:
        """Receive into ``buf`` from ``src`` (-1: any); the source rank, or a request."""

    @abc.abstractmethod
    def send_header(self, header: Any, dst: int, tag: int) -> None:
        """Send a small ``array('q')`` header ahead of a point-to-point message."""

    @abc.abstractmethod
    def recv_header(self, header: Any, src: int, tag: int) -> int:
        """Receive a header sent by ``send_header``; returns the source rank."""

    @abc.abstractmethod
    def barrier(self) -> None:
        """Wait until every rank reached the barrier."""

    @abc.abstractmethod
    def allgather_object(self, obj: Any) -> list[Any]:
        """Every rank's picklable ``obj``, in rank order."""

    @abc.abstractmethod
    def broadcast_object(self, obj: Any, root: int) -> Any:
        """``root``'s picklable ``obj`` on every rank."""

    def close(self) -> None:
        """Release the communicator (``destroy_process_group``)."""
