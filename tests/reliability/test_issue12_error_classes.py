"""Errors that leaked out as Python/NumPy errors or garbage results instead of PyTorch's
(issue 12's differential findings), each checked first so nothing changes."""

import pytest

import arraygrad as ag

F = ag.nn.functional


def test_chunk_of_an_empty_dimension_gives_chunks_empty_pieces():
    assert [tuple(c.shape) for c in ag.zeros(0).chunk(3)] == [(0,), (0,), (0,)]
    assert [tuple(c.shape) for c in ag.zeros(0, 2).chunk(2)] == [(0, 2), (0, 2)]
    assert [tuple(c.shape) for c in ag.zeros(5).chunk(3)] == [(2,), (2,), (1,)]


def test_convolution_and_pooling_geometry_is_checked():
    x, w = ag.ones(1, 1, 4, 4), ag.ones(1, 1, 2, 2)
    with pytest.raises(RuntimeError, match="dilation should be greater than zero"):
        F.conv2d(x, w, dilation=0)
    with pytest.raises(RuntimeError, match="non-positive stride is not supported"):
        F.conv2d(x, w, stride=0)
    with pytest.raises(RuntimeError, match="stride should not be zero"):
        F.max_pool2d(x, 2, stride=0)  # was a ZeroDivisionError
    with pytest.raises(RuntimeError, match="stride should not be zero"):
        F.avg_pool2d(x, 2, stride=0)
    with pytest.raises(RuntimeError, match="adaptive_avg_pool2d: elements of output_size"):
        F.adaptive_avg_pool2d(x, -1)  # the message named matmul


def test_layer_norm_weight_and_bias_must_match_the_normalized_shape():
    with pytest.raises(RuntimeError, match="Expected weight to be of same shape"):
        F.layer_norm(ag.ones(2, 3), (3,), weight=ag.ones(4))
    with pytest.raises(RuntimeError, match="Expected bias to be of same shape"):
        F.layer_norm(ag.ones(2, 3), (3,), bias=ag.ones(1))


def test_binary_cross_entropy_targets_must_be_probabilities():
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(ag.full((2,), 0.5), ag.tensor([0.0, 2.0]))


def test_detach_in_place_refuses_views():
    x = ag.ones(3, requires_grad=True)
    v = x[1:]
    with pytest.raises(RuntimeError, match="Can't detach views in-place"):
        v.detach_()
    assert v.requires_grad and v.grad_fn is not None  # unchanged
    y = x * 2
    y.detach_()  # not a view: fine
    assert not y.requires_grad and y.grad_fn is None


@pytest.mark.parametrize("op", ["bitwise_and", "bitwise_or", "bitwise_xor"])
def test_bitwise_ops_on_floats_raise_pytorchs_not_implemented(op):
    with pytest.raises(NotImplementedError, match=f'"{op}_cpu" not implemented for \'Float\''):
        getattr(ag, op)(ag.ones(2), ag.ones(2))
    with pytest.raises(NotImplementedError, match="'Double'"):
        ag.bitwise_not(ag.ones(2, dtype=ag.float64))


def test_softmax_and_log_softmax_over_an_empty_dimension():
    x = ag.zeros(2, 0, requires_grad=True)
    y, z = ag.softmax(x, 1), ag.log_softmax(x, 1)
    assert tuple(y.shape) == tuple(z.shape) == (2, 0)
    (y.sum() + z.sum()).backward()
    assert tuple(x.grad.shape) == (2, 0)


def test_cross_entropy_with_every_target_ignored_has_a_zero_gradient():
    x = ag.ones(2, 3, requires_grad=True)
    loss = F.cross_entropy(x, ag.tensor([-100, -100]))
    assert loss.isnan().item()  # 0/0, as in PyTorch
    loss.backward()
    assert x.grad.tolist() == [[0.0] * 3] * 2


def test_python_conversions_and_factories_raise_pytorchs_classes():
    import numpy as np

    with pytest.raises(ValueError, match="only one element tensors can be converted"):
        float(ag.ones(2))
    with pytest.raises(ValueError, match="only one element tensors can be converted"):
        int(ag.ones(2))
    with pytest.raises(TypeError, match="must be Number, not str"):
        ag.full((2,), "a")
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        np.asarray(ag.ones(2, requires_grad=True))
    assert np.asarray(ag.ones(2)).tolist() == [1.0, 1.0]


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_over_an_empty_dimension_is_an_index_error(op):
    with pytest.raises(IndexError, match=f"{op}\\(\\): Expected reduction dim 1 to have non-zero"):
        getattr(ag.zeros(2, 0), op)(1)
    assert getattr(ag.zeros(0, 3), op)(1).values.shape == (0,)  # a non-empty dim reduces


@pytest.mark.parametrize("factory", ["empty", "zeros", "ones"])
def test_an_allocation_that_cannot_be_made_is_a_runtime_error(factory):
    # 4 TB: the array library refuses it up front (nothing is allocated); NumPy's MemoryError
    # leaked before
    with pytest.raises(RuntimeError, match="can't allocate memory: you tried to allocate "
                                           "4000000000000 bytes"):
        getattr(ag, factory)(10**12)


def test_an_int_past_int64_is_pytorchs_value_error():
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        ag.tensor([1, 2**63])  # was an OverflowError
    assert ag.tensor([1, 2**63 - 1]).tolist() == [1, 2**63 - 1]
