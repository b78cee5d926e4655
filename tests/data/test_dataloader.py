"""utils.data: DataLoader batching, seeded shuffling, drop_last, collation of nested samples,
random_split, Subset and the samplers."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.utils.data import (
    BatchSampler, ConcatDataset, DataLoader, Dataset, IterableDataset, RandomSampler,
    SequentialSampler, Subset, TensorDataset, default_collate, random_split,
)


def _ds(n=10):
    return TensorDataset(ag.arange(n * 2, dtype=ag.float32).reshape(n, 2), ag.arange(n))


def test_utils_is_reachable_lazily():
    assert ag.utils.data.DataLoader is DataLoader


def test_tensor_dataset_and_errors():
    ds = _ds()
    assert len(ds) == 10
    x, y = ds[3]
    assert x.tolist() == [6.0, 7.0] and y.item() == 3
    with pytest.raises(ValueError, match="Size mismatch between tensors"):
        TensorDataset(ag.zeros(3), ag.zeros(4))
    with pytest.raises(NotImplementedError):
        Dataset()[0]


def test_batching_in_order_with_short_last_batch():
    batches = list(DataLoader(_ds(), batch_size=4))
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert tuple(batches[0][0].shape) == (4, 2) and batches[0][0].dtype is ag.float32
    assert len(DataLoader(_ds(), batch_size=4)) == 3


def test_drop_last():
    loader = DataLoader(_ds(), batch_size=4, drop_last=True)
    assert [b[1].tolist() for b in loader] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert len(loader) == 2


def test_shuffle_is_reproducible_with_a_seeded_generator():
    def epoch(seed):
        loader = DataLoader(_ds(), batch_size=3, shuffle=True,
                            generator=ag.Generator().manual_seed(seed))
        return [i for _, y in loader for i in y.tolist()]

    a, b, c = epoch(0), epoch(0), epoch(1)
    assert a == b and a != c
    assert sorted(a) == list(range(10)) and a != list(range(10))
    # consecutive epochs of one loader differ (the generator advances)
    loader = DataLoader(_ds(), batch_size=10, shuffle=True, generator=ag.Generator().manual_seed(0))
    first, second = [next(iter(loader))[1].tolist() for _ in range(2)]
    assert first != second


def test_shuffle_follows_manual_seed_without_generator():
    def epoch():
        ag.manual_seed(123)
        return [i for _, y in DataLoader(_ds(), batch_size=5, shuffle=True) for i in y.tolist()]

    assert epoch() == epoch()


def test_collate_dicts_tuples_lists_numbers_strings():
    Point = namedtuple("Point", "x y")
    batch = [{"img": ag.ones(2), "label": i, "score": 0.5 * i, "name": f"s{i}",
              "pair": (i, ag.tensor([i, i])), "flag": i % 2 == 0, "pt": Point(i, 1.0),
              "arr": np.full(3, i, dtype=np.float32)} for i in range(3)]
    out = default_collate(batch)
    assert tuple(out["img"].shape) == (3, 2)
    assert out["label"].dtype is ag.int64 and out["label"].tolist() == [0, 1, 2]
    assert out["score"].dtype is ag.float64
    assert out["name"] == ["s0", "s1", "s2"]
    assert isinstance(out["pair"], list) and out["pair"][0].tolist() == [0, 1, 2]
    assert tuple(out["pair"][1].shape) == (3, 2)
    assert out["flag"].dtype is ag.bool and out["flag"].tolist() == [True, False, True]
    assert isinstance(out["pt"], Point) and out["pt"].y.tolist() == [1.0] * 3
    assert out["arr"].dtype is ag.float32 and tuple(out["arr"].shape) == (3, 3)
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate([[1, 2], [1]])
    with pytest.raises(TypeError, match="default_collate: batch must contain"):
        default_collate([object()])


def test_loader_of_dict_dataset_and_custom_collate():
    class Dicts(Dataset):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return {"x": ag.full((2,), float(i)), "y": i}

    batches = list(DataLoader(Dicts(), batch_size=2))
    assert [b["y"].tolist() for b in batches] == [[0, 1], [2, 3], [4]]
    assert list(DataLoader(Dicts(), batch_size=2, collate_fn=len)) == [2, 2, 1]
    single = list(DataLoader(Dicts(), batch_size=None))
    assert single[4]["y"] == 4


def test_iterable_dataset():
    class Stream(IterableDataset):
        def __iter__(self):
            return iter(range(7))

    assert [b.tolist() for b in DataLoader(Stream(), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    with pytest.raises(ValueError, match="shuffle"):
        DataLoader(Stream(), shuffle=True)


def test_loader_argument_errors():
    ds = _ds()
    with pytest.raises(ValueError, match="mutually exclusive with shuffle"):
        DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(ds, batch_size=2, batch_sampler=BatchSampler(SequentialSampler(ds), 2, False))
    with pytest.raises(ValueError, match="batch_size=None"):
        DataLoader(ds, batch_size=None, drop_last=True)


def test_random_split_sizes_disjoint_and_reproducible():
    ds = _ds(10)
    parts = random_split(ds, [3, 7], generator=ag.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [3, 7]
    idx = [set(p.indices) for p in parts]
    assert idx[0].isdisjoint(idx[1]) and idx[0] | idx[1] == set(range(10))
    again = random_split(ds, [3, 7], generator=ag.Generator().manual_seed(0))
    assert [p.indices for p in again] == [p.indices for p in parts]
    assert parts[0][0][1].item() == parts[0].indices[0]


def test_random_split_fractions_spread_the_remainder():
    parts = random_split(range(11), [0.5, 0.3, 0.2], generator=ag.Generator().manual_seed(1))
    # floor(5.5, 3.3, 2.2) = (5, 3, 2), the one left over goes to the first split
    assert [len(p) for p in parts] == [6, 3, 2]
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(range(5), [2, 2])


def test_subset_concat_and_samplers():
    ds = _ds()
    sub = Subset(ds, [9, 0, 4])
    assert len(sub) == 3 and sub[0][1].item() == 9
    cat = ConcatDataset([sub, sub])
    assert len(cat) == 6 and cat[4][1].item() == 0 and cat[-1][1].item() == 4
    gen = ag.Generator().manual_seed(5)
    perm = list(RandomSampler(range(6), generator=gen))
    assert sorted(perm) == list(range(6))
    draws = list(RandomSampler(range(3), replacement=True, num_samples=20, generator=gen))
    assert len(draws) == 20 and set(draws) <= {0, 1, 2}
    assert list(BatchSampler(range(5), 2, drop_last=False)) == [[0, 1], [2, 3], [4]]
    assert len(BatchSampler(range(5), 2, drop_last=True)) == 2
