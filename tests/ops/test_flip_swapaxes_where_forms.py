"""PyTorch's other spellings: ``flip(dims=...)``, ``swapaxes(axis0=, axis1=)`` and one-argument
``where(condition)`` (issue 12: each was a TypeError here)."""

import pytest

import arraygrad as ag


def test_flip_takes_dims_by_keyword():
    x = ag.arange(6.0).reshape(2, 3)
    assert ag.flip(x, dims=(0,)).tolist() == [[3.0, 4.0, 5.0], [0.0, 1.0, 2.0]]
    assert x.flip(dims=[1]).tolist() == x.flip(1).tolist()
    with pytest.raises(TypeError):
        ag.flip(x, 0, dims=(1,))


def test_swapaxes_takes_numpys_argument_names():
    x = ag.ones(2, 3, 4)
    assert tuple(ag.swapaxes(x, axis0=0, axis1=2).shape) == (4, 3, 2)
    assert tuple(x.swapaxes(axis0=1, axis1=2).shape) == (2, 4, 3)


def test_where_with_the_condition_alone_gives_the_indices():
    (idx,) = ag.where(ag.tensor([True, False, True]))
    assert idx.tolist() == [0, 2]
    rows, cols = ag.where(ag.tensor([[False, True], [True, True]]))
    assert (rows.tolist(), cols.tolist()) == ([0, 1, 1], [1, 0, 1])
    with pytest.raises(TypeError):
        ag.where(ag.tensor([True]), ag.ones(1))
