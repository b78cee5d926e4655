"""Index keys that are lists, read as PyTorch 2.13 reads them, and writes through a repeated index.

A list holding a sequence, a slice, ``...``, ``None`` or a tensor is a tuple of per-dimension
indices (NumPy's old rule, which PyTorch keeps with a deprecation warning); a list of integers is
one index tensor. ``t[idx] = v`` with a position repeated in ``idx`` keeps the last write, as
sequential assignment does (it used to add the values up).
"""

import warnings

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

KEYS = [
    [[0, 1], [1, 2]], [[0, 1]], [[0, 1], [2]], [[[0, 1]], [[1, 2]]], [0, [1, 2]], [[0], [1, 2]],
    [slice(None), [0, 1]], [range(2), [1, 2]], [None, 0], [Ellipsis, 1], [True, 0],
    [[True, False, True]], [0, 1], [2, 0, 2],
]


def _grid():
    return ag.arange(12.).reshape(3, 4)


def test_list_of_lists_is_a_tuple_of_indices():
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        got = _grid()[[[0, 1], [1, 2]]]
    assert got.tolist() == [1.0, 6.0]  # x[[0, 1], [1, 2]], not rows 0,1 / 1,2
    with pytest.warns(UserWarning):
        assert _grid()[[slice(None), [0, 3]]].tolist() == [[0., 3.], [4., 7.], [8., 11.]]
    with pytest.warns(UserWarning):
        assert _grid()[[0, [1, 2]]].tolist() == [1.0, 2.0]


def test_list_of_integers_stays_one_index_tensor():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _grid()[[2, 0]].shape == (2, 4)
    # a tuple is never reinterpreted
    assert _grid()[([[0, 1], [1, 2]],)].shape == (2, 2, 4)


def test_list_of_lists_key_in_setitem_and_gradient():
    x = _grid().requires_grad_()
    with pytest.warns(UserWarning):
        y = x[[[0, 2], [3, 1]]]
    y.sum().backward()
    expect = [[0.0] * 4 for _ in range(3)]
    expect[0][3] = expect[2][1] = 1.0
    assert x.grad.tolist() == expect
    t = _grid()
    with pytest.warns(UserWarning):
        t[[[0, 2], [3, 1]]] = -1.0
    assert t[0, 3].item() == -1.0 and t[2, 1].item() == -1.0 and t[1].tolist() == [4., 5., 6., 7.]


def test_repeated_index_write_keeps_the_last_value():
    t = _grid()
    t[[0, 1, 1, 0]] = -1.0
    assert t[:2].tolist() == [[-1.0] * 4] * 2  # was -2 where a row repeats
    t = ag.zeros(3)
    t[ag.tensor([2, 0, 2])] = ag.tensor([5.0, 6.0, 7.0])
    assert t.tolist() == [6.0, 0.0, 7.0]


@needs_torch
@pytest.mark.parametrize("key", KEYS, ids=repr)
def test_list_keys_read_and_write_as_torch(key):
    x = torch.arange(12.).reshape(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = x[key]
        got = _grid()[key]
        assert tuple(got.shape) == tuple(want.shape)
        assert got.tolist() == want.tolist()
        tw, tg = x.clone(), _grid()
        tw[key] = torch.arange(float(want.numel())).reshape(want.shape)
        tg[key] = ag.arange(float(want.numel())).reshape(tuple(want.shape))
        assert tg.tolist() == tw.tolist()
