"""``DataLoader``: batches of samples from a dataset, in order or shuffled, loaded in the
calling process or (``num_workers > 0``) by worker processes (``_multi``, ``_worker``)."""

from __future__ import annotations

import os
import warnings
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from arraygrad.utils.data._collate import default_collate, default_convert
from arraygrad.utils.data._fetch import fetch_batch
from arraygrad.utils.data.dataset import IterableDataset
from arraygrad.utils.data.sampler import BatchSampler, RandomSampler, SequentialSampler

if TYPE_CHECKING:
    from arraygrad.random import Generator
    from arraygrad.utils.data.dataset import Dataset
    from arraygrad.utils.data.sampler import Sampler

__all__ = ["DataLoader"]


class DataLoader:
    """Iterate over ``dataset`` in batches of ``batch_size``, as ``torch.utils.data.DataLoader``.

    ``shuffle=True`` draws a new permutation each epoch from ``generator``
    (or from the default generator, so ``arraygrad.manual_seed`` makes it
    reproducible); ``drop_last`` drops a final short batch; ``collate_fn``
    merges a list of samples (``default_collate`` by default). ``in_order=False``
    (with ``num_workers > 0``) yields each batch as soon as a worker has it, not in
    sampler order, and gives the next task to a worker with room for it.
    """

    # Duck-typed, as in PyTorch: a map-style dataset (__getitem__, __len__) or an iterable one,
    # and samplers that are iterables of indices (or of index lists) with __len__.
    dataset: Any
    sampler: Any
    batch_sampler: Any

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | Iterable[Any] | None = None,
                 batch_sampler: Sampler | Iterable[list[Any]] | None = None,
                 num_workers: int = 0, collate_fn: Callable[[Any], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context: Any = None, generator: Generator | None = None, *,
                 prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError("multiprocessing_context can only be used with multi-process "
                             "loading (num_workers > 0), but got num_workers=0")
        if num_workers > 0:
            _warn_if_too_many_workers(num_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.generator = generator
        self.prefetch_factor = prefetch_factor
        self.persistent_workers = persistent_workers
        self.in_order = in_order
        self.multiprocessing_context = multiprocessing_context
        self._iterator: Any = None
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (None, False):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None or batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 "and batch_sampler options")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None and not self._iterable:
            sampler = (RandomSampler(self.dataset, generator=generator) if shuffle
                       else SequentialSampler(self.dataset))
        self.sampler = sampler
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(self.sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.batch_sampler = batch_sampler
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation or (
                self._iterable and batch_size is not None) else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    def __iter__(self) -> Iterator[Any]:
        if self.num_workers > 0:
            from arraygrad.utils.data._multi import MultiProcessIterator

            if self.persistent_workers and self._iterator is not None:
                self._iterator._reset()  # same workers, next epoch
                return self._iterator
            iterator = MultiProcessIterator(self)
            if self.persistent_workers:
                self._iterator = iterator
            return iterator
        self._base_seed()  # PyTorch draws it for every iterator, workers or not
        return self._single_process()

    def _base_seed(self) -> int:
        """The workers' base seed, drawn from ``generator`` (or the default generator) when an
        iterator starts, as PyTorch's: iterating consumes the random stream as PyTorch's does."""
        from arraygrad.utils.data.sampler import draw_seed

        return draw_seed(self.generator)

    def _single_process(self) -> Iterator[Any]:
        if self._iterable:
            yield from self._iter_stream()
            return
        if self._auto_collation:
            for indices in self.batch_sampler:
                yield fetch_batch(self.dataset, indices, self.collate_fn)
        else:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])

    def _iter_stream(self) -> Iterator[Any]:
        if self.batch_size is None:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        if self._auto_collation:
            return len(self.batch_sampler)
        return len(self.sampler)


def _warn_if_too_many_workers(num_workers: int) -> None:
    """PyTorch's warning when more workers are asked for than this process may use cores."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    if num_workers > cores:
        warnings.warn(
            f"This DataLoader will create {num_workers} worker processes in total. Our suggested "
            f"max number of worker in current system is {cores}, which is smaller than what this "
            "DataLoader is going to create. Please be aware that excessive worker creation might "
            "get DataLoader running slow or even freeze, lower the worker number to avoid "
            "potential slowness/freeze if necessary.", UserWarning, stacklevel=3)
