"""Pooling, Upsample and PixelShuffle modules: they forward to the functional ops, and their
repr matches PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.nn import functional as F


def test_modules_forward_to_functional():
    x = ag.randn(2, 4, 6, 6)
    np.testing.assert_array_equal(nn.MaxPool2d(3, 2, 1, ceil_mode=True)(x).numpy(),
                                  F.max_pool2d(x, 3, 2, 1, ceil_mode=True).numpy())
    out, idx = nn.MaxPool2d(2, return_indices=True)(x)
    assert tuple(out.shape) == tuple(idx.shape) == (2, 4, 3, 3)
    np.testing.assert_array_equal(nn.AvgPool2d(2, count_include_pad=False, padding=1)(x).numpy(),
                                  F.avg_pool2d(x, 2, padding=1, count_include_pad=False).numpy())
    assert tuple(nn.AdaptiveAvgPool2d((None, 2))(x).shape) == (2, 4, 6, 2)
    assert tuple(nn.Upsample(scale_factor=2)(x).shape) == (2, 4, 12, 12)
    assert tuple(nn.Upsample(size=(7, 9))(x).shape) == (2, 4, 7, 9)
    assert tuple(nn.PixelShuffle(2)(x).shape) == (2, 1, 12, 12)
    from arraygrad.nn.modules.pixelshuffle import PixelUnshuffle

    np.testing.assert_array_equal(PixelUnshuffle(2)(nn.PixelShuffle(2)(x)).numpy(), x.numpy())


@pytest.mark.parametrize("make", [
    lambda m: m.MaxPool2d(3, 2, 1),
    lambda m: m.MaxPool2d((2, 3)),
    lambda m: m.AvgPool2d(2),
    lambda m: m.AdaptiveAvgPool2d((3, None)),
    lambda m: m.Upsample(scale_factor=2),
    lambda m: m.Upsample(size=(4, 5)),
    lambda m: m.PixelShuffle(3),
])
def test_repr_matches_torch(make):
    torch = pytest.importorskip("torch")
    assert repr(make(nn)) == repr(make(torch.nn))
