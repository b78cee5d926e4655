"""PyTorch's stores in pure Python: ``Store`` (the API), ``HashStore`` (this process),
``FileStore`` (a locked file), ``TCPStore`` (a server thread in the master process) and
``PrefixStore`` (a namespace in another store). See ``store.py`` for the API."""

from arraygrad.distributed.stores.file_store import FileStore
from arraygrad.distributed.stores.prefix_store import PrefixStore
from arraygrad.distributed.stores.store import HashStore, Store
from arraygrad.distributed.stores.tcp_store import TCPStore

__all__ = ["FileStore", "HashStore", "PrefixStore", "Store", "TCPStore"]
