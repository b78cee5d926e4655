"""``arraygrad.utils.data``: datasets, samplers, ``DataLoader`` and ``random_split``, as in PyTorch.

>>> ds = TensorDataset(arraygrad.randn(10, 3), arraygrad.arange(10))
>>> for x, y in DataLoader(ds, batch_size=4, shuffle=True, generator=arraygrad.Generator().manual_seed(0)):
...     pass
"""

from arraygrad.utils.data._collate import default_collate, default_convert
from arraygrad.utils.data._worker_info import WorkerInfo, get_worker_info
from arraygrad.utils.data.dataloader import DataLoader
from arraygrad.utils.data.distributed import DistributedSampler
from arraygrad.utils.data.dataset import (
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset,
    random_split,
)
from arraygrad.utils.data.sampler import (
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset", "ChainDataset",
    "Subset", "random_split", "WeightedRandomSampler",
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler",
    "DistributedSampler",
    "DataLoader", "default_collate", "default_convert", "get_worker_info", "WorkerInfo",
]
