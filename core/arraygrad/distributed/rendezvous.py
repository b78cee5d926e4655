"""Rendezvous: how processes find each other and a shared store, from a URL (PyTorch's).

``rendezvous(url, rank, world_size)`` returns an iterator yielding
``(store, rank, world_size)``: ``tcp://host:port`` (rank 0 serves a ``TCPStore``),
``env://`` (``MASTER_ADDR``, ``MASTER_PORT``, ``RANK``, ``WORLD_SIZE``) and
``file:///path`` (a ``FileStore``); ``register_rendezvous_handler`` adds a scheme.
arraygrad's process groups need none of this (``mpiexec`` connects the ranks); the
stores it gives are for the program's own coordination.
"""

from __future__ import annotations

import numbers
import os
from datetime import timedelta
from typing import Any, Callable, Iterator
from urllib.parse import urlparse, urlunparse

from arraygrad.distributed.constants import default_pg_timeout
from arraygrad.distributed.stores import FileStore, Store, TCPStore

__all__ = ["register_rendezvous_handler", "rendezvous"]

_handlers: dict[str, Callable[..., Iterator[tuple[Store, int, int]]]] = {}


def register_rendezvous_handler(scheme: str, handler: Callable[..., Any]) -> None:
    """Make ``rendezvous`` use the generator function ``handler(url, **kwargs)`` for
    ``scheme://`` URLs (RuntimeError if the scheme has one already)."""
    if scheme in _handlers:
        raise RuntimeError(f"Rendezvous handler for {scheme}:// already registered")
    _handlers[scheme] = handler


def _query(query: str) -> dict[str, str]:
    return {k: v for k, v in (pair.split("=") for pair in filter(None, query.split("&")))}


def rendezvous(url: str, rank: int = -1, world_size: int = -1,
               **kwargs: Any) -> Iterator[tuple[Store, int, int]]:
    """An iterator over ``(store, rank, world_size)`` for ``url`` (its scheme's handler);
    ``rank``/``world_size`` go into the URL's query unless it has them already."""
    if not isinstance(url, (str, bytes)):
        raise RuntimeError(f"`url` must be a string. {type(url)}: {url}")
    if not isinstance(rank, numbers.Integral):
        raise RuntimeError(f"`rank` must be an integer. {rank}")
    if not isinstance(world_size, numbers.Integral):
        raise RuntimeError(f"`world_size` must be an integer. {world_size}")
    url = url.decode() if isinstance(url, bytes) else url
    result = urlparse(url)
    if rank != -1 or world_size != -1:
        query = _query(result.query)
        if "rank" in query or "world_size" in query:
            raise AssertionError(f"The url: {url} has node-specific arguments(rank, world_size) "
                                 "already.")
        if rank != -1:
            query["rank"] = str(rank)
        if world_size != -1:
            query["world_size"] = str(world_size)
        result = result._replace(query="&".join(f"{k}={v}" for k, v in query.items()))
        url = urlunparse(result)
    if result.scheme not in _handlers:
        raise RuntimeError(f"No rendezvous handler for {result.scheme}://")
    return _handlers[result.scheme](url, **kwargs)


def _error(scheme: str, msg: str) -> ValueError:
    return ValueError(f"Error initializing torch.distributed using {scheme}:// rendezvous: {msg}")


def _rank_and_size(scheme: str, query: dict[str, str]) -> tuple[int, int]:
    if "rank" not in query:
        raise _error(scheme, "rank parameter missing")
    if "world_size" not in query:
        raise _error(scheme, "world size parameter missing")
    return int(query["rank"]), int(query["world_size"])


def _tcp_store(host: str, port: int, rank: int, world_size: int, timeout: timedelta,
               query: dict[str, str]) -> Store:
    """Rank 0 serves (shared by its other stores on that port); the others connect."""
    if not 0 <= port < 2 ** 16:
        raise ValueError(f"port must have value from 0 to 65535 but was {port}.")
    use_libuv = query.get("use_libuv", os.environ.get("USE_LIBUV", "1")) == "1"
    if os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == str(True):
        return TCPStore(host, port, world_size, False, timeout)
    return TCPStore(host, port, world_size, rank == 0, timeout, multi_tenant=True,
                    use_libuv=use_libuv)


def _file_handler(url: str, **kwargs: Any) -> Iterator[tuple[Store, int, int]]:
    result = urlparse(url)
    if not result.path:
        raise _error("file", "path missing")
    rank, world_size = _rank_and_size("file", _query(result.query))
    yield FileStore(result.path, world_size), rank, world_size
    raise RuntimeError("Unable to perform rerendezvous using file:// method")


def _tcp_handler(url: str, timeout: timedelta = default_pg_timeout,
                 **kwargs: Any) -> Iterator[tuple[Store, int, int]]:
    result = urlparse(url)
    if result.port is None:
        raise _error("tcp", "port number missing")
    query = _query(result.query)
    rank, world_size = _rank_and_size("tcp", query)
    if result.hostname is None:
        raise AssertionError("hostname cannot be None")
    yield _tcp_store(result.hostname, result.port, rank, world_size, timeout, query), rank, \
        world_size
    raise RuntimeError("Unable to perform re-rendezvous using tcp:// method")


def _env_handler(url: str, timeout: timedelta = default_pg_timeout,
                 **kwargs: Any) -> Iterator[tuple[Store, int, int]]:
    def env(name: str) -> str:
        value = os.environ.get(name)
        if not value:
            raise _error("env", f"environment variable {name} expected, but not set")
        return value

    query = _query(urlparse(url).query)
    rank = int(query["rank"]) if "rank" in query else int(env("RANK"))
    world_size = int(query["world_size"]) if "world_size" in query else int(env("WORLD_SIZE"))
    store = _tcp_store(env("MASTER_ADDR"), int(env("MASTER_PORT")), rank, world_size, timeout,
                       query)
    yield store, rank, world_size
    raise RuntimeError("Unable to perform re-rendezvous using env:// method")


register_rendezvous_handler("tcp", _tcp_handler)
register_rendezvous_handler("env", _env_handler)
register_rendezvous_handler("file", _file_handler)
