"""The ``mpi`` process-group backend: MPI through mpi4py (imported here, on first use).

Buffers go to MPI through the buffer protocol (NumPy arrays, ``array('q')``
headers): nothing is pickled but the ``*_object`` calls' objects. Headers travel
on a duplicate of the communicator, so they never match a tensor message.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

from arraygrad.distributed import liveness
from arraygrad.distributed.backend import ProcessGroupBackend

__all__ = ["MPIBackend", "make_world"]


def _mpi() -> Any:
    from mpi4py import MPI  # lazily: arraygrad imports without mpi4py

    return MPI


_F = TypeVar("_F", bound=Callable[..., Any])


def _watched(method: _F) -> _F:
    """An MPI call that needs the other ranks: a rank that left ends the job (``liveness``)."""
    @functools.wraps(method)
    def call(*args: Any, **kwargs: Any) -> Any:
        with liveness.blocking():
            return method(*args, **kwargs)
    return call  # type: ignore[return-value]


class _Request:
    """An ``MPI.Request`` with the contract's ``wait()`` / ``test()`` (mpi4py's lower-case
    ones are the pickling variants: ``test()`` returns a tuple, always true)."""

    def __init__(self, request: Any) -> None:
        self.request = request

    @_watched
    def wait(self) -> None:
        self.request.Wait()

    def test(self) -> bool:
        return bool(self.request.Test())


class MPIBackend(ProcessGroupBackend):
    """One MPI communicator (``comm``) and its duplicate for headers (``ctl``)."""

    name = "mpi"

    def __init__(self, comm: Any) -> None:
        self.comm = comm
        self.ctl = comm.Dup()
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        MPI = _mpi()
        self._ops = {"sum": MPI.SUM, "product": MPI.PROD, "min": MPI.MIN, "max": MPI.MAX}
        self._in_place = MPI.IN_PLACE

    def accepts(self, array: Any) -> bool:
        """Host arrays that expose a writable C-contiguous buffer."""
        try:
            view = memoryview(array)
        except TypeError:
            return False
        return view.c_contiguous and not view.readonly

    @_watched
    def split(self, ranks: list[int]) -> "MPIBackend | None":
        """``MPI_Comm_split``: members keep the order of ``ranks``."""
        MPI = _mpi()
        member = self.rank in ranks
        color = 0 if member else MPI.UNDEFINED
        sub = self.comm.Split(color, ranks.index(self.rank) if member else 0)
        return MPIBackend(sub) if member else None

    @_watched
    def allgather_header(self, header: Any) -> Any:
        """``MPI_Allgather`` of the headers on the control communicator."""
        out = type(header)(header.typecode, bytes(len(header) * header.itemsize * self.size))
        self.ctl.Allgather(header, out)
        return out

    @_watched
    def allreduce(self, buf: Any, op: str, async_op: bool) -> Any:
        """``MPI_Allreduce`` / ``MPI_Iallreduce`` in place."""
        if async_op:
            return _Request(self.comm.Iallreduce(self._in_place, buf, self._ops[op]))
        self.comm.Allreduce(self._in_place, buf, self._ops[op])
        return None

    @_watched
    def broadcast(self, buf: Any, root: int) -> None:
        """``MPI_Bcast``."""
        self.comm.Bcast(buf, root)

    @_watched
    def reduce(self, buf: Any, root: int, op: str) -> None:
        """``MPI_Reduce``, in place on the root."""
        if self.rank == root:
            self.comm.Reduce(self._in_place, buf, self._ops[op], root)
        else:
            self.comm.Reduce(buf, None, self._ops[op], root)

    @_watched
    def allgather(self, send: Any, recv: Any) -> None:
        """``MPI_Allgather``."""
        self.comm.Allgather(send, recv)

    @_watched
    def reduce_scatter(self, send: Any, recv: Any, op: str) -> None:
        """``MPI_Reduce_scatter_block``."""
        self.comm.Reduce_scatter_block(send, recv, self._ops[op])

    @_watched
    def gather(self, send: Any, recv: Any, root: int) -> None:
        """``MPI_Gather``."""
        self.comm.Gather(send, recv if self.rank == root else None, root)

    @_watched
    def scatter(self, send: Any, recv: Any, root: int) -> None:
        """``MPI_Scatter``."""
        self.comm.Scatter(send if self.rank == root else None, recv, root)

    @_watched
    def send(self, buf: Any, dst: int, tag: int, async_op: bool) -> Any:
        """``MPI_Send`` / ``MPI_Isend``."""
        if async_op:
            return _Request(self.comm.Isend(buf, dst, tag))
        self.comm.Send(buf, dst, tag)
        return None

    @_watched
    def recv(self, buf: Any, src: int, tag: int, async_op: bool) -> Any:
        """``MPI_Recv`` / ``MPI_Irecv``; the blocking form returns the source."""
        MPI = _mpi()
        source = MPI.ANY_SOURCE if src < 0 else src
        if async_op:
            return _Request(self.comm.Irecv(buf, source, tag))
        status = MPI.Status()
        self.comm.Recv(buf, source, tag, status)
        return int(status.Get_source())

    @_watched
    def send_header(self, header: Any, dst: int, tag: int) -> None:
        """The header on the control communicator (small: sent eagerly)."""
        self.ctl.Send(header, dst, tag)

    @_watched
    def recv_header(self, header: Any, src: int, tag: int) -> int:
        """Receive a header; the sender's rank."""
        MPI = _mpi()
        status = MPI.Status()
        self.ctl.Recv(header, MPI.ANY_SOURCE if src < 0 else src, tag, status)
        return int(status.Get_source())

    @_watched
    def barrier(self) -> None:
        """``MPI_Barrier``."""
        self.comm.Barrier()

    @_watched
    def allgather_object(self, obj: Any) -> list[Any]:
        """mpi4py's pickling ``allgather``."""
        return list(self.comm.allgather(obj))

    @_watched
    def broadcast_object(self, obj: Any, root: int) -> Any:
        """mpi4py's pickling ``bcast``."""
        return self.comm.bcast(obj, root)

    @_watched
    def alltoall(self, send: Any, send_counts: list[int], recv: Any,
                 recv_counts: list[int]) -> None:
        """``MPI_Alltoallv`` (counts in elements; blocks packed in rank order)."""
        def displacements(counts: list[int]) -> list[int]:
            out, at = [], 0
            for c in counts:
                out.append(at)
                at += c
            return out

        self.comm.Alltoallv([send, (send_counts, displacements(send_counts))],
                            [recv, (recv_counts, displacements(recv_counts))])

    @_watched
    def gather_object(self, obj: Any, root: int) -> list[Any] | None:
        """mpi4py's pickling ``gather``."""
        return self.comm.gather(obj, root)

    @_watched
    def scatter_object(self, objs: list[Any] | None, root: int) -> Any:
        """mpi4py's pickling ``scatter``."""
        return self.comm.scatter(objs, root)

    def close(self) -> None:
        """Free both communicators."""
        for comm in (self.ctl, self.comm):
            comm.Free()


def make_world(timeout: Any = None) -> MPIBackend:
    """The world: a duplicate of ``COMM_WORLD`` (a world of one under plain ``python``)."""
    world = _mpi().COMM_WORLD
    liveness.start(world)
    with liveness.blocking():  # a rank gone before it would leave the others waiting here
        return MPIBackend(world.Dup())
