"""``Store``: PyTorch's key-value store API, and ``HashStore`` (in this process's memory).

The API (``set``/``get``/``add``/``compare_set``/``wait``/``check``/``delete_key``/
``num_keys``, ``append``, ``multi_get``/``multi_set``, queues, ``list_keys``, ``barrier``)
is written once here on two primitives a store provides: ``_apply`` runs one table
operation atomically (``table.OPS``), ``_pause`` waits until the table may have changed.
Operations that wait (``get``, ``wait``, ``multi_get``, a blocking ``queue_pop``) retry
until the store's ``timeout`` and then raise ``DistStoreError``.

Keys are ``str``; values ``str`` (stored UTF-8) or ``bytes``; ``get`` returns ``bytes``.
"""

from __future__ import annotations

import threading
import time
from datetime import timedelta
from typing import Any

from arraygrad.distributed.errors import DistStoreError, QueueEmptyError
from arraygrad.distributed.stores.table import NOT_READY, OPS, Table

__all__ = ["HashStore", "Store"]

DEFAULT_TIMEOUT = timedelta(seconds=300)


def _key(method: str, key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"{method}(): incompatible function arguments: the key must be a str, "
                        f"got {type(key).__name__}")
    return key


def _value(method: str, value: Any) -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytes, bytearray)):
        return bytes(value)
    raise TypeError(f"{method}(): incompatible function arguments: the value must be a str or "
                    f"bytes, got {type(value).__name__}")


def _keys(method: str, keys: Any) -> list[str]:
    if isinstance(keys, str) or not hasattr(keys, "__iter__"):
        raise TypeError(f"{method}(): incompatible function arguments: keys must be a list of "
                        f"str, got {type(keys).__name__}")
    return [_key(method, k) for k in keys]


class Store:
    """A key-value store shared by processes (PyTorch's ``torch.distributed.Store``).

    Subclasses provide ``_apply(op, *args)`` (run ``table.OPS[op]`` atomically on the
    store's table) and ``_pause(deadline)``; a Python subclass may instead override the
    public methods, as with PyTorch's.
    """

    def __init__(self, timeout: timedelta = DEFAULT_TIMEOUT) -> None:
        self._timeout = timeout

    # -- what a store provides ---------------------------------------------------------------
    def _apply(self, op: str, *args: Any) -> Any:
        raise RuntimeError(f"{type(self).__name__}: Not implemented.")

    def _pause(self, deadline: float) -> None:
        time.sleep(max(0.0, min(0.01, deadline - time.monotonic())))

    def _timeout_error(self, keys: list[str], seconds: float) -> DistStoreError:
        return DistStoreError("Wait timeout")

    def _blocking(self, op: str, args: tuple[Any, ...], keys: list[str],
                  timeout: timedelta | None = None) -> Any:
        """Run ``op`` until it is ready or the timeout passed (DistStoreError then)."""
        seconds = (timeout if timeout is not None else self._timeout).total_seconds()
        deadline = time.monotonic() + seconds
        while True:
            result = self._apply(op, *args)
            if result is not NOT_READY:
                return result
            if time.monotonic() >= deadline:
                raise self._timeout_error(keys, seconds)
            self._pause(deadline)

    # -- PyTorch's API ---------------------------------------------------------------------
    @property
    def timeout(self) -> timedelta:
        """How long ``get``/``wait`` wait for a key."""
        return self._timeout

    def set_timeout(self, timeout: timedelta) -> None:
        """Set the default timeout of ``get``, ``wait`` and the other waiting calls."""
        if not isinstance(timeout, timedelta):
            raise TypeError("set_timeout(): incompatible function arguments: timeout must be "
                            f"a datetime.timedelta, got {type(timeout).__name__}")
        self._timeout = timeout

    def set(self, key: str, value: str | bytes) -> None:
        """Set ``key`` to ``value`` (replacing what it held)."""
        self._apply("set", _key("set", key), _value("set", value))

    def get(self, key: str) -> bytes:
        """``key``'s value, waiting up to the timeout for it to be set."""
        key = _key("get", key)
        return self._blocking("get", (key,), [key])

    def add(self, key: str, amount: int) -> int:
        """Add ``amount`` to the counter ``key`` (created at 0); the new value."""
        return int(self._apply("add", _key("add", key), int(amount)))

    def compare_set(self, key: str, expected_value: str | bytes,
                    desired_value: str | bytes) -> bytes:
        """Set ``key`` to ``desired_value`` if it holds ``expected_value`` (or is unset and
        ``expected_value`` is empty); the value it then holds (``expected_value`` if unset)."""
        return self._apply("compare_set", _key("compare_set", key),
                           _value("compare_set", expected_value),
                           _value("compare_set", desired_value))

    def wait(self, keys: list[str], timeout: timedelta | None = None) -> None:
        """Wait until every key of ``keys`` is set (DistStoreError after the timeout)."""
        names = _keys("wait", keys)
        self._blocking("wait", (names,), names, timeout)

    def check(self, keys: list[str]) -> bool:
        """Whether every key of ``keys`` is set, without waiting."""
        return bool(self._apply("check", _keys("check", keys)))

    def delete_key(self, key: str) -> bool:
        """Delete ``key``; whether it existed."""
        return bool(self._apply("delete_key", _key("delete_key", key)))

    def num_keys(self) -> int:
        """How many keys the store holds (with its own bookkeeping key, as PyTorch's)."""
        return int(self._apply("num_keys"))

    def append(self, key: str, value: str | bytes) -> None:
        """Append ``value`` to ``key``'s value (created if unset)."""
        self._apply("append", _key("append", key), _value("append", value))

    def multi_get(self, keys: list[str]) -> list[bytes]:
        """The values of ``keys``, waiting for all of them to be set."""
        names = _keys("multi_get", keys)
        return self._blocking("multi_get", (names,), names)

    def multi_set(self, keys: list[str], values: list[str | bytes]) -> None:
        """Set each of ``keys`` to the value at the same place in ``values``."""
        names = _keys("multi_set", keys)
        data = [_value("multi_set", v) for v in values]
        if len(names) != len(data):
            raise ValueError(f"multi_set: {len(names)} keys but {len(data)} values")
        self._apply("multi_set", names, data)

    def queue_push(self, key: str, value: str | bytes) -> None:
        """Push ``value`` at the end of the queue ``key``."""
        self._apply("queue_push", _key("queue_push", key), _value("queue_push", value))

    def queue_pop(self, key: str, block: bool = True) -> bytes:
        """Pop the queue ``key``'s first value; an empty queue waits (``block``) up to the
        timeout, or raises ``QueueEmptyError``."""
        key = _key("queue_pop", key)
        if not block:
            result = self._apply("queue_pop", key)
            if result is NOT_READY:
                raise QueueEmptyError("queue is empty")
            return result
        return self._blocking("queue_pop", (key,), [key])

    def queue_len(self, key: str) -> int:
        """How many values the queue ``key`` holds (0 if it does not exist)."""
        return int(self._apply("queue_len", _key("queue_len", key)))

    def list_keys(self) -> list[str]:
        """Every key set in the store."""
        return list(self._apply("list_keys"))

    def has_extended_api(self) -> bool:
        """True: this store has ``append``, ``multi_get``/``multi_set`` and the queues."""
        return True

    def barrier(self, key: str, world_size: int, timeout: timedelta | None = None) -> None:
        """Wait until ``world_size`` callers reached the barrier named ``key``."""
        key = _key("barrier", key)
        if self.add(key, 1) >= world_size:
            self.set(f"{key}/done", b"1")
        self.wait([f"{key}/done"], timeout)

    def clone(self) -> "Store":
        """Another handle on the same store (for another thread)."""
        raise RuntimeError(f"{type(self).__name__}: Not implemented.")


class HashStore(Store):
    """A store in this process's memory, shared by its threads (``clone()`` shares it)."""

    def __init__(self) -> None:
        super().__init__()
        self._table = Table()
        self._changed = threading.Condition()

    def _apply(self, op: str, *args: Any) -> Any:
        fn, writes = OPS[op]
        with self._changed:
            result = fn(self._table, *args)
            if writes:
                self._changed.notify_all()
            return result

    def _blocking(self, op: str, args: tuple[Any, ...], keys: list[str],
                  timeout: timedelta | None = None) -> Any:
        # checking and waiting under one lock: no change can slip in between
        seconds = (timeout if timeout is not None else self._timeout).total_seconds()
        deadline = time.monotonic() + seconds
        fn, writes = OPS[op]
        with self._changed:
            while True:
                result = fn(self._table, *args)
                if result is not NOT_READY:
                    if writes:
                        self._changed.notify_all()
                    return result
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._timeout_error(keys, seconds)
                self._changed.wait(remaining)

    def clone(self) -> "HashStore":
        """A handle on the same table."""
        other = HashStore.__new__(HashStore)
        Store.__init__(other, self._timeout)
        other._table, other._changed = self._table, self._changed
        return other
