"""``DataLoader(num_workers > 0)``: worker processes with PyTorch's semantics, and the other
datasets/samplers (``ChainDataset``, ``StackDataset``, ``WeightedRandomSampler``) and nested
``default_collate``. Every test that starts workers has a timeout: a hang is a failure."""

import collections
import os
import pickle
import time

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.utils.data import (
    BatchSampler, ChainDataset, ConcatDataset, DataLoader, IterableDataset, StackDataset, Subset,
    TensorDataset, WeightedRandomSampler, default_collate, get_worker_info,
)

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
workers = pytest.mark.timeout(120)


def _pairs(n=10):
    return TensorDataset(ag.arange(2.0 * n).reshape(n, 2), ag.arange(n))


class Shards(IterableDataset):
    """Each worker streams every num_workers-th number, as PyTorch's docs show."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


@workers
@pytest.mark.parametrize("num_workers", [1, 2, 3])
def test_workers_give_the_single_process_batches_in_order(num_workers):
    ds = _pairs(11)
    want = [(x.tolist(), y.tolist()) for x, y in DataLoader(ds, batch_size=3)]
    with pytest.warns(UserWarning) if num_workers > (len(os.sched_getaffinity(0))) else \
            _no_warning():
        loader = DataLoader(ds, batch_size=3, num_workers=num_workers, prefetch_factor=1)
    got = [(x.tolist(), y.tolist()) for x, y in loader]
    assert got == want
    assert len(loader) == 4


class _no_warning:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@workers
def test_shuffled_epochs_cover_the_dataset_and_workers_are_seeded():
    ag.manual_seed(0)
    loader = DataLoader(_pairs(12), batch_size=5, shuffle=True, num_workers=2)
    epoch1 = sum((y.tolist() for _, y in loader), [])
    epoch2 = sum((y.tolist() for _, y in loader), [])
    assert sorted(epoch1) == sorted(epoch2) == list(range(12)) and epoch1 != epoch2

    class Seeds(TensorDataset):
        def __getitem__(self, i):
            info = get_worker_info()
            return ag.tensor([info.id, info.seed, info.num_workers]), ag.rand(1)

    rows = [b for b in DataLoader(Seeds(ag.zeros(8)), batch_size=2, num_workers=2)]
    info = ag.cat([r[0] for r in rows]).tolist()
    seeds = {wid: seed for wid, seed, _ in info}
    assert set(seeds) == {0, 1} and seeds[1] == seeds[0] + 1 and info[0][2] == 2
    draws = ag.cat([r[1] for r in rows]).flatten().tolist()
    assert len(set(draws)) == len(draws)  # workers do not repeat each other's random numbers
    assert get_worker_info() is None


@workers
def test_iterable_dataset_with_workers_interleaves_like_pytorch():
    got = [b.tolist() for b in DataLoader(Shards(11), batch_size=2, num_workers=2)]
    assert got == [[0, 2], [1, 3], [4, 6], [5, 7], [8, 10], [9]]
    dropped = [b.tolist() for b in DataLoader(Shards(11), batch_size=3, num_workers=2,
                                              drop_last=True)]
    assert dropped == [[0, 2, 4], [1, 3, 5], [6, 8, 10]]
    unbatched = list(DataLoader(Shards(5), batch_size=None, num_workers=2))  # ints stay ints
    assert sorted(unbatched) == [0, 1, 2, 3, 4]


@workers
def test_a_worker_exception_is_reraised_naming_the_worker():
    class Bad(TensorDataset):
        def __getitem__(self, i):
            if i == 5:
                raise ValueError("sample 5 is broken")
            return super().__getitem__(i)

    loader = DataLoader(Bad(ag.arange(8.0)), batch_size=2, num_workers=2)
    with pytest.raises(ValueError, match=r"Caught ValueError in DataLoader worker process 0") as e:
        list(loader)
    assert "sample 5 is broken" in str(e.value) and "Traceback" in str(e.value)

    class Missing(TensorDataset):
        def __getitem__(self, i):
            raise KeyError("nope")

    with pytest.raises(KeyError) as e:
        list(DataLoader(Missing(ag.arange(2.0)), num_workers=1))
    assert str(e.value).startswith("Caught KeyError in DataLoader worker process 0.")


@workers
@pytest.mark.timeout(60)  # a hang guard: waiting for the dead worker would never end
def test_a_dead_worker_is_reported_not_waited_for():
    class Dies(TensorDataset):
        def __getitem__(self, i):
            if i == 3:
                os._exit(3)
            return super().__getitem__(i)

    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(DataLoader(Dies(ag.arange(10.0)), batch_size=2, num_workers=2))


@workers
def test_timeout_raises():
    class Slow(TensorDataset):
        def __getitem__(self, i):
            time.sleep(5)
            return super().__getitem__(i)

    # (waiting out the worker's 5 s would return the item instead of raising)
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        next(iter(DataLoader(Slow(ag.arange(4.0)), num_workers=1, timeout=0.5)))


@workers
def test_worker_init_fn_and_its_failure():
    def init(worker_id):
        info = get_worker_info()
        assert info.id == worker_id
        info.dataset.offset = 100 * (worker_id + 1)

    class Offset(TensorDataset):
        offset = 0

        def __getitem__(self, i):
            return self.tensors[0][i] + self.offset

    values = [b.item() for b in DataLoader(Offset(ag.zeros(4)), batch_size=None, num_workers=2,
                                           worker_init_fn=init)]
    assert values == [100.0, 200.0, 100.0, 200.0]

    def broken(worker_id):
        raise OSError("no GPU for worker")

    with pytest.raises(OSError, match="no GPU for worker"):
        list(DataLoader(_pairs(4), num_workers=1, worker_init_fn=broken))


@workers
def test_persistent_workers_survive_epochs_and_an_early_break():
    loader = DataLoader(_pairs(9), batch_size=2, num_workers=2, persistent_workers=True)
    for batch in loader:
        break  # leave the first epoch early: its late results must not leak into the next
    pids = [w.pid for w in loader._iterator._pool.workers]
    for _ in range(2):
        assert [y.tolist() for _, y in loader] == [[0, 1], [2, 3], [4, 5], [6, 7], [8]]
    assert [w.pid for w in loader._iterator._pool.workers] == pids
    stream = DataLoader(Shards(5), batch_size=2, num_workers=2, persistent_workers=True)
    assert [b.tolist() for b in stream] == [b.tolist() for b in stream]


@workers
def test_tensors_requiring_grad_and_nested_structures_cross_processes():
    class Nested(TensorDataset):
        def __getitem__(self, i):
            x = self.tensors[0][i]
            return {"x": x, "pair": (x * 2, i), "name": f"s{i}",
                    "np": np.full(2, float(i))}

    batches = list(DataLoader(Nested(ag.arange(4.0)), batch_size=2, num_workers=2))
    first = batches[0]
    assert first["x"].tolist() == [0.0, 1.0] and first["pair"][1].tolist() == [0, 1]
    assert first["name"] == ["s0", "s1"] and first["np"].shape == (2, 2)
    assert first["np"].dtype == ag.float64


def test_argument_checks_match_pytorch():
    ds = _pairs(4)
    with pytest.raises(ValueError, match="prefetch_factor option could only be specified"):
        DataLoader(ds, prefetch_factor=2)
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        DataLoader(ds, persistent_workers=True)
    with pytest.raises(ValueError, match="multiprocessing_context can only be used"):
        DataLoader(ds, multiprocessing_context="spawn")
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)


def test_plain_pickle_still_refuses_tensors():
    with pytest.raises(TypeError, match="not picklable"):
        pickle.dumps(ag.ones(2))


def test_chain_and_stack_datasets():
    chained = Shards(3) + Shards(2)
    assert isinstance(chained, ChainDataset) and list(chained) == [0, 1, 2, 0, 1]
    with pytest.raises(TypeError):
        len(ChainDataset([Shards(3)]))  # Shards has no __len__
    stacked = StackDataset(_pairs(3), ag.arange(3) * 10)
    assert stacked[2][1].item() == 20 and len(stacked) == 3
    named = StackDataset(a=[1, 2], b=["x", "y"])
    assert named[1] == {"a": 2, "b": "y"}
    with pytest.raises(ValueError, match="Size mismatch"):
        StackDataset([1], [1, 2])
    assert len(ConcatDataset([_pairs(2), _pairs(3)])) == 5
    assert Subset(_pairs(5), [4, 0])[0][1].item() == 4


def test_weighted_random_sampler_frequencies_and_checks():
    g = ag.Generator().manual_seed(3)
    sampler = WeightedRandomSampler([0.1, 0.0, 0.9], 4000, generator=g)
    counts = collections.Counter(sampler)
    assert counts[1] == 0 and 0.86 < counts[2] / 4000 < 0.94 and len(sampler) == 4000
    once = list(WeightedRandomSampler([1.0, 1.0, 1.0], 3, replacement=False))
    assert sorted(once) == [0, 1, 2]
    with pytest.raises(ValueError, match="num_samples should be a positive integer"):
        WeightedRandomSampler([1.0], 0)
    with pytest.raises(ValueError, match="weights should be a 1d sequence"):
        WeightedRandomSampler([[1.0]], 1)
    batches = list(BatchSampler(WeightedRandomSampler([1.0, 2.0], 5), 2, drop_last=True))
    assert [len(b) for b in batches] == [2, 2]


def test_default_collate_nested():
    Point = collections.namedtuple("Point", "x y")
    batch = [{"p": Point(1.0, np.float32(2.0)), "ids": [i, i + 1], "t": ag.ones(2) * i}
             for i in range(3)]
    out = default_collate(batch)
    assert isinstance(out["p"], Point) and out["p"].x.dtype == ag.float64
    assert out["p"].y.dtype == ag.float32 and out["p"].y.tolist() == [2.0] * 3
    assert [t.tolist() for t in out["ids"]] == [[0, 1, 2], [1, 2, 3]]
    assert out["t"].shape == (3, 2)


@needs_torch
@workers
def test_same_batches_as_pytorch_with_workers():
    from torch.utils.data import DataLoader as TorchLoader, IterableDataset as TorchIterable
    from torch.utils.data import get_worker_info as torch_worker_info

    class TorchShards(TorchIterable):
        def __iter__(self):
            info = torch_worker_info()
            return iter(range(info.id, 13, info.num_workers))

    for batch_size, workers_n, drop in ((2, 2, False), (3, 3, True), (4, 2, False)):
        theirs = [b.tolist() for b in TorchLoader(TorchShards(), batch_size=batch_size,
                                                  num_workers=workers_n, drop_last=drop)]
        ours = [b.tolist() for b in DataLoader(Shards(13), batch_size=batch_size,
                                               num_workers=workers_n, drop_last=drop)]
        assert ours == theirs


def test_importing_the_data_package_leaves_multiprocessing_unimported():
    # a loader without workers needs no multiprocessing (8 ms of a short program's import);
    # the worker modules come with the first loader that starts workers
    import subprocess
    import sys

    code = ("import sys; import arraygrad.utils.data as d; "
            "print('multiprocessing' in sys.modules, d.get_worker_info())")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "None"]
