"""``RandomSampler(replacement=True)`` draws lazily, in PyTorch's chunks of 32, so a huge
``num_samples`` costs nothing up front (issue 23, bug 2)."""

import itertools

import pytest

import arraygrad as ag
from arraygrad.utils.data import RandomSampler


def test_huge_num_samples_is_drawn_lazily(monkeypatch):
    import arraygrad.creation as creation

    sizes = []
    real = creation.randint

    def spy(*args, **kwargs):
        sizes.append(args[2] if len(args) > 2 else kwargs["size"])
        return real(*args, **kwargs)

    monkeypatch.setattr(creation, "randint", spy)
    sampler = RandomSampler(range(10), replacement=True, num_samples=10 ** 10)
    assert len(sampler) == 10 ** 10
    first = list(itertools.islice(iter(sampler), 40))
    assert len(first) == 40 and all(0 <= i < 10 for i in first)
    assert max(s[0] for s in sizes) <= 32  # failed before: one draw of 10**10 indices


@pytest.mark.parametrize("n", [1, 31, 32, 33, 100])
def test_replacement_yields_exactly_num_samples(n):
    drawn = list(RandomSampler(range(7), replacement=True, num_samples=n,
                               generator=ag.Generator().manual_seed(0)))
    assert len(drawn) == n and all(0 <= i < 7 for i in drawn)


def test_replacement_is_reproducible_with_a_generator():
    def draw():
        return list(RandomSampler(range(5), replacement=True, num_samples=70,
                                  generator=ag.Generator().manual_seed(3)))
    assert draw() == draw()


def test_replacement_must_be_a_bool():
    with pytest.raises(TypeError, match="replacement should be a boolean value"):
        RandomSampler(range(3), replacement=1)
