"""Samplers: the order in which a ``DataLoader`` visits dataset indices."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence, Sized

if TYPE_CHECKING:
    from arraygrad.random import Generator

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "BatchSampler", "WeightedRandomSampler"]


class Sampler:
    """Base class: an iterable of indices (or of index lists, for batch samplers)."""

    def __init__(self, data_source: Sized | None = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


def draw_seed(generator: Generator | None = None) -> int:
    """A seed drawn as PyTorch draws one: ``empty((), dtype=int64).random_(generator=...)``
    (one int64 draw from ``generator`` or the default generator), so a DataLoader consumes
    the random stream as PyTorch's does."""
    from arraygrad import dtypes
    from arraygrad.creation import empty

    return int(empty((), dtype=dtypes.int64).random_(generator=generator).item())


def _generator(generator: Generator | None) -> Generator:
    """``generator``, or a fresh one seeded from the default generator (so ``manual_seed``
    makes shuffling reproducible, as in PyTorch)."""
    if generator is not None:
        return generator
    from arraygrad.random import Generator as _Generator

    return _Generator().manual_seed(draw_seed())


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


_CHUNK = 32  # how many indices RandomSampler(replacement=True) draws at a time (PyTorch's)


class RandomSampler(Sampler):
    """A random permutation (or, with ``replacement``, ``num_samples`` uniform draws)."""

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator: Generator | None = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        """How many indices one pass yields."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        from arraygrad.creation import randint, randperm

        n = len(self.data_source)
        gen = _generator(self.generator)
        if self.replacement:
            # drawn lazily, in PyTorch's chunks: num_samples may be far more than fit in memory
            for _ in range(self.num_samples // _CHUNK):
                yield from randint(0, n, (_CHUNK,), generator=gen).tolist()
            yield from randint(0, n, (self.num_samples % _CHUNK,), generator=gen).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from randperm(n, generator=gen).tolist()
        yield from randperm(n, generator=gen).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in random order."""

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        from arraygrad.creation import randperm

        # the default generator itself when none is given (PyTorch draws no seed here)
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of ``batch_size``."""

    def __init__(self, sampler: Sampler | Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        # samplers define __len__ by convention; Sampler itself does not (as in torch)
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with
    ``replacement`` by default), as ``torch.utils.data.WeightedRandomSampler``."""

    def __init__(self, weights: Sequence[float] | Any, num_samples: int,
                 replacement: bool = True, generator: Generator | None = None) -> None:
        from arraygrad.creation import as_tensor
        from arraygrad import dtypes

        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=dtypes.float64)
        if weights_tensor.ndim != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        from arraygrad.ops.families.random_ops import multinomial

        drawn = multinomial(self.weights, self.num_samples, self.replacement,
                            generator=self.generator)
        yield from drawn.tolist()

    def __len__(self) -> int:
        return self.num_samples
