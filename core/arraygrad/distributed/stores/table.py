"""The key-value table every store keeps, and its operations as pure functions.

A store's state is a ``Table``: ``kv`` (key → bytes) and ``queues`` (key → list of
bytes). Each operation reads or changes a table and returns its result, or
``NOT_READY`` when it must wait (a key not set yet, an empty queue); the stores run
them atomically on wherever their table lives (memory, a file, a server) and retry
the waiting ones until the timeout. ``encode``/``decode`` carry tables and requests
as JSON (bytes in base64): nothing read from a file or a socket is unpickled.
"""

from __future__ import annotations

import base64
import json
from typing import Any, Callable

__all__ = ["INTERNAL", "NOT_READY", "OPS", "Table", "decode", "encode"]

NOT_READY = object()
# keys the stores keep for themselves (TCPStore's worker count, FileStore's reference
# counts): counted by num_keys, as PyTorch's, but not listed by list_keys
INTERNAL = ("init/", "refcount/", "cleanup/")


class Table:
    """A store's contents: ``kv`` and ``queues``."""

    def __init__(self, kv: dict[str, bytes] | None = None,
                 queues: dict[str, list[bytes]] | None = None) -> None:
        self.kv = kv if kv is not None else {}
        self.queues = queues if queues is not None else {}


def _add(t: Table, key: str, amount: int) -> int:
    try:
        value = int(t.kv.get(key, b"0")) + amount
    except ValueError:  # PyTorch's C++ std::stoll on a value that is not a number
        raise ValueError("stoll") from None
    t.kv[key] = str(value).encode()
    return value


def _compare_set(t: Table, key: str, expected: bytes, desired: bytes) -> bytes:
    current = t.kv.get(key)
    if current is None:
        if expected == b"":
            t.kv[key] = desired
            return desired
        return expected
    if current == expected:
        t.kv[key] = desired
        return desired
    return current


def _multi_get(t: Table, keys: list[str]) -> Any:
    if not all(k in t.kv for k in keys):
        return NOT_READY
    return [t.kv[k] for k in keys]


def _multi_set(t: Table, keys: list[str], values: list[bytes]) -> None:
    t.kv.update(zip(keys, values))


def _append(t: Table, key: str, value: bytes) -> None:
    t.kv[key] = t.kv.get(key, b"") + value


def _delete(t: Table, key: str) -> bool:
    found = t.kv.pop(key, None) is not None
    return t.queues.pop(key, None) is not None or found


def _pop(t: Table, key: str) -> Any:
    queue = t.queues.get(key)
    if not queue:
        return NOT_READY
    return queue.pop(0)


# name -> (function, whether it changes the table)
OPS: dict[str, tuple[Callable[..., Any], bool]] = {
    "set": (lambda t, k, v: t.kv.__setitem__(k, v), True),
    "get": (lambda t, k: t.kv.get(k, NOT_READY), False),
    "add": (_add, True),
    "compare_set": (_compare_set, True),
    "check": (lambda t, keys: all(k in t.kv or bool(t.queues.get(k)) for k in keys), False),
    "wait": (lambda t, keys: None if all(k in t.kv or bool(t.queues.get(k)) for k in keys)
             else NOT_READY, False),
    "delete_key": (_delete, True),
    "num_keys": (lambda t: len(t.kv), False),
    "append": (_append, True),
    "multi_get": (_multi_get, False),
    "multi_set": (_multi_set, True),
    "queue_push": (lambda t, k, v: t.queues.setdefault(k, []).append(v), True),
    "queue_pop": (_pop, True),
    "queue_len": (lambda t, k: len(t.queues.get(k, [])), False),
    "list_keys": (lambda t: [k for k in t.kv if k not in INTERNAL], False),
}


def _plain(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"b": base64.b64encode(value).decode("ascii")}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {"d": {k: _plain(v) for k, v in value.items()}}
    return value


def _back(value: Any) -> Any:
    if isinstance(value, dict):
        if "b" in value:
            return base64.b64decode(value["b"])
        return {k: _back(v) for k, v in value["d"].items()}
    if isinstance(value, list):
        return [_back(v) for v in value]
    return value


def encode(value: Any) -> bytes:
    """``value`` (str, bytes, int, float, bool, None, lists and dicts of them) as JSON bytes."""
    return json.dumps(_plain(value)).encode()


def decode(data: bytes) -> Any:
    """The value ``encode`` wrote."""
    return _back(json.loads(data.decode()))
