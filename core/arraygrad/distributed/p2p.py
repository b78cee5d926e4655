"""Point-to-point: ``send``, ``recv``, ``isend``, ``irecv``.

Each message is preceded by a small header (shape, dtype) on the backend's control
channel; the receiver compares it with its own tensor and raises DistBackendError
(a RuntimeError) naming both on a mismatch. The receiver always posts the data receive, so the
sender never waits for a receive that will not come.
"""

from __future__ import annotations

from array import array
from typing import Any

from arraygrad.distributed.buffers import Buffer
from arraygrad.distributed.errors import DistBackendError
from arraygrad.distributed.groups import ProcessGroup, resolve
from arraygrad.distributed.header import describe, encode
from arraygrad.distributed.work import Work
from arraygrad.tensor import Tensor

__all__ = ["irecv", "isend", "recv", "send"]


def _peer(g: ProcessGroup, call: str, rank: int | None, group_rank: int | None,
          what: str, allow_any: bool = False) -> int:
    if rank is not None and group_rank is not None:
        raise ValueError(f"{call}: Can't specify both {what} and group_{what}")
    if group_rank is not None:
        return group_rank
    if rank is None:
        if allow_any:
            return -1
        raise ValueError(f"{call}: Must specify {what} or group_{what}")
    peer = g.group_rank(rank)
    if g.backend is not None and peer == g.backend.rank:
        raise ValueError(f"{call}: Invalid {what} rank: {what} must not be the same as the "
                         "rank of the current process.")
    return peer


def _check(t: Any, call: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise TypeError(f"{call}: tensor must be a Tensor, got {type(t).__name__}")
    return t


def _isend(call: str, tensor: Tensor, dst: int | None, group: ProcessGroup | None, tag: int,
           group_dst: int | None, async_op: bool) -> Work | None:
    g = resolve(group, call)
    tensor = _check(tensor, call)
    if g.backend is None:
        return None
    peer = _peer(g, call, dst, group_dst, "dst")
    g.backend.send_header(encode(tuple(tensor.shape), tensor.dtype), peer, tag)
    buf = Buffer(tensor, g.backend)
    request = g.backend.send(buf.array, peer, tag, async_op)
    return Work(request) if async_op else None


class _Receive:
    """A posted receive: the data lands in ``buf``; ``finish`` checks the header first."""

    def __init__(self, call: str, tensor: Tensor, buf: Buffer, header: array) -> None:
        self.call, self.tensor, self.buf, self.header = call, tensor, buf, header

    def check(self, source: int, failure: BaseException | None) -> None:
        mine = encode(tuple(self.tensor.shape), self.tensor.dtype)
        if self.header[2:] != mine[2:]:
            raise DistBackendError(
                f"{self.call}: rank {source} sent a tensor of {describe(self.header)} but the "
                f"receiving tensor is {describe(mine)}") from failure
        if failure is not None:
            raise failure
        self.buf.commit()


def send(tensor: Tensor, dst: int | None = None, group: ProcessGroup | None = None,
         tag: int = 0, group_dst: int | None = None) -> None:
    """Send ``tensor`` to rank ``dst``."""
    _isend("send", tensor, dst, group, tag, group_dst, False)


def isend(tensor: Tensor, dst: int | None = None, group: ProcessGroup | None = None,
          tag: int = 0, group_dst: int | None = None) -> Work | None:
    """Send ``tensor`` to rank ``dst`` without waiting; ``wait()`` on the ``Work``."""
    return _isend("isend", tensor, dst, group, tag, group_dst, True)


def recv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None,
         tag: int = 0, group_src: int | None = None) -> int:
    """Receive into ``tensor`` from rank ``src`` (None: any); returns the sender's rank."""
    g = resolve(group, "recv")
    tensor = _check(tensor, "recv")
    if g.backend is None:
        return -1
    comm = g.backend
    peer = _peer(g, "recv", src, group_src, "src", allow_any=True)
    header = encode(None, None)
    source = comm.recv_header(header, peer, tag)
    buf = Buffer(tensor, comm)
    failure: BaseException | None = None
    try:
        comm.recv(buf.array, source, tag, False)
    except Exception as exc:  # a truncated message: the header says why
        failure = exc
    _Receive("recv", tensor, buf, header).check(source, failure)
    return g.ranks[source]


class _Both:
    """The header's and the data's receive requests, as one request."""

    def __init__(self, comm: Any, receive: _Receive, peer: int, tag: int) -> None:
        self.comm, self.receive, self.peer, self.tag = comm, receive, peer, tag
        self.data = comm.recv(receive.buf.array, peer, tag, True)

    def wait(self) -> None:
        failure: BaseException | None = None
        try:
            self.data.wait()
        except Exception as exc:
            failure = exc
        self.comm.recv_header(self.receive.header, self.peer, self.tag)
        self.receive.check(self.peer, failure)

    def test(self) -> bool:
        if not self.data.test():
            return False
        self.wait()
        return True


def irecv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None,
          tag: int = 0, group_src: int | None = None) -> Work | None:
    """Receive into ``tensor`` without waiting; the result is there after ``wait()``."""
    g = resolve(group, "irecv")
    tensor = _check(tensor, "irecv")
    if g.backend is None:
        return None
    peer = _peer(g, "irecv", src, group_src, "src", allow_any=True)
    receive = _Receive("irecv", tensor, Buffer(tensor, g.backend), encode(None, None))
    return Work(_Both(g.backend, receive, peer, tag))
