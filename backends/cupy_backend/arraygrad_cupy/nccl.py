"""The ``nccl`` process-group backend: NCCL through CuPy (``cupy.cuda.nccl``).

Registered by this package's plugin (``arraygrad_register_distributed``), outside the
core, which imports no array library.

One GPU per process (rank ``r`` uses device ``r % device_count``). The NCCL
unique id, the headers and the ``*_object`` calls go over MPI (mpi4py), which also
launches the processes. CuPy arrays are communicated in place on the current
stream; host arrays (tensors of other backends) are copied to the GPU and back.
Needs two GPUs to be of any use; its tests skip without them.
"""

from __future__ import annotations

from typing import Any

from arraygrad.distributed.backend import ProcessGroupBackend
from arraygrad.distributed.mpi_backend import MPIBackend, _mpi

__all__ = ["NCCLBackend", "make_world"]


def _cupy() -> Any:
    import cupy  # lazily: only this backend needs CuPy

    return cupy


class _Event:
    """An async NCCL call: a CUDA event recorded after it, and the copy back it needs."""

    def __init__(self, finish: Any) -> None:
        self.event = _cupy().cuda.Event()
        self.event.record()
        self.finish = finish

    def wait(self) -> None:
        self.event.synchronize()
        self.finish()

    def test(self) -> bool:
        if not self.event.done:
            return False
        self.finish()
        return True


class NCCLBackend(ProcessGroupBackend):
    """An NCCL communicator over the processes of ``mpi`` (an ``MPIBackend``)."""

    name = "nccl"

    def __init__(self, mpi: MPIBackend) -> None:
        cupy = _cupy()
        from cupy.cuda import nccl

        self.mpi = mpi
        self.rank, self.size = mpi.rank, mpi.size
        cupy.cuda.Device(mpi.comm.Get_rank() % cupy.cuda.runtime.getDeviceCount()).use()
        uid = nccl.get_unique_id() if mpi.rank == 0 else None
        uid = mpi.comm.bcast(uid, 0)
        self.comm = nccl.NcclCommunicator(self.size, uid, self.rank)
        self._ops = {"sum": nccl.NCCL_SUM, "product": nccl.NCCL_PROD, "min": nccl.NCCL_MIN,
                     "max": nccl.NCCL_MAX}
        self._types = {"float16": nccl.NCCL_FLOAT16, "float32": nccl.NCCL_FLOAT32,
                       "float64": nccl.NCCL_FLOAT64, "int32": nccl.NCCL_INT32,
                       "int64": nccl.NCCL_INT64, "uint8": nccl.NCCL_UINT8,
                       "int8": nccl.NCCL_INT8}

    def accepts(self, array: Any) -> bool:
        """C-contiguous CuPy arrays."""
        cupy = _cupy()
        return isinstance(array, cupy.ndarray) and bool(array.flags.c_contiguous)

    # -- moving host buffers through the GPU ---------------------------------------------
    def _dev(self, buf: Any) -> Any:
        return buf if self.accepts(buf) else _cupy().asarray(buf)

    @staticmethod
    def _back(host: Any, dev: Any) -> None:
        if host is not dev and host is not None:
            host[...] = dev.get().reshape(host.shape)

    def _call(self, fn: Any, send: Any, recv: Any, count: int, *args: Any) -> None:
        stream = _cupy().cuda.get_current_stream().ptr
        fn(send.data.ptr, recv.data.ptr, count, self._types[str(send.dtype)], *args, stream)

    # -- the contract ----------------------------------------------------------------------
    def split(self, ranks: list[int]) -> "NCCLBackend | None":
        """A new NCCL communicator over the MPI split."""
        sub = self.mpi.split(ranks)
        return NCCLBackend(sub) if sub is not None else None

    def allgather_header(self, header: Any) -> Any:
        """Over MPI."""
        return self.mpi.allgather_header(header)

    def allreduce(self, buf: Any, op: str, async_op: bool) -> Any:
        """``ncclAllReduce`` in place; an event-backed request when ``async_op``."""
        dev = self._dev(buf)
        self._call(self.comm.allReduce, dev, dev, dev.size, self._ops[op])
        request = _Event(lambda: self._back(buf, dev))
        if async_op:
            return request
        request.wait()
        return None

    def broadcast(self, buf: Any, root: int) -> None:
        """``ncclBroadcast``."""
        dev = self._dev(buf)
        self._call(self.comm.broadcast, dev, dev, dev.size, root)
        _Event(lambda: self._back(buf, dev)).wait()

    def reduce(self, buf: Any, root: int, op: str) -> None:
        """``ncclReduce``."""
        dev = self._dev(buf)
        self._call(self.comm.reduce, dev, dev, dev.size, self._ops[op], root)
        _Event(lambda: self._back(buf, dev)).wait()

    def allgather(self, send: Any, recv: Any) -> None:
        """``ncclAllGather``."""
        s, r = self._dev(send), self._dev(recv)
        self._call(self.comm.allGather, s, r, s.size)
        _Event(lambda: self._back(recv, r)).wait()

    def reduce_scatter(self, send: Any, recv: Any, op: str) -> None:
        """``ncclReduceScatter``."""
        s, r = self._dev(send), self._dev(recv)
        self._call(self.comm.reduceScatter, s, r, r.size, self._ops[op])
        _Event(lambda: self._back(recv, r)).wait()

    def gather(self, send: Any, recv: Any, root: int) -> None:
        """An all-gather (NCCL has no gather); only the root keeps the result."""
        s = self._dev(send)
        r = _cupy().empty((self.size,) + tuple(s.shape), dtype=s.dtype)
        self._call(self.comm.allGather, s, r, s.size)
        _Event(lambda: self._back(recv, r) if self.rank == root else None).wait()

    def scatter(self, send: Any, recv: Any, root: int) -> None:
        """A broadcast of the whole input (NCCL has no scatter), each rank keeping its block."""
        cupy = _cupy()
        r = self._dev(recv)
        whole = (self._dev(send) if self.rank == root
                 else cupy.empty((self.size,) + tuple(r.shape), dtype=r.dtype))
        self._call(self.comm.broadcast, whole, whole, whole.size, root)
        r[...] = whole[self.rank].reshape(r.shape)
        _Event(lambda: self._back(recv, r)).wait()

    def send(self, buf: Any, dst: int, tag: int, async_op: bool) -> Any:
        """``ncclSend`` (tags are not supported by NCCL and ignored)."""
        dev = self._dev(buf)
        stream = _cupy().cuda.get_current_stream().ptr
        self.comm.send(dev.data.ptr, dev.size, self._types[str(dev.dtype)], dst, stream)
        request = _Event(lambda: None)
        if async_op:
            return request
        request.wait()
        return None

    def recv(self, buf: Any, src: int, tag: int, async_op: bool) -> Any:
        """``ncclRecv`` (a source is required: NCCL cannot receive from any rank)."""
        if src < 0:
            raise RuntimeError("the nccl backend cannot receive from any source: give src")
        dev = self._dev(buf)
        stream = _cupy().cuda.get_current_stream().ptr
        self.comm.recv(dev.data.ptr, dev.size, self._types[str(dev.dtype)], src, stream)
        request = _Event(lambda: self._back(buf, dev))
        if async_op:
            return request
        request.wait()
        return src

    def send_header(self, header: Any, dst: int, tag: int) -> None:
        """Over MPI."""
        self.mpi.send_header(header, dst, tag)

    def recv_header(self, header: Any, src: int, tag: int) -> int:
        """Over MPI."""
        return self.mpi.recv_header(header, src, tag)

    def barrier(self) -> None:
        """Finish this GPU's work, then an MPI barrier."""
        _cupy().cuda.get_current_stream().synchronize()
        self.mpi.barrier()

    def allgather_object(self, obj: Any) -> list[Any]:
        """Over MPI."""
        return self.mpi.allgather_object(obj)

    def broadcast_object(self, obj: Any, root: int) -> Any:
        """Over MPI."""
        return self.mpi.broadcast_object(obj, root)

    def close(self) -> None:
        """Destroy the NCCL communicator and free the MPI ones."""
        self.comm.destroy()
        self.mpi.close()


def make_world(timeout: Any = None) -> NCCLBackend:
    """NCCL over every MPI process (one GPU each)."""
    return NCCLBackend(MPIBackend(_mpi().COMM_WORLD.Dup()))
