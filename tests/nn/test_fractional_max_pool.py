"""``F.fractional_max_pool2d/3d`` and ``nn.FractionalMaxPool2d/3d``: PyTorch's window offsets
from the same ``_random_samples``, so values, indices and gradients are PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck

F = nn.functional


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n, shape, kernel, out", [
    (2, (2, 3, 11, 9), (3, 2), (4, 5)), (2, (3, 10, 10), 2, (5, 5)),
    (3, (2, 2, 7, 8, 9), (2, 3, 2), (3, 4, 5)), (2, (1, 1, 7, 7), 3, (1, 1)),
    (2, (2, 3, 50, 31), 3, (13, 12))])
def test_matches_pytorch(dtype, n, shape, kernel, out):
    torch = pytest.importorskip("torch", reason="compares against PyTorch")
    tdt = getattr(torch, dtype)
    x = torch.randn(*shape, dtype=tdt, requires_grad=True)
    batch = 1 if len(shape) == n + 1 else shape[0]
    samples = torch.rand(batch, shape[-n - 1], n, dtype=tdt)
    y, i = getattr(torch.nn.functional, f"fractional_max_pool{n}d")(
        x, kernel, output_size=out, return_indices=True, _random_samples=samples)
    xa = ag.tensor(x.detach().numpy(), requires_grad=True)
    ya, ia = getattr(F, f"fractional_max_pool{n}d")(
        xa, kernel, output_size=out, return_indices=True,
        _random_samples=ag.tensor(samples.numpy()))
    g = torch.randn_like(y)
    y.backward(g)
    ya.backward(ag.tensor(g.numpy()))
    np.testing.assert_array_equal(ya.detach().numpy(), y.detach().numpy())
    np.testing.assert_array_equal(ia.numpy(), i.numpy())
    np.testing.assert_array_equal(xa.grad.numpy(), x.grad.numpy())


def test_output_ratio_and_module():
    m = nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))
    assert tuple(m(ag.randn(2, 3, 20, 16)).shape) == (2, 3, 10, 8)
    m3 = nn.FractionalMaxPool3d(2, output_size=3, return_indices=True)
    out, idx = m3(ag.randn(1, 2, 6, 6, 6))
    assert tuple(out.shape) == (1, 2, 3, 3, 3) and idx.dtype == ag.int64
    x = ag.randn(1, 1, 6, 6, dtype=ag.float64, requires_grad=True)
    samples = ag.rand(1, 1, 2, dtype=ag.float64)
    assert gradcheck(lambda t: F.fractional_max_pool2d(t, 2, output_size=3,
                                                        _random_samples=samples), (x,))


def test_errors():
    x = ag.randn(1, 2, 9, 8)
    with pytest.raises(ValueError, match="requires specifying either an output_size"):
        F.fractional_max_pool2d(x, 2)
    with pytest.raises(RuntimeError, match="pool height 5 too large relative to input height 9"):
        F.fractional_max_pool2d(x, 5, output_size=7)
    with pytest.raises(RuntimeError, match=r"_random_samples.size\(2\) equals to 2; got 3"):
        F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=ag.rand(1, 2, 3))
    with pytest.raises(ValueError, match="output_ratio must be between 0 and 1"):
        nn.FractionalMaxPool2d(2, output_ratio=1.5)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio"):
        nn.FractionalMaxPool2d(2, output_size=3, output_ratio=0.5)
