"""One batch of a map-style dataset, as PyTorch's ``_MapDatasetFetcher`` fetches it (the
single-process loader and every worker call ``fetch_batch``).

The samples come from the dataset's ``__getitems__(indices)`` when it has one, else from one
``dataset[i]`` per index, and ``collate_fn`` merges them. A dataset whose batch
``default_collate`` would only stack from rows of its own tensors (``TensorDataset``, and a
``Subset`` of one) answers ``_default_batch(indices)`` with that batch directly, one gather
per tensor: a batch of 64 costs two index calls instead of 128 row selects and two stacks,
with the same values, dtypes and shapes.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from arraygrad.utils.data._collate import default_collate

__all__ = ["fetch_batch"]


def fetch_batch(dataset: Any, indices: Sequence[int], collate_fn: Callable[[Any], Any]) -> Any:
    """``collate_fn`` of the samples of ``dataset`` at ``indices``."""
    if collate_fn is default_collate:
        batch = getattr(dataset, "_default_batch", None)
        if batch is not None:
            out = batch(indices)
            if out is not None:  # None: the dataset's class changed what a sample is
                return out
    getitems = getattr(dataset, "__getitems__", None)
    if callable(getitems):
        return collate_fn(getitems(indices))
    return collate_fn([dataset[i] for i in indices])
