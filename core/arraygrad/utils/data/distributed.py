"""``DistributedSampler``: each of ``num_replicas`` processes visits its own shard of a dataset.

PyTorch's algorithm: every replica draws the same permutation (seeded with
``seed + epoch``; call ``set_epoch`` each epoch), pads it by repeating its start
up to a multiple of ``num_replicas`` (or, with ``drop_last``, cuts the tail), and
takes every ``num_replicas``-th index from ``rank``. Unshuffled shards equal
PyTorch's; shuffled ones use arraygrad's generator, whose stream differs from PyTorch's.
"""

from __future__ import annotations

import math
from typing import Any, Iterator, Sized

from arraygrad.utils.data.sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """The indices of rank ``rank``'s shard (defaults: the process group's rank and size)."""

    def __init__(self, dataset: Sized, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            from arraygrad import distributed as dist

            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(
                f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            # the largest even split: every rank the same number of samples
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def _all_indices(self) -> list[int]:
        """The padded (or cut) list every replica shares, before sharding."""
        n = len(self.dataset)
        if self.shuffle:
            from arraygrad.creation import randperm
            from arraygrad.random import Generator

            g = Generator().manual_seed(self.seed + self.epoch)
            indices: list[Any] = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        return indices

    def __iter__(self) -> Iterator[int]:
        indices = self._all_indices()[self.rank:self.total_size:self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Set the epoch: with ``shuffle``, each epoch has its own order (the same on every rank)."""
        self.epoch = epoch
