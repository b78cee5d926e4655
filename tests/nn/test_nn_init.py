"""nn.init: gains, fans, the initialisers' ranges and moments, and no graph recording."""

import math

import numpy as np
import pytest
from nn_helpers import arr

import arraygrad as ag
from arraygrad import nn
from arraygrad.nn import init


def test_calculate_gain():
    assert init.calculate_gain("linear") == 1 and init.calculate_gain("sigmoid") == 1
    assert init.calculate_gain("conv2d") == 1
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("leaky_relu") == math.sqrt(2.0 / (1 + 0.01 ** 2))
    assert init.calculate_gain("leaky_relu", 0.2) == math.sqrt(2.0 / 1.04)
    assert init.calculate_gain("selu") == 0.75
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")
    with pytest.raises(ValueError, match="negative_slope True not a valid number"):
        init.calculate_gain("leaky_relu", True)


def test_fan_in_and_fan_out():
    assert init._calculate_fan_in_and_fan_out(ag.empty(3, 5)) == (5, 3)
    assert init._calculate_fan_in_and_fan_out(ag.empty(8, 4, 3, 3)) == (36, 72)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(ag.empty(3))


def test_fills_under_no_grad_on_parameters():
    p = nn.Parameter(ag.empty(2, 3))
    assert init.constant_(p, 0.5) is p
    assert p.tolist() == [[0.5] * 3] * 2 and p.is_leaf and p.grad_fn is None
    init.zeros_(p)
    assert p.sum().item() == 0
    init.ones_(p)
    assert p.sum().item() == 6


def test_uniform_and_normal_moments():
    ag.manual_seed(0)
    t = init.uniform_(ag.empty(200, 100, dtype=ag.float64), -2.0, 3.0)
    a = arr(t)
    assert a.min() >= -2 and a.max() < 3 and abs(a.mean() - 0.5) < 0.05
    t = init.normal_(ag.empty(200, 100, dtype=ag.float64), 1.0, 2.0)
    a = arr(t)
    assert abs(a.mean() - 1.0) < 0.05 and abs(a.std() - 2.0) < 0.05


def test_xavier_and_kaiming():
    ag.manual_seed(1)
    w = ag.empty(300, 200, dtype=ag.float64)
    bound = math.sqrt(6.0 / 500)
    a = arr(init.xavier_uniform_(w))
    assert abs(a).max() <= bound and abs(a).max() > 0.95 * bound
    a = arr(init.xavier_normal_(w, gain=2.0))
    assert abs(a.std() - 2.0 * math.sqrt(2.0 / 500)) < 0.01 * 2.0 * math.sqrt(2.0 / 500) * 5
    a = arr(init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu"))
    kb = math.sqrt(2.0) * math.sqrt(3.0 / 300)
    assert abs(a).max() <= kb and abs(a).max() > 0.95 * kb
    a = arr(init.kaiming_normal_(w, a=0.1))
    std = math.sqrt(2.0 / 1.01) / math.sqrt(200)
    assert abs(a.std() - std) / std < 0.03
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(w, mode="fan_avg")
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(ag.empty(0, 3))


def test_generator_argument_is_reproducible():
    g1, g2 = ag.Generator().manual_seed(5), ag.Generator().manual_seed(5)
    a = init.normal_(ag.empty(4), generator=g1)
    b = init.normal_(ag.empty(4), generator=g2)
    assert a.tolist() == b.tolist()


def test_default_initialisation_of_layers():
    emb = nn.Embedding(300, 40)
    a = arr(emb.weight)
    assert abs(a.std() - 1.0) < 0.05
    bn = nn.BatchNorm1d(3)
    assert bn.weight.tolist() == [1.] * 3 and bn.bias.tolist() == [0.] * 3
    assert bn.running_var.tolist() == [1.] * 3 and bn.num_batches_tracked.item() == 0
    ln = nn.LayerNorm(4)
    assert ln.weight.tolist() == [1.] * 4 and ln.bias.tolist() == [0.] * 4
    bil = nn.Bilinear(100, 3, 50)
    assert abs(arr(bil.weight)).max() <= 0.1 and abs(arr(bil.bias)).max() <= 0.1
