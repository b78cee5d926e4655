"""The result pipes from DataLoader workers to the main process.

Each worker has a pipe of its own. A batch travels as one frame: an 8-byte length, then its
pickle (multiprocessing's pickler, which knows tensors). The worker pickles in its own thread,
so a batch that cannot be pickled is an exception there (``ResultSender.put``), and a sender
thread writes the frames, so the worker goes on loading while the main process is busy.

The main process (``ResultReader``) reads every pipe without blocking, in whatever pieces
arrive, and waits on the pipes and the worker processes together: a worker that dies, even
halfway through writing a large batch, is seen at once instead of leaving the reader inside
a message that will never end (``multiprocessing.Queue`` blocks there for good, as the other
workers keep the pipe's write end open).
"""

from __future__ import annotations

import collections
import os
import queue
import struct
import threading
import time
from multiprocessing.connection import wait
from multiprocessing.reduction import ForkingPickler
from typing import Any

__all__ = ["ResultReader", "ResultSender", "WorkerExited"]

_LENGTH = struct.Struct("!Q")


class WorkerExited(Exception):
    """Workers died while results were still expected; ``pids`` names them."""

    def __init__(self, pids: list[int]) -> None:
        super().__init__(pids)
        self.pids = pids


class ResultSender:
    """The worker's end: ``put(obj)`` pickles ``obj`` now and queues it for the sender thread."""

    def __init__(self, connection: Any) -> None:
        self._connection = connection  # kept: closing it would close the descriptor
        self._fd = connection.fileno()
        self._frames: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._send_frames, daemon=True,
                                        name="DataLoader result sender")
        self._thread.start()

    def put(self, obj: Any) -> None:
        """Queue ``obj``; raises what pickling it raises (nothing is queued then)."""
        payload = ForkingPickler.dumps(obj)
        self._frames.put(payload)

    def _send_frames(self) -> None:
        while True:
            payload = memoryview(self._frames.get())
            try:
                _write_all(self._fd, _LENGTH.pack(payload.nbytes))
                _write_all(self._fd, payload)
            except OSError:  # the main process is gone or closed the pipe: nobody to tell
                return


def _write_all(fd: int, data: Any) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class _Source:
    """One worker's pipe as the main process reads it: the frame being assembled."""

    def __init__(self, connection: Any, process: Any) -> None:
        self.connection = connection
        self.fd = connection.fileno()
        os.set_blocking(self.fd, False)
        self.process = process
        self.dead = False
        self._length = bytearray()       # the 8-byte length while it arrives
        self._frame: bytearray | None = None
        self._filled = 0

    def drain(self, into: collections.deque[Any]) -> None:
        """Read what the pipe holds now; complete frames go to ``into``, unpickled."""
        while True:
            try:
                if self._frame is None:
                    chunk = os.read(self.fd, _LENGTH.size - len(self._length))
                    if not chunk:
                        return
                    self._length += chunk
                    if len(self._length) == _LENGTH.size:
                        (size,) = _LENGTH.unpack(self._length)
                        self._frame, self._filled, self._length = bytearray(size), 0, bytearray()
                        self._finish_if_full(into)
                    continue
                n = os.readv(self.fd, [memoryview(self._frame)[self._filled:]])
                if n == 0:
                    return
                self._filled += n
                self._finish_if_full(into)
            except BlockingIOError:
                return

    def _finish_if_full(self, into: collections.deque[Any]) -> None:
        assert self._frame is not None
        if self._filled < len(self._frame):
            return
        frame, self._frame = self._frame, None
        into.append(ForkingPickler.loads(frame))  # its error is raised as it is, as in PyTorch


class ResultReader:
    """The main process's end of every worker's pipe."""

    def __init__(self) -> None:
        self._sources: list[_Source] = []
        self._ready: collections.deque[Any] = collections.deque()

    def add(self, connection: Any, process: Any) -> None:
        """Read ``connection``, written by the (started) worker ``process``."""
        self._sources.append(_Source(connection, process))

    def get(self, deadline: float | None = None) -> Any:
        """The next result from any worker. Raises ``queue.Empty`` at ``deadline`` (a
        ``time.monotonic()`` value; None: no limit) and ``WorkerExited`` when a worker has
        died and no complete result is left to return."""
        while True:
            if self._ready:
                return self._ready.popleft()
            dead = [s.process.pid for s in self._sources if s.dead]
            if dead:
                raise WorkerExited(dead)
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise queue.Empty
            by_handle: dict[Any, tuple[_Source, bool]] = {}
            for s in self._sources:
                by_handle[s.connection] = (s, False)
                by_handle[s.process.sentinel] = (s, True)
            for handle in wait(list(by_handle), remaining):
                source, exited = by_handle[handle]
                source.drain(self._ready)  # a dead worker's last complete results count
                source.dead = source.dead or exited

    def close(self) -> None:
        """Close every pipe."""
        for s in self._sources:
            s.connection.close()
