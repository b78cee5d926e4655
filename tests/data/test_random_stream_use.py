"""DataLoaders and samplers consume the default random stream as PyTorch's do: one int64
seed drawn per iterator (workers or not), one per pass of a RandomSampler without a generator,
indices with replacement drawn lazily 32 at a time, and none by SubsetRandomSampler (which
draws its permutation from the default generator itself). A program interleaving data loading
with other draws then draws the same numbers as its PyTorch original would on one stream."""

from __future__ import annotations

import itertools

import arraygrad as ag
from arraygrad.utils.data import (DataLoader, RandomSampler, SubsetRandomSampler,
                                  TensorDataset)


def _seed_draw(generator=None):
    return int(ag.empty((), dtype=ag.int64).random_(generator=generator).item())


def test_iterating_a_dataloader_draws_one_seed():
    ag.manual_seed(0)
    list(DataLoader(TensorDataset(ag.arange(6.0)), batch_size=2))
    after_loader = ag.rand(3)
    ag.manual_seed(0)
    _seed_draw()
    assert ag.equal(after_loader, ag.rand(3))


def test_the_seed_is_drawn_when_the_iterator_is_made():
    loader = DataLoader(TensorDataset(ag.arange(6.0)), batch_size=2)
    ag.manual_seed(0)
    iter(loader)
    ag.manual_seed(0)
    wanted = (_seed_draw(), ag.rand(2))
    ag.manual_seed(0)
    iter(loader)
    assert ag.equal(ag.rand(2), wanted[1])


def test_a_random_sampler_seeds_a_fresh_generator_from_one_draw():
    ag.manual_seed(3)
    got = list(RandomSampler(range(7)))
    ag.manual_seed(3)
    g = ag.Generator().manual_seed(_seed_draw())
    assert got == ag.randperm(7, generator=g).tolist()


def test_a_shuffling_loader_draws_the_base_seed_then_the_samplers():
    ag.manual_seed(1)
    order = [int(b[0]) for (b,) in DataLoader(TensorDataset(ag.arange(5)), shuffle=True)]
    ag.manual_seed(1)
    _seed_draw()  # the iterator's base seed comes first
    g = ag.Generator().manual_seed(_seed_draw())
    assert order == ag.randperm(5, generator=g).tolist()


def test_replacement_draws_lazily_in_chunks_of_32():
    sampler = RandomSampler(range(10), replacement=True, num_samples=10 ** 10)
    first = list(itertools.islice(iter(sampler), 40))  # 10**10 indices are never made at once
    assert len(first) == 40 and all(0 <= i < 10 for i in first)
    ag.manual_seed(5)
    got = list(RandomSampler(range(10), replacement=True, num_samples=70))
    ag.manual_seed(5)
    g = ag.Generator().manual_seed(_seed_draw())
    want = []
    for size in (32, 32, 6):
        want += ag.randint(0, 10, (size,), generator=g).tolist()
    assert got == want


def test_subset_random_sampler_draws_from_the_default_generator():
    ag.manual_seed(2)
    got = list(SubsetRandomSampler([10, 11, 12, 13]))
    ag.manual_seed(2)
    assert got == [[10, 11, 12, 13][i] for i in ag.randperm(4).tolist()]
