"""What runs inside a DataLoader worker process, and how batches travel back.

A worker takes tasks ``(epoch, task_id, indices)`` from its own index queue, loads and collates
the batch, and sends ``(epoch, task_id, batch)`` through its result pipe (``_channel``). An
exception becomes an ``ExceptionWrapper`` (its class, message and traceback text, and the worker
id), re-raised by the main process; so does a batch that cannot be pickled. Tensors cross the
process boundary through multiprocessing's own pickler, to which a reducer for ``Tensor`` is
registered here: the host copy of the data goes over the pipe and is rebuilt on the same device
(plain ``pickle`` still refuses tensors: files go through ``arraygrad.save``).

A worker watches its parent: when the main process is gone (killed, even while the worker is
blocked writing a large batch that nobody will read), the worker exits instead of living on.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
import traceback
from multiprocessing.reduction import ForkingPickler
from typing import Any, Callable

from arraygrad.tensor import Tensor
from arraygrad.utils.data._channel import ResultSender
from arraygrad.utils.data._fetch import fetch_batch
from arraygrad.utils.data._worker_info import WorkerInfo, get_worker_info, set_worker_info

__all__ = ["WorkerInfo", "get_worker_info", "ExceptionWrapper", "IterableStop", "worker_loop"]

# How often a worker checks that its parent is still alive.
_PARENT_CHECK_S = 0.5


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process and raised there."""

    def __init__(self, exc: BaseException, where: str) -> None:
        self.exc_type: type[BaseException] | None = type(exc)
        self.type_name = type(exc).__name__
        self.exc_msg = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        self.where = where

    def __getstate__(self) -> dict[str, Any]:
        # A class that cannot be pickled (one defined inside a function) travels by name only,
        # and comes back as a RuntimeError: the error must reach the main process regardless.
        state = dict(self.__dict__)
        try:
            ForkingPickler.dumps(self.exc_type)
        except Exception:
            state["exc_type"] = None
        return state

    def reraise(self) -> None:
        """Raise the exception again (its class when it takes a message, else RuntimeError)."""
        msg = f"Caught {self.type_name} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:  # KeyError prints repr(message): keep it readable
            raise KeyError(_KeyErrorMessage(msg))
        try:
            exc = self.exc_type(msg) if self.exc_type is not None else RuntimeError(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exc


class _KeyErrorMessage(str):
    """A message whose repr is itself (``str(KeyError(m))`` is ``repr(m)``)."""

    def __repr__(self) -> str:
        return str(self)


class IterableStop:
    """A worker's signal that its iterable dataset is exhausted."""

    def __init__(self, worker_id: int) -> None:
        self.worker_id = worker_id


def _rebuild_tensor(host: Any, device: str, requires_grad: bool) -> Tensor:
    from arraygrad.creation import as_tensor

    out = as_tensor(host, device=device)
    return out.requires_grad_(True) if requires_grad else out


def _reduce_tensor(t: Tensor) -> tuple[Callable[..., Tensor], tuple[Any, ...]]:
    return _rebuild_tensor, (t._backend.to_host(t.detach()._data), str(t.device), t.requires_grad)


def _register_reducers() -> None:
    from arraygrad.nn.parameter import Parameter

    ForkingPickler.register(Tensor, _reduce_tensor)
    ForkingPickler.register(Parameter, _reduce_tensor)


_register_reducers()


def _exit_when_orphaned() -> None:
    """Exit this process as soon as its parent is gone (checked every ``_PARENT_CHECK_S``).

    A thread, because the worker's own thread may be anywhere (loading, or blocked sending a
    batch), and ``os._exit`` because nothing the worker holds matters once its parent is gone.
    The parent is the one this process started under: a main process killed by SIGKILL makes
    the worker an orphan, adopted by another process."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_CHECK_S)
        os._exit(1)

    threading.Thread(target=watch, daemon=True, name="DataLoader parent watchdog").start()


def worker_loop(dataset: Any, iterable: bool, index_queue: Any, result_pipe: Any,
                collate_fn: Callable[[Any], Any], auto_collation: bool, batch_size: int | None,
                drop_last: bool, seed: int, init_fn: Callable[[int], None] | None,
                worker_id: int, num_workers: int) -> None:
    """The body of worker ``worker_id``: serve tasks until told to stop (``None``); exit when
    the parent process is gone."""
    import arraygrad

    _exit_when_orphaned()
    results = ResultSender(result_pipe)
    where = f"in DataLoader worker process {worker_id}"
    try:
        random.seed(seed)
        arraygrad.manual_seed(seed)
        set_worker_info(WorkerInfo(worker_id, num_workers, seed, dataset))
        init_error: ExceptionWrapper | None = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
        except Exception as exc:  # reported with the first task, as PyTorch does
            init_error = ExceptionWrapper(exc, where)
        stream: Any = None
        stream_epoch = -1
        exhausted = False
        while True:
            task = index_queue.get()
            if task is None:
                return
            epoch, task_id, indices = task
            if init_error is not None:
                results.put((epoch, task_id, init_error))
                init_error = None
                continue
            try:
                if iterable:
                    if epoch != stream_epoch:
                        stream, stream_epoch, exhausted = iter(dataset), epoch, False
                    if exhausted:
                        data: Any = IterableStop(worker_id)
                    else:
                        data, exhausted = _next_from_stream(stream, collate_fn, batch_size,
                                                            drop_last, worker_id)
                elif auto_collation:
                    data = fetch_batch(dataset, indices, collate_fn)
                else:
                    data = collate_fn(dataset[indices])
            except Exception as exc:
                data = ExceptionWrapper(exc, where)
            try:
                results.put((epoch, task_id, data))
            except Exception as exc:  # the batch cannot be pickled: say so instead
                results.put((epoch, task_id, ExceptionWrapper(exc, where)))
            del data
    except KeyboardInterrupt:  # the main process handles Ctrl-C
        pass
    finally:
        sys.stdout.flush()


def _next_from_stream(stream: Any, collate_fn: Callable[[Any], Any], batch_size: int | None,
                      drop_last: bool, worker_id: int) -> tuple[Any, bool]:
    """The next batch of an iterable dataset, and whether the stream is now exhausted."""
    if batch_size is None:
        try:
            return collate_fn(next(stream)), False
        except StopIteration:
            return IterableStop(worker_id), True
    batch = []
    for sample in stream:
        batch.append(sample)
        if len(batch) == batch_size:
            return collate_fn(batch), False
    if batch and not drop_last:
        return collate_fn(batch), True
    return IterableStop(worker_id), True
