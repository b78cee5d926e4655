"""Ranks that leave an MPI job early: seen by the others, which end the job, non-zero,
naming that rank, instead of hanging in a collective or being killed without a word.

MPI itself does not tell a rank that a peer is gone: a blocking collective waits for it
forever, and Hydra, when a rank exits without ``MPI_Finalize``, kills the others silently
and may report success. So the ranks keep a TCP connection each to rank 0 (the coordinator),
opened when the world starts (``start``). A rank *departs* when its Python exits (an atexit
handler says goodbye, then waits: ``MPI_Finalize`` must not start while others still need
it) or when its connection closes without a goodbye (``os._exit``, a signal, a crash). The
coordinator tells every rank of every departure. A departure is an error only when another
rank needs the departed one: it is waiting in an MPI call now, or enters one later
(``blocking``); then that rank prints what happened and tells the coordinator, which ends
every rank with exit status 1. When every rank has departed cleanly, each goes on to
``MPI_Finalize``.

``ARRAYGRAD_DIST_LIVENESS=0`` (on every rank) turns this off, for hosts where rank 0 cannot
accept the other ranks' TCP connections.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import socket
import sys
import threading
from typing import Any, Iterator

__all__ = ["blocking", "start"]

_CONNECT_S = 60.0  # how long the ranks may take to connect when the world starts
_FAREWELL_S = 2.0  # how long the coordinator lets the ranks print before it exits
# A rank that departs right after a collective may leave a peer still finishing that very
# collective (which no longer needs it): only a call still in progress after this is stuck.
_GRACE_S = 1.0
_watch: _Watch | None = None


class _Watch:
    """This rank's end of the connections, and what it knows of the others' departures."""

    def __init__(self, rank: int, size: int, peers: dict[int, socket.socket],
                 launched: bool) -> None:
        self.rank, self.size = rank, size
        # Under plain mpiexec, Hydra kills every rank the moment one dies without finalizing,
        # and may report success: a rank that sees such a death first fails at once, loudly.
        self.hydra_kills = not launched
        self.peers = peers  # the coordinator: every other rank; the others: {0: coordinator}
        self.departed: dict[int, str] = {}
        self.busy = 0  # MPI calls of this process in progress
        self.calls = 0  # MPI calls of this process started so far
        self.finished = threading.Event()  # every rank departed cleanly: finalize
        self.lock = threading.RLock()
        threading.Thread(target=self._listen, daemon=True, name="arraygrad liveness").start()
        atexit.register(self._depart)

    # -- messages ---------------------------------------------------------------------------

    def _send(self, peer: int, line: str) -> None:
        with contextlib.suppress(OSError):
            self.peers[peer].sendall(line.encode() + b"\n")

    def _listen(self) -> None:
        buffers = {peer: b"" for peer in self.peers}
        by_socket = {s: peer for peer, s in self.peers.items()}
        while by_socket:
            ready, _, _ = select.select(list(by_socket), [], [])
            for s in ready:
                peer = by_socket[s]
                try:
                    chunk = s.recv(4096)
                except OSError:
                    chunk = b""
                if not chunk:
                    del by_socket[s]
                    self._closed(peer)
                    continue
                buffers[peer] += chunk
                while b"\n" in buffers[peer]:
                    line, buffers[peer] = buffers[peer].split(b"\n", 1)
                    self._received(peer, line.decode())

    def _received(self, peer: int, line: str) -> None:
        kind, _, rest = line.partition(" ")
        if kind == "BYE":
            self._left(peer, "it exited")
        elif kind == "LEFT":
            who, _, how = rest.partition(" ")
            self._left(int(who), how)
        elif kind == "FAIL":
            self._fail(rest, told=True)
        elif kind == "OK":
            self.finished.set()

    def _closed(self, peer: int) -> None:
        if self.finished.is_set():
            return
        how = "it ended without shutting down: os._exit, a signal or a crash"
        if self.hydra_kills and peer not in self.departed:
            self.departed[peer] = how
            self._fail(f"rank {peer} left the job early ({how}); mpiexec is ending every rank")
        self._left(peer, how)
        if self.rank != 0:  # no coordinator any more: nothing to wait for at exit
            self.finished.set()

    # -- decisions --------------------------------------------------------------------------

    def _left(self, who: int, how: str) -> None:
        with self.lock:
            if who in self.departed:
                return
            self.departed[who] = how
            if self.rank == 0:
                for peer in self.peers:
                    if peer != who:
                        self._send(peer, f"LEFT {who} {how}")
                if len(self.departed) == self.size:
                    self._finish()
                    return
            if self.busy and who != self.rank:
                timer = threading.Timer(_GRACE_S, self._still_stuck, (who, self.calls))
                timer.daemon = True
                timer.start()

    def _still_stuck(self, who: int, calls: int) -> None:
        with self.lock:
            if self.busy and self.calls == calls:
                self._fail(self._reason(who))

    def _finish(self) -> None:
        """Coordinator: everyone departed; those who said goodbye may finalize."""
        for peer in self.peers:
            self._send(peer, "OK")
        self.finished.set()

    def _reason(self, who: int) -> str:
        return (f"rank {who} left the job early ({self.departed[who]}) while rank {self.rank} "
                "needed it in an MPI call")

    def _fail(self, reason: str, told: bool = False) -> None:
        """End this rank (status 1), after telling the coordinator (which tells the rest)."""
        with self.lock:
            print(f"arraygrad.distributed: rank {self.rank}: ending the job: {reason}",
                  file=sys.stderr, flush=True)
            if self.rank == 0:
                for peer in self.peers:
                    self._send(peer, f"FAIL {reason}")
                self._await_hangups()
            elif not told:
                self._send(0, f"FAIL {reason}")
            os._exit(1)

    def _await_hangups(self) -> None:
        """Coordinator: give the ranks a moment to print before its own exit ends the job."""
        waiting = list(self.peers.values())
        while waiting:
            ready, _, _ = select.select(waiting, [], [], _FAREWELL_S)
            if not ready:
                return
            for s in ready:
                with contextlib.suppress(OSError):
                    if s.recv(4096):
                        continue
                waiting.remove(s)

    def _depart(self) -> None:
        """atexit: say goodbye, then wait until every rank is done (or the job fails).

        Not after an uncaught exception: ``python -m mpi4py`` aborts the job right after
        this, with the exception's status, and must not be kept waiting."""
        if self.rank == 0:
            self._left(0, "it exited")
        else:
            with self.lock:
                self.departed[self.rank] = "it exited"
            self._send(0, "BYE")
        if getattr(sys, "last_value", None) is None:
            self.finished.wait()

    # -- the MPI calls ----------------------------------------------------------------------

    @contextlib.contextmanager
    def blocking(self) -> Iterator[None]:
        with self.lock:
            gone = [r for r in self.departed if r != self.rank]
            if gone:
                self._fail(self._reason(gone[0]))
            self.busy += 1
            self.calls += 1
        try:
            yield
        finally:
            with self.lock:
                self.busy -= 1


@contextlib.contextmanager
def blocking() -> Iterator[None]:
    """Around an MPI call that needs the other ranks: if one has left (or leaves while this
    waits), end the job naming it."""
    if _watch is None:
        yield
        return
    with _watch.blocking():
        yield


def _read_line(conn: socket.socket) -> bytes:
    """One line, read a byte at a time: nothing after it is taken from the socket."""
    line = b""
    while not line.endswith(b"\n"):
        byte = conn.recv(1)
        if not byte:
            raise ConnectionError("a rank closed its connection while starting")
        line += byte
    return line


def _forget_in_child() -> None:
    """A process forked from a rank (a DataLoader worker) is no rank: it must neither say
    goodbye for it nor keep its connections open (which would hide the rank's death)."""
    global _watch
    if _watch is not None:
        atexit.unregister(_watch._depart)
        for s in _watch.peers.values():
            s.close()
        _watch = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def start(comm: Any, launched: bool = False) -> None:
    """Connect this rank to the coordinator (rank 0 of ``comm``, MPI's world), once.
    ``launched``: by ``arraygrad.distributed.run`` (Hydra's clean-up is off)."""
    global _watch
    size, rank = comm.Get_size(), comm.Get_rank()
    if _watch is not None or size == 1 or os.environ.get("ARRAYGRAD_DIST_LIVENESS") == "0":
        return
    if rank == 0:
        server = socket.create_server(("", 0))
        address = (socket.gethostname(), server.getsockname()[1])
    else:
        server, address = None, None
    host, port = comm.bcast(address, 0)
    peers: dict[int, socket.socket] = {}
    if server is not None:
        server.settimeout(_CONNECT_S)
        with server:
            for _ in range(size - 1):
                conn, _ = server.accept()
                conn.settimeout(_CONNECT_S)
                peer = int(_read_line(conn))
                conn.settimeout(None)
                peers[peer] = conn
    else:
        here = host == socket.gethostname()
        conn = socket.create_connection(("127.0.0.1" if here else host, port), _CONNECT_S)
        conn.settimeout(None)
        conn.sendall(f"{rank}\n".encode())
        peers[0] = conn
    _watch = _Watch(rank, size, peers, launched)
