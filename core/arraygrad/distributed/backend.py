"""The contract a process-group backend implements (``mpi``, ``nccl``, third-party plugins).

A backend is one communicator: ``rank`` and ``size`` within it, and the
operations below on *buffers* — NumPy arrays for host backends, device arrays
for device ones (``accepts(array)`` says which it takes; others go through the
host). Non-blocking calls return a request with ``wait()`` and ``test()``.
Reductions receive ``op`` as one of "sum", "product", "min", "max".

The abstract methods are the contract; the ones with a body (``alltoall`` and the
object calls beyond ``allgather_object``/``broadcast_object``) have a default
built on the contract, which a backend overrides when it has a direct call (``mpi``
does).
"""

from __future__ import annotations

import abc
import pickle
from array import array
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

    def alltoall(self, send: Any, send_counts: list[int], recv: Any,
                 recv_counts: list[int]) -> None:
        """Rank r's ``send`` holds ``send_counts[j]`` elements for each rank j, in rank order;
        its ``recv`` receives ``recv_counts[j]`` elements from each rank j, in rank order.

        The default gathers every rank's whole ``send`` (padded to the longest) and keeps
        its blocks: ``size`` times the traffic of a direct all-to-all.
        """
        every = self.allgather_header(array("q", send_counts))
        table = [list(every[i * self.size:(i + 1) * self.size]) for i in range(self.size)]
        longest = max(sum(row) for row in table)
        xp = send.__array_namespace__()
        padded = xp.zeros(longest, dtype=send.dtype)
        flat = send.reshape(-1)
        padded[:flat.shape[0]] = flat
        gathered = xp.empty(longest * self.size, dtype=send.dtype)
        self.allgather(padded, gathered)
        out, at = recv.reshape(-1), 0
        for j, row in enumerate(table):
            start = j * longest + sum(row[:self.rank])
            out[at:at + recv_counts[j]] = gathered[start:start + recv_counts[j]]
            at += recv_counts[j]

    def gather_object(self, obj: Any, root: int) -> list[Any] | None:
        """Every rank's ``obj`` in rank order on ``root`` (None elsewhere); the default is
        ``allgather_object``."""
        every = self.allgather_object(obj)
        return every if self.rank == root else None

    def scatter_object(self, objs: list[Any] | None, root: int) -> Any:
        """Item r of ``root``'s ``objs`` on rank r; the default broadcasts the whole list."""
        return self.broadcast_object(objs, root)[self.rank]

    def send_object(self, obj: Any, dst: int, tag: int) -> None:
        """Send a picklable ``obj`` to ``dst``: its length, then its bytes, as headers."""
        data = pickle.dumps(obj)
        self.send_header(array("q", [len(data)]), dst, tag)
        payload = array("q")
        payload.frombytes(data + bytes(-len(data) % 8))
        self.send_header(payload, dst, tag)

    def recv_object(self, src: int, tag: int) -> tuple[Any, int]:
        """Receive an object sent by ``send_object`` from ``src`` (-1: any); (it, the source)."""
        length = array("q", [0])
        source = self.recv_header(length, src, tag)
        payload = array("q", bytes(length[0] + (-length[0] % 8)))
        self.recv_header(payload, source, tag)
        return pickle.loads(payload.tobytes()[:length[0]]), source

    def close(self) -> None:
        """Release the communicator (``destroy_process_group``)."""
