"""``DistributedSampler``: PyTorch's shards (unshuffled: the same index lists as
``torch.utils.data.DistributedSampler``; shuffled: PyTorch's padding of arraygrad's
permutation), shards that partition the (padded) dataset every epoch, and the errors."""

import math

import pytest

import arraygrad as ag
from arraygrad.utils.data import DistributedSampler

CASES = [(n, r, drop) for n in (1, 2, 5, 7, 10, 12) for r in (1, 2, 3, 4, 8)
         for drop in (False, True) if not (drop and n < r)]


class Sized:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


@pytest.mark.parametrize("n, replicas, drop_last", CASES)
def test_unshuffled_shards_equal_pytorchs(n, replicas, drop_last):
    tdist = pytest.importorskip("torch.utils.data.distributed")
    for rank in range(replicas):
        ours = DistributedSampler(Sized(n), replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = tdist.DistributedSampler(Sized(n), replicas, rank, shuffle=False,
                                          drop_last=drop_last)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs) and ours.total_size == theirs.total_size


@pytest.mark.parametrize("n, replicas, drop_last", CASES)
def test_shuffled_shards_partition_the_padded_permutation_every_epoch(n, replicas, drop_last):
    samplers = [DistributedSampler(Sized(n), replicas, rank, seed=3, drop_last=drop_last)
                for rank in range(replicas)]
    orders = []
    for epoch in range(3):
        for s in samplers:
            s.set_epoch(epoch)
        shards = [list(s) for s in samplers]
        perm = ag.randperm(n, generator=ag.Generator().manual_seed(3 + epoch)).tolist()
        total = samplers[0].total_size
        padded = (perm * math.ceil(total / n))[:total]  # PyTorch's padding (or cut)
        assert [i for k in range(len(shards[0])) for i in (sh[k] for sh in shards)] == padded
        if drop_last:
            assert len(set(padded)) == total  # disjoint shards
        else:
            assert set(padded) == set(range(n))  # every sample visited
        assert all(len(sh) == samplers[0].num_samples for sh in shards)
        orders.append(shards)
    if math.factorial(n) > 3:
        assert orders[0] != orders[1] or orders[1] != orders[2]  # set_epoch reshuffles
    again = DistributedSampler(Sized(n), replicas, 0, seed=3, drop_last=drop_last)
    again.set_epoch(2)
    assert list(again) == orders[2][0]  # deterministic


def test_errors_and_defaults():
    with pytest.raises(ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"):
        DistributedSampler(Sized(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="Invalid rank -1"):
        DistributedSampler(Sized(4), num_replicas=2, rank=-1)
    with pytest.raises(RuntimeError, match="get_world_size: Default process group"):
        DistributedSampler(Sized(4))  # defaults need init_process_group
    s = DistributedSampler(Sized(4), 2, 1)
    assert (s.shuffle, s.seed, s.drop_last, s.epoch) == (True, 0, False, 0)
