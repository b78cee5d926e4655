"""``FileStore``: a store in a file shared by the processes of one machine (or a shared
file system that honours ``flock``).

Every operation locks the file (``fcntl.flock``), reads the table, applies the
operation, writes the table back if it changed, and unlocks: one operation at a time
across processes. Waiting operations poll. The table is JSON (values base64): a
FileStore file is arraygrad's format, not PyTorch's.

``world_size`` as PyTorch's: each store counts itself in on opening (the ``refcount/``
key) and out when it is garbage-collected (``cleanup/``); when ``world_size`` stores
have gone, the last one deletes the file. A negative ``world_size`` never deletes it.
"""

from __future__ import annotations

import fcntl
import os
from typing import Any

from arraygrad.distributed.stores.store import Store
from arraygrad.distributed.stores.table import OPS, Table, decode, encode

__all__ = ["FileStore"]


class FileStore(Store):
    """A store kept in the file ``file_name``, shared by every process that opens it."""

    def __init__(self, file_name: str, world_size: int = -1) -> None:
        super().__init__()
        self._path = os.fspath(file_name)
        self._world_size = int(world_size)
        self._closed = False
        self._apply("add", "refcount/", 1)

    @property
    def path(self) -> str:
        """The file the store lives in."""
        return self._path

    def _apply(self, op: str, *args: Any) -> Any:
        fn, writes = OPS[op]
        with open(self._path, "a+b") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                f.seek(0)
                data = f.read()
                state = decode(data) if data else {"kv": {}, "queues": {}}
                table = Table(state["kv"], state["queues"])
                result = fn(table, *args)
                if writes:
                    f.seek(0)
                    f.truncate()
                    f.write(encode({"kv": table.kv, "queues": table.queues}))
                    f.flush()
                return result
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def clone(self) -> "FileStore":
        """Another store on the same file (counted as one more user of it)."""
        other = FileStore(self._path, self._world_size)
        other.set_timeout(self._timeout)
        return other

    def __del__(self) -> None:
        # PyTorch's destructor: count this store out; the last of world_size deletes the file
        if getattr(self, "_closed", True):
            return
        self._closed = True
        try:
            gone = self._apply("add", "cleanup/", 1)
            if 0 < self._world_size <= gone:
                os.remove(self._path)
        except Exception:  # noqa: BLE001 - at interpreter exit the file may be gone already
            pass
