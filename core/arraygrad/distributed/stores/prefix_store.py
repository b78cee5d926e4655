"""``PrefixStore``: a view of another store with every key under ``prefix/``."""

from __future__ import annotations

from datetime import timedelta
from arraygrad.distributed.stores.store import Store, _key, _keys

__all__ = ["PrefixStore"]


class PrefixStore(Store):
    """``store`` with ``prefix + "/"`` put before every key (PyTorch's ``PrefixStore``)."""

    def __init__(self, prefix: str, store: Store) -> None:
        if not isinstance(store, Store):
            raise TypeError("PrefixStore(): incompatible function arguments: store must be a "
                            f"Store, got {type(store).__name__}")
        super().__init__(store.timeout)
        self._prefix = _key("PrefixStore", prefix)
        self._store = store

    def _k(self, key: str) -> str:
        return f"{self._prefix}/{key}"

    @property
    def underlying_store(self) -> Store:
        """The store the keys go to."""
        return self._store

    def _underlying_non_prefix_store(self) -> Store:
        """The innermost store under nested prefix stores."""
        store = self._store
        while isinstance(store, PrefixStore):
            store = store._store
        return store

    @property
    def timeout(self) -> timedelta:
        """The underlying store's timeout."""
        return self._store.timeout

    def set_timeout(self, timeout: timedelta) -> None:
        """Set the underlying store's timeout."""
        self._store.set_timeout(timeout)

    def set(self, key: str, value: str | bytes) -> None:
        """``Store.set`` on the prefixed key(s)."""
        self._store.set(self._k(_key("set", key)), value)

    def get(self, key: str) -> bytes:
        """``Store.get`` on the prefixed key(s)."""
        return self._store.get(self._k(_key("get", key)))

    def add(self, key: str, amount: int) -> int:
        """``Store.add`` on the prefixed key(s)."""
        return self._store.add(self._k(_key("add", key)), amount)

    def compare_set(self, key: str, expected_value: str | bytes,
                    desired_value: str | bytes) -> bytes:
        """``Store.compare_set`` on the prefixed key(s)."""
        return self._store.compare_set(self._k(_key("compare_set", key)), expected_value,
                                       desired_value)

    def wait(self, keys: list[str], timeout: timedelta | None = None) -> None:
        """``Store.wait`` on the prefixed key(s)."""
        self._store.wait([self._k(k) for k in _keys("wait", keys)], timeout)

    def check(self, keys: list[str]) -> bool:
        """``Store.check`` on the prefixed key(s)."""
        return self._store.check([self._k(k) for k in _keys("check", keys)])

    def delete_key(self, key: str) -> bool:
        """``Store.delete_key`` on the prefixed key(s)."""
        return self._store.delete_key(self._k(_key("delete_key", key)))

    def num_keys(self) -> int:
        """The underlying store's key count (every key, as PyTorch's)."""
        return self._store.num_keys()

    def append(self, key: str, value: str | bytes) -> None:
        """``Store.append`` on the prefixed key(s)."""
        self._store.append(self._k(_key("append", key)), value)

    def multi_get(self, keys: list[str]) -> list[bytes]:
        """``Store.multi_get`` on the prefixed key(s)."""
        return self._store.multi_get([self._k(k) for k in _keys("multi_get", keys)])

    def multi_set(self, keys: list[str], values: list[str | bytes]) -> None:
        """``Store.multi_set`` on the prefixed key(s)."""
        self._store.multi_set([self._k(k) for k in _keys("multi_set", keys)], values)

    def queue_push(self, key: str, value: str | bytes) -> None:
        """``Store.queue_push`` on the prefixed key(s)."""
        self._store.queue_push(self._k(_key("queue_push", key)), value)

    def queue_pop(self, key: str, block: bool = True) -> bytes:
        """``Store.queue_pop`` on the prefixed key(s)."""
        return self._store.queue_pop(self._k(_key("queue_pop", key)), block)

    def queue_len(self, key: str) -> int:
        """``Store.queue_len`` on the prefixed key(s)."""
        return self._store.queue_len(self._k(_key("queue_len", key)))

    def list_keys(self) -> list[str]:
        """The keys under this prefix, without it."""
        start = f"{self._prefix}/"
        return [k[len(start):] for k in self._store.list_keys() if k.startswith(start)]

    def has_extended_api(self) -> bool:
        """``Store.has_extended_api`` on the prefixed key(s)."""
        return self._store.has_extended_api()

    def barrier(self, key: str, world_size: int, timeout: timedelta | None = None) -> None:
        """The underlying store's barrier on the prefixed key."""
        self._store.barrier(self._k(_key("barrier", key)), world_size, timeout)

    def clone(self) -> "PrefixStore":
        """The same prefix on a clone of the underlying store."""
        return PrefixStore(self._prefix, self._store.clone())
