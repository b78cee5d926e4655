"""Datasets: ``Dataset``, ``IterableDataset``, ``TensorDataset``, ``StackDataset``,
``ConcatDataset``, ``ChainDataset``, ``Subset``, and ``random_split``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

import bisect
import math
import warnings
from itertools import accumulate

from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.random import Generator

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split"]


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``)."""

    def __getitem__(self, index: Any) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: "Dataset") -> "ConcatDataset":
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream of samples: subclasses define ``__iter__``."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset) -> "ChainDataset":  # type: ignore[override]
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Several iterable datasets, one after the other (``a + b`` of iterable datasets)."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)  # type: ignore[arg-type]
        return total


class StackDataset(Dataset):
    """Samples of several datasets of one length, side by side: a tuple (positional datasets)
    or a dict (keyword datasets) per index."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        parts = list(args) or list(kwargs.values())
        if not parts:
            raise ValueError("At least one dataset should be passed")
        self._length = len(parts[0])
        if any(self._length != len(d) for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets: Any = tuple(args) if args else dict(kwargs)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length


class TensorDataset(Dataset):
    """Samples are the ``index``-th rows of each tensor, as a tuple."""

    def __init__(self, *tensors: Tensor) -> None:
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        n = tensors[0].size(0)
        if any(t.size(0) != n for t in tensors):
            raise ValueError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        # Tensor's indexing is installed at import by tensor_methods, which mypy cannot see yet
        return tuple(t[index] for t in self.tensors)

    def _default_batch(self, indices: Sequence[int]) -> list[Tensor] | None:
        """What ``default_collate`` makes of the samples at ``indices`` (a list of one batched
        tensor per field), gathered in one index call per tensor; None when a subclass
        redefines the samples (``__getitem__`` or ``__getitems__``), whose own path runs."""
        cls = type(self)
        if cls.__getitem__ is not TensorDataset.__getitem__ or hasattr(cls, "__getitems__"):
            return None
        from arraygrad.creation import tensor
        from arraygrad import dtypes

        rows = list(indices)
        by_device: dict[Any, Tensor] = {}  # one index tensor per device the tensors are on
        out = []
        for t in self.tensors:
            index = by_device.get(t.device)
            if index is None:
                index = by_device[t.device] = tensor(rows, dtype=dtypes.int64, device=t.device)
            out.append(t[index])
        return out

    def __len__(self) -> int:
        return self.tensors[0].size(0)


class ConcatDataset(Dataset):
    """Several map-style datasets one after another."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        # map-style datasets define __len__ by convention; Dataset itself does not (as in torch)
        sizes = (len(d) for d in self.datasets)  # type: ignore[arg-type]
        self.cumulative_sizes = list(accumulate(sizes))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> Any:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: int | list[int]) -> Any:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def _default_batch(self, indices: Sequence[int]) -> Any:
        """The underlying dataset's ``_default_batch`` at the mapped indices (None when it
        has none or a subclass redefines ``__getitem__`` or ``__getitems__``)."""
        inner = getattr(self.dataset, "_default_batch", None)
        cls = type(self)
        if inner is None or cls.__getitem__ is not Subset.__getitem__ or hasattr(
                cls, "__getitems__"):
            return None
        return inner([self.indices[i] for i in indices])

    def __len__(self) -> int:
        return len(self.indices)


def _split_lengths(n: int, lengths: Sequence[int | float]) -> list[int]:
    """``lengths`` as integers: fractions summing to 1 become counts, the remainder spread
    one at a time from the first subset (PyTorch's rule)."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(int(math.floor(n * frac)))
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, c in enumerate(counts):
            if c == 0:
                warnings.warn(f"Length of split at index {i} is 0. This might result in an "
                              "empty dataset.", stacklevel=3)
        return counts
    return [int(x) for x in lengths]


def random_split(dataset: Dataset, lengths: Sequence[int | float],
                 generator: Generator | None = None) -> list[Subset]:
    """Split into non-overlapping random subsets of the given lengths (or fractions)."""
    from arraygrad.creation import randperm
    from arraygrad.random import default_generator

    # map-style datasets define __len__ by convention; Dataset itself does not (as in torch)
    n = len(dataset)  # type: ignore[arg-type]
    lengths = _split_lengths(n, lengths)
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    gen = generator if generator is not None else default_generator
    indices = randperm(sum(lengths), generator=gen).tolist()
    out = []
    for offset, length in zip(accumulate(lengths), lengths):
        out.append(Subset(dataset, indices[offset - length:offset]))
    return out
