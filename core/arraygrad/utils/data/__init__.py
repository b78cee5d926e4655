"""``arraygrad.utils.data``: datasets, samplers, ``DataLoader`` and ``random_split``, as in PyTorch.

>>> ds = TensorDataset(arraygrad.randn(10, 3), arraygrad.arange(10))
>>> for x, y in DataLoader(ds, batch_size=4, shuffle=True, generator=arraygrad.Generator().manual_seed(0)):
...     pass
"""

from arraygrad.utils.data._collate import default_collate, default_convert
from arraygrad.utils.data.dataloader import DataLoader
from arraygrad.utils.data.dataset import (
    ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split,
)
from arraygrad.utils.data.sampler import (
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
)

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "Subset", "random_split",
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler",
    "DataLoader", "default_collate", "default_convert",
]
