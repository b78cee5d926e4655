"""The main-process side of ``DataLoader(num_workers > 0)``: worker processes, task dispatch,
in-order delivery, failure detection and shutdown.

Each worker has an index queue and a result pipe of its own (``_channel``). Up to
``prefetch_factor`` tasks per worker are outstanding; results that arrive early wait in
``_pending`` so batches come back in sampler order. The main process waits on the result pipes
and the worker processes together, so a worker that died (killed, segfault, even halfway
through sending a batch) is reported at once instead of hanging, and ``timeout`` is honoured.
Every task is
tagged with the epoch that sent it: persistent workers carry over to the next epoch, and a stale
result (an epoch left early) is dropped.
"""

from __future__ import annotations

import itertools
import multiprocessing
import queue
import time
import weakref
from typing import TYPE_CHECKING, Any, Iterator

from arraygrad.utils.data._channel import ResultReader, WorkerExited
from arraygrad.utils.data._worker import ExceptionWrapper, IterableStop, worker_loop

if TYPE_CHECKING:
    from arraygrad.utils.data.dataloader import DataLoader

__all__ = ["MultiProcessIterator"]

_JOIN_S = 1.0  # then terminate: a worker stuck in user code must not delay an error


class _Pool:
    """The worker processes and their queues (kept across epochs by ``persistent_workers``)."""

    def __init__(self, loader: DataLoader, base_seed: int) -> None:
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = multiprocessing.get_context()
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        self.results = ResultReader()
        self.index_queues = []
        self.workers = []
        for worker_id in range(loader.num_workers):
            index_queue = ctx.Queue()
            index_queue.cancel_join_thread()
            reader, writer = ctx.Pipe(duplex=False)
            worker = ctx.Process(
                target=worker_loop, daemon=True, name=f"DataLoader worker {worker_id}",
                args=(loader.dataset, loader._iterable, index_queue, writer,
                      loader.collate_fn, loader._auto_collation, loader.batch_size,
                      loader.drop_last, base_seed + worker_id, loader.worker_init_fn,
                      worker_id, loader.num_workers))
            worker.start()
            writer.close()  # the worker has its own copy; this one would only hide its death
            self.results.add(reader, worker)
            self.index_queues.append(index_queue)
            self.workers.append(worker)
        self._finalizer = weakref.finalize(self, _shutdown, self.workers, self.index_queues,
                                           self.results)

    def shutdown(self) -> None:
        """Stop the workers (politely, then by force) and close the queues."""
        self._finalizer()


def _shutdown(workers: list[Any], index_queues: list[Any], results: ResultReader) -> None:
    for q in index_queues:
        try:
            q.put(None)
        except (OSError, ValueError):
            pass
    deadline = time.monotonic() + _JOIN_S
    for w in workers:
        w.join(timeout=max(0.0, deadline - time.monotonic()))
    for w in workers:
        if w.is_alive():
            w.terminate()
            w.join(timeout=1.0)
    for q in index_queues:
        q.cancel_join_thread()
        q.close()
    results.close()


class MultiProcessIterator:
    """Batches of one epoch, loaded by worker processes, in sampler order."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._pool: _Pool | None = None
        self._epoch = -1
        self._reset()

    def _reset(self) -> None:
        """Start an epoch (starting the workers, unless persistent ones are alive)."""
        loader = self._loader
        if self._pool is None:
            base_seed = loader._base_seed()
            self._pool = _Pool(loader, base_seed)
        self._epoch += 1
        self._send_idx = 0
        self._rcvd_idx = 0
        self._owner: dict[int, int] = {}      # task id -> worker that has it (undelivered)
        self._pending: dict[int, Any] = {}    # results that came before their turn
        self._active = [True] * loader.num_workers
        self._next_worker = itertools.cycle(range(loader.num_workers))
        if loader._iterable:
            self._tasks: Iterator[Any] = itertools.repeat(None)
        elif loader._auto_collation:
            self._tasks = iter(loader.batch_sampler)
        else:
            self._tasks = iter(loader.sampler)
        self._finished = False
        self._held: Any = None  # a task no worker had room for (``in_order=False``)
        for _ in range((loader.prefetch_factor or 2) * loader.num_workers):
            self._dispatch()

    def __iter__(self) -> MultiProcessIterator:
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def _dispatch(self) -> None:
        """Send the next task to the next worker still serving, if there is one."""
        if not any(self._active):
            return
        if self._held is not None:
            indices, self._held = self._held, None
        else:
            try:
                indices = next(self._tasks)
            except StopIteration:
                return
        loader = self._loader
        capacity = ((loader.prefetch_factor or 2) * loader.num_workers) // sum(self._active)
        for _ in range(len(self._active)):
            worker_id = next(self._next_worker)
            if self._active[worker_id] and (
                    loader.in_order or sum(w == worker_id for w in self._owner.values()) < capacity):
                break
        else:  # out of order, and every worker is busy: the next delivery sends it
            self._held = indices
            return
        assert self._pool is not None
        self._pool.index_queues[worker_id].put((self._epoch, self._send_idx, indices))
        self._owner[self._send_idx] = worker_id
        self._send_idx += 1

    def __next__(self) -> Any:
        # Every task gets a reply (a batch, an error, or a worker's IterableStop), in any order;
        # replies wait in _pending for their turn.
        if not self._loader.in_order:
            return self._next_arrived()
        while True:
            if self._rcvd_idx >= self._send_idx:
                self._end_epoch()
                raise StopIteration
            if self._rcvd_idx not in self._pending:
                task_id, data = self._receive()
                if isinstance(data, IterableStop):
                    self._active[data.worker_id] = False
                self._pending[task_id] = data
                continue
            data = self._pending.pop(self._rcvd_idx)
            del self._owner[self._rcvd_idx]
            self._rcvd_idx += 1
            self._dispatch()
            if not isinstance(data, IterableStop):
                return self._deliver(data)

    def _next_arrived(self) -> Any:
        """``in_order=False``: the next batch any worker finishes."""
        while True:
            if not self._owner and self._held is None:
                self._end_epoch()
                raise StopIteration
            task_id, data = self._receive()
            del self._owner[task_id]
            if isinstance(data, IterableStop):
                self._active[data.worker_id] = False
            self._dispatch()
            if not isinstance(data, IterableStop):
                return self._deliver(data)

    def _deliver(self, data: Any) -> Any:
        if isinstance(data, ExceptionWrapper):
            self._shutdown()
            data.reraise()
        return data  # pin_memory: page-locked memory means nothing here (docs/differences.md)

    def _receive(self) -> tuple[int, Any]:
        """The next result of this epoch; a dead worker or the ``timeout`` raises."""
        assert self._pool is not None
        timeout = self._loader.timeout
        deadline = time.monotonic() + timeout if timeout else None
        while True:
            try:
                epoch, task_id, data = self._pool.results.get(deadline)
            except queue.Empty:
                self._shutdown()
                raise RuntimeError(f"DataLoader timed out after {timeout} seconds") from None
            except WorkerExited as exc:
                self._shutdown()
                pids = ", ".join(str(pid) for pid in exc.pids)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited "
                                   "unexpectedly") from None
            except BaseException:
                self._shutdown()
                raise
            if epoch == self._epoch:
                return task_id, data

    def _end_epoch(self) -> None:
        self._finished = True
        if not self._loader.persistent_workers:
            self._shutdown()

    def _shutdown(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __del__(self) -> None:
        self._shutdown()

