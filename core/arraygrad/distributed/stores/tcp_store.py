"""``TCPStore``: a store served over TCP by one process (``is_master=True``), pure Python.

The master runs a server thread (``socketserver``, a thread per connection) holding a
``HashStore``; every ``TCPStore`` (the master's too) is a client with one connection.
A request is a length-prefixed JSON frame ``[operation, arguments, timeout]``; waiting
operations wait in the server's connection thread, so a client sends one request per
call. Nothing is unpickled: a peer can only set and read keys. ``multi_tenant=True``
lets several masters of one process share the server of a port;
``master_listen_fd`` gives the master a socket already listening. As in PyTorch, every
store counts itself in the ``init/`` key, and a master given ``world_size`` with
``wait_for_workers=True`` waits for that many.
"""

from __future__ import annotations

import socket
import socketserver
import struct
import threading
import time
from datetime import timedelta
from typing import Any

from arraygrad.distributed.errors import DistNetworkError, DistStoreError, QueueEmptyError
from arraygrad.distributed.stores.store import DEFAULT_TIMEOUT, HashStore, Store
from arraygrad.distributed.stores.table import NOT_READY, decode, encode

__all__ = ["TCPStore"]

_ERRORS: dict[str, type[Exception]] = {
    "DistStoreError": DistStoreError, "QueueEmptyError": QueueEmptyError,
    "ValueError": ValueError, "TypeError": TypeError,
}


def _send(sock: socket.socket, value: Any) -> None:
    data = encode(value)
    sock.sendall(struct.pack("!I", len(data)) + data)


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    parts, got = [], 0
    while got < n:
        part = sock.recv(n - got)
        if not part:
            raise ConnectionError("the connection closed")
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _recv(sock: socket.socket) -> Any:
    (n,) = struct.unpack("!I", _recv_exact(sock, 4))
    return decode(_recv_exact(sock, n))


class _Handler(socketserver.BaseRequestHandler):
    """One client's connection: answer its requests until it closes."""

    def handle(self) -> None:
        store: HashStore = self.server.store  # type: ignore[attr-defined]
        while True:
            try:
                op, args, seconds = _recv(self.request)
            except (ConnectionError, OSError, struct.error):
                return
            try:
                if seconds is None:
                    result = store._apply(op, *args)
                    reply = {"ok": None if result is NOT_READY else result,
                             "ready": result is not NOT_READY}
                else:
                    reply = {"ok": store._blocking(op, tuple(args), _names(args),
                                                   timedelta(seconds=seconds)), "ready": True}
            except Exception as exc:  # noqa: BLE001 - sent back and raised by the client
                reply = {"error": type(exc).__name__, "message": str(exc)}
            try:
                _send(self.request, reply)
            except OSError:
                return


def _names(args: list[Any]) -> list[str]:
    first = args[0] if args else []
    return first if isinstance(first, list) else [first]


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], listen_fd: int | None) -> None:
        self.store = HashStore()
        if listen_fd is None:
            super().__init__(address, _Handler)
        else:  # a socket already bound and listening
            super().__init__(address, _Handler, bind_and_activate=False)
            self.socket = socket.socket(fileno=listen_fd)
        self.thread = threading.Thread(target=self.serve_forever, daemon=True,
                                       name="arraygrad-TCPStore")
        self.thread.start()


def _stop(server: _Server) -> None:
    server.shutdown()
    server.server_close()


_tenants: dict[int, _Server] = {}  # port -> this process's shared server (multi_tenant)
_tenants_lock = threading.Lock()


class TCPStore(Store):
    """A store served over TCP (PyTorch's ``TCPStore``).

    ``TCPStore(host_name, port, world_size=None, is_master=False, timeout=300 s,
    wait_for_workers=True, multi_tenant=False, master_listen_fd=None, use_libuv=True)``:
    the master serves on ``host_name:port`` (port 0: any free port; ``.port`` says
    which); every store connects, retrying until ``timeout`` (DistNetworkError then).
    ``use_libuv`` is accepted as PyTorch's (its C++ server's event loop).
    """

    def __init__(self, host_name: str, port: int, world_size: int | None = None,
                 is_master: bool = False, timeout: timedelta = DEFAULT_TIMEOUT,
                 wait_for_workers: bool = True, multi_tenant: bool = False,
                 master_listen_fd: int | None = None, use_libuv: bool = True) -> None:
        super().__init__(timeout)
        self._host = host_name
        self._world_size = world_size
        self._use_libuv = bool(use_libuv)
        self._server: _Server | None = None
        self._lock = threading.Lock()
        if is_master:
            self._server = self._serve(host_name, int(port), multi_tenant, master_listen_fd)
            port = self._server.server_address[1]
            self._owns_server = not multi_tenant
        else:
            self._owns_server = False
        self._port = int(port)
        self._sock = self._connect()
        self.add("init/", 1)
        if is_master and wait_for_workers and world_size:
            self._wait_for_workers(int(world_size))

    @staticmethod
    def _serve(host: str, port: int, multi_tenant: bool, listen_fd: int | None) -> _Server:
        if not multi_tenant:
            return _Server((host, port), listen_fd)
        with _tenants_lock:
            if port == 0 or port not in _tenants:
                server = _Server((host, port), listen_fd)
                _tenants[server.server_address[1]] = server
                return server
            return _tenants[port]

    def _connect(self) -> socket.socket:
        seconds = self._timeout.total_seconds()
        deadline = time.monotonic() + seconds
        while True:
            try:
                sock = socket.create_connection(
                    (self._host, self._port), timeout=max(0.05, deadline - time.monotonic()))
                sock.settimeout(None)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                return sock
            except OSError:
                if time.monotonic() >= deadline:
                    raise DistNetworkError(
                        f"The client socket has timed out after {int(seconds * 1000)}ms while "
                        f"trying to connect to ({self._host}, {self._port}).") from None
                time.sleep(0.05)

    def _wait_for_workers(self, world_size: int) -> None:
        seconds = self._timeout.total_seconds()
        deadline = time.monotonic() + seconds
        while int(self.get("init/")) < world_size:
            if time.monotonic() >= deadline:
                raise DistStoreError(
                    f"Timed out after {int(seconds)} seconds waiting for clients. "
                    f"{int(self.get('init/'))}/{world_size} clients joined.")
            time.sleep(0.01)

    def _request(self, op: str, args: tuple[Any, ...], seconds: float | None) -> Any:
        with self._lock:
            try:
                _send(self._sock, [op, list(args), seconds])
                reply = _recv(self._sock)
            except (ConnectionError, OSError) as exc:
                raise DistNetworkError(f"TCPStore: the connection to {self._host}:{self._port} "
                                       f"failed: {exc}") from None
        if "error" in reply:
            raise _ERRORS.get(reply["error"], DistStoreError)(reply["message"])
        return reply["ok"] if reply["ready"] else NOT_READY

    def _apply(self, op: str, *args: Any) -> Any:
        return self._request(op, args, None)

    def _blocking(self, op: str, args: tuple[Any, ...], keys: list[str],
                  timeout: timedelta | None = None) -> Any:
        seconds = (timeout if timeout is not None else self._timeout).total_seconds()
        try:
            return self._request(op, args, seconds)
        except DistStoreError as exc:
            if str(exc) != "Wait timeout":
                raise
            raise DistStoreError(f"wait timeout after {int(seconds * 1000)}ms, keys: "
                                 + ", ".join(f"/{k}" for k in keys)) from None

    @property
    def host(self) -> str:
        """The server's host name."""
        return self._host

    @property
    def port(self) -> int:
        """The server's port (the one chosen when the master was given 0)."""
        return self._port

    @property
    def libuvBackend(self) -> bool:  # noqa: N802 - PyTorch's name
        """``use_libuv`` as given (PyTorch's C++ server's event loop; arraygrad's is Python)."""
        return self._use_libuv

    def clone(self) -> "TCPStore":
        """Another client of the same server (its own connection)."""
        other = TCPStore.__new__(TCPStore)
        Store.__init__(other, self._timeout)
        other._host, other._port, other._world_size = self._host, self._port, self._world_size
        other._use_libuv, other._server, other._owns_server = self._use_libuv, None, False
        other._lock = threading.Lock()
        other._sock = other._connect()
        return other

    def __del__(self) -> None:
        sock = getattr(self, "_sock", None)
        if sock is not None:
            sock.close()
        if getattr(self, "_owns_server", False) and self._server is not None:
            # shutdown() waits for the serving loop: not in the collector's thread
            threading.Thread(target=_stop, args=(self._server,), daemon=True).start()
