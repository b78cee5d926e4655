"""DataLoader's batched fetch (``utils.data._fetch``): a dataset's ``__getitems__`` serves a
batch, as in PyTorch's ``_MapDatasetFetcher``; a ``TensorDataset`` (or a ``Subset`` of one)
under ``default_collate`` is gathered with one index call per tensor, giving the batches the
per-sample path gives (values, dtypes, shapes, types), in one process and in workers."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.tensor import Tensor
from arraygrad.utils.data import DataLoader, Dataset, Subset, TensorDataset, default_collate


def _tensors(n=23):
    x = ag.arange(n * 6, dtype=ag.float32).reshape(n, 2, 3)
    y = ag.arange(n) % 5
    return x, y


def _per_sample(ds, batch_size, **kw):
    """The batches of the per-sample path: each row fetched alone, then collated."""
    return list(DataLoader(ds, batch_size=batch_size,
                           collate_fn=lambda rows: default_collate(rows), **kw))


def _same(a, b):
    assert type(a) is type(b) and len(a) == len(b)
    for fa, fb in zip(a, b):
        assert type(fa) is type(fb) and fa.dtype is fb.dtype and fa.shape == fb.shape
        np.testing.assert_array_equal(fa.numpy(), fb.numpy())


@settings(max_examples=25, deadline=None)
@given(batch_size=st.integers(1, 9), drop_last=st.booleans(), seed=st.integers(0, 2**31 - 1))
def test_tensor_dataset_batches_are_the_per_sample_batches(batch_size, drop_last, seed):
    ds = TensorDataset(*_tensors())
    kw = dict(shuffle=True, drop_last=drop_last)
    fast = list(DataLoader(ds, batch_size=batch_size, generator=ag.Generator().manual_seed(seed),
                           **kw))
    slow = _per_sample(ds, batch_size, generator=ag.Generator().manual_seed(seed), **kw)
    assert len(fast) == len(slow)
    for a, b in zip(fast, slow):
        _same(a, b)


def test_a_tensor_dataset_batch_is_one_index_call_per_tensor(monkeypatch):
    # before the batched fetch, a batch of 8 made 16 row selects (one per sample and tensor)
    calls = []
    original = Tensor.__getitem__

    def counting(self, index):
        calls.append(index)
        return original(self, index)
    monkeypatch.setattr(Tensor, "__getitem__", counting)
    batches = list(DataLoader(TensorDataset(*_tensors(16)), batch_size=8))
    assert len(batches) == 2 and len(calls) == 4


def test_a_subset_of_a_tensor_dataset_is_gathered_at_its_indices():
    x, y = _tensors()
    sub = Subset(TensorDataset(x, y), [5, 0, 17, 3, 3, 22])
    got = list(DataLoader(sub, batch_size=4))
    assert [b[1].tolist() for b in got] == [[0, 0, 2, 3], [3, 2]]
    for a, b in zip(got, _per_sample(sub, 4)):
        _same(a, b)


class _Rows(TensorDataset):
    """A subclass that redefines a sample: the loader must call it per index."""

    def __getitem__(self, index):
        x, y = super().__getitem__(index)
        return x * 2, y


def test_a_subclass_redefining_samples_keeps_its_own_samples():
    x, y = _tensors(6)
    (bx, by), = list(DataLoader(_Rows(x, y), batch_size=6))
    np.testing.assert_array_equal(bx.numpy(), x.numpy() * 2)


class _Batched(Dataset):
    """A dataset with ``__getitems__``: the loader asks it for whole batches."""

    def __init__(self):
        self.asked = []

    def __len__(self):
        return 10

    def __getitem__(self, i):
        raise AssertionError("the batched fetch asks __getitems__")

    def __getitems__(self, indices):
        self.asked.append(list(indices))
        return [float(i) for i in indices]


def test_getitems_serves_the_batches_as_in_pytorch():
    torch = pytest.importorskip("torch")

    class TorchBatched(torch.utils.data.Dataset):
        __len__, __getitem__, __getitems__ = (_Batched.__len__, _Batched.__getitem__,
                                              _Batched.__getitems__)

        def __init__(self):
            self.asked = []

    ours, theirs = _Batched(), TorchBatched()
    got = [b.tolist() for b in DataLoader(ours, batch_size=4)]
    want = [b.tolist() for b in torch.utils.data.DataLoader(theirs, batch_size=4)]
    assert got == want and ours.asked == theirs.asked == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_workers_fetch_batches_the_same_way():
    ds = TensorDataset(*_tensors(12))
    got = list(DataLoader(ds, batch_size=5, num_workers=1, timeout=60))
    for a, b in zip(got, _per_sample(ds, 5)):
        _same(a, b)
    batched = _Batched()
    got = [b.tolist() for b in DataLoader(batched, batch_size=4, num_workers=1, timeout=60)]
    assert got == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0]]
