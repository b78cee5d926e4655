"""max/avg/adaptive pooling, nearest interpolation, pixel (un)shuffle: shapes, values against
direct loop formulas in float64 NumPy, gradcheck + gradgradcheck, and PyTorch if installed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn import functional as F

F64 = ag.float64


def _t(a, requires_grad=False):
    return ag.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def _out(size, k, s, p, d, ceil):
    span = size + 2 * p - d * (k - 1) - 1
    o = (math.ceil(span / s) if ceil else span // s) + 1
    if ceil and (o - 1) * s >= size + p:
        o -= 1
    return o


def reference_max_pool(x, k, s, p, d, ceil):
    n, c, h, w = x.shape
    oh, ow = _out(h, k[0], s[0], p[0], d[0], ceil), _out(w, k[1], s[1], p[1], d[1], ceil)
    out = np.full((n, c, oh, ow), -np.inf)
    idx = np.zeros((n, c, oh, ow), dtype=np.int64)
    for i in range(oh):
        for j in range(ow):
            for a in range(k[0]):
                for b in range(k[1]):
                    y, z = i * s[0] - p[0] + a * d[0], j * s[1] - p[1] + b * d[1]
                    if 0 <= y < h and 0 <= z < w:
                        v = x[:, :, y, z]
                        better = v > out[:, :, i, j]
                        out[:, :, i, j] = np.where(better, v, out[:, :, i, j])
                        idx[:, :, i, j] = np.where(better, y * w + z, idx[:, :, i, j])
    return out, idx


def reference_avg_pool(x, k, s, p, ceil, include_pad, divisor):
    n, c, h, w = x.shape
    oh, ow = _out(h, k[0], s[0], p[0], 1, ceil), _out(w, k[1], s[1], p[1], 1, ceil)
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            y0, z0 = i * s[0] - p[0], j * s[1] - p[1]
            y1, z1 = min(y0 + k[0], h + p[0]), min(z0 + k[1], w + p[1])
            pool = (y1 - y0) * (z1 - z0)
            ya, za, yb, zb = max(y0, 0), max(z0, 0), min(y1, h), min(z1, w)
            total = x[:, :, ya:yb, za:zb].sum(axis=(2, 3))
            div = divisor or (pool if include_pad else (yb - ya) * (zb - za))
            out[:, :, i, j] = total / div
    return out


POOL_CASES = [
    dict(k=(2, 2), s=(2, 2), p=(0, 0), d=(1, 1), ceil=False),
    dict(k=(3, 3), s=(2, 2), p=(1, 1), d=(1, 1), ceil=True),
    dict(k=(3, 2), s=(2, 1), p=(1, 1), d=(2, 1), ceil=True),
    dict(k=(2, 3), s=(3, 2), p=(0, 1), d=(1, 1), ceil=False),
]


@pytest.mark.parametrize("case", POOL_CASES)
def test_max_pool2d_values_and_indices(case):
    x = np.random.default_rng(0).standard_normal((2, 3, 7, 6))
    out, idx = F.max_pool2d(_t(x), case["k"], case["s"], case["p"], case["d"], case["ceil"],
                            return_indices=True)
    ref, ref_idx = reference_max_pool(x, case["k"], case["s"], case["p"], case["d"], case["ceil"])
    assert tuple(out.shape) == ref.shape
    np.testing.assert_array_equal(out.numpy(), ref)
    np.testing.assert_array_equal(idx.numpy(), ref_idx)
    assert idx.dtype is ag.int64


@pytest.mark.parametrize("case", [c for c in POOL_CASES if c["d"] == (1, 1)])
@pytest.mark.parametrize("include_pad,divisor", [(True, None), (False, None), (True, 5)])
def test_avg_pool2d_values(case, include_pad, divisor):
    x = np.random.default_rng(1).standard_normal((2, 3, 7, 6))
    out = F.avg_pool2d(_t(x), case["k"], case["s"], case["p"], case["ceil"], include_pad, divisor)
    ref = reference_avg_pool(x, case["k"], case["s"], case["p"], case["ceil"], include_pad, divisor)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)


def test_pool_defaults_and_errors():
    x = ag.randn(1, 2, 6, 6)
    assert tuple(F.max_pool2d(x, 2).shape) == (1, 2, 3, 3)  # stride defaults to kernel_size
    assert tuple(F.avg_pool2d(x[0], 3).shape) == (2, 2, 2)  # unbatched input
    with pytest.raises(RuntimeError, match="pad should be at most half"):
        F.max_pool2d(x, 2, padding=2)


@pytest.mark.parametrize("size,expected", [((3, 4), (3, 4)), (2, (2, 2)), ((None, 5), (7, 5))])
def test_adaptive_avg_pool2d_values(size, expected):
    x = np.random.default_rng(2).standard_normal((2, 3, 7, 9))
    out = F.adaptive_avg_pool2d(_t(x), size)
    assert tuple(out.shape) == (2, 3) + expected
    oh, ow = expected
    for i in range(oh):
        for j in range(ow):
            y0, y1 = (i * 7) // oh, -(-((i + 1) * 7) // oh)
            z0, z1 = (j * 9) // ow, -(-((j + 1) * 9) // ow)
            np.testing.assert_allclose(out.numpy()[:, :, i, j], x[:, :, y0:y1, z0:z1].mean(axis=(2, 3)))


@pytest.mark.parametrize("kwargs,shape", [(dict(scale_factor=2), (6, 8)), (dict(size=(5, 7)), (5, 7)),
                                          (dict(scale_factor=(0.5, 1.5)), (1, 6))])
def test_interpolate_nearest_values(kwargs, shape):
    x = np.random.default_rng(3).standard_normal((1, 2, 3, 4))
    out = F.interpolate(_t(x), **kwargs)
    assert tuple(out.shape) == (1, 2) + shape
    sf = kwargs.get("scale_factor")
    sf = sf if isinstance(sf, tuple) else (sf, sf)
    for i in range(shape[0]):
        for j in range(shape[1]):
            ry = 1 / sf[0] if sf[0] else 3 / shape[0]
            rz = 1 / sf[1] if sf[1] else 4 / shape[1]
            y, z = min(int(i * ry), 2), min(int(j * rz), 3)
            np.testing.assert_array_equal(out.numpy()[:, :, i, j], x[:, :, y, z])
    with pytest.warns(UserWarning, match="deprecated"):
        assert tuple(F.upsample(_t(x[:, :, 0]), scale_factor=3).shape) == (1, 2, 12)  # 1-D


def test_interpolate_errors():
    with pytest.raises(ValueError, match="either size or scale_factor should be defined"):
        F.interpolate(ag.randn(1, 1, 2, 2))  # PyTorch's message when neither is given
    with pytest.raises(ValueError, match="only one of size or scale_factor"):
        F.interpolate(ag.randn(1, 1, 2, 2), size=2, scale_factor=2)
    with pytest.raises(NotImplementedError):
        F.interpolate(ag.randn(1, 1, 2, 2), scale_factor=2, mode="linear")  # 3-D only


def test_pixel_shuffle_values_and_inverse():
    x = np.random.default_rng(4).standard_normal((2, 8, 3, 2))
    out = F.pixel_shuffle(_t(x), 2)
    assert tuple(out.shape) == (2, 2, 6, 4)
    for c in range(2):
        for i in range(6):
            for j in range(4):
                np.testing.assert_array_equal(
                    out.numpy()[:, c, i, j], x[:, c * 4 + (i % 2) * 2 + (j % 2), i // 2, j // 2])
    np.testing.assert_array_equal(F.pixel_unshuffle(out, 2).numpy(), x)
    with pytest.raises(RuntimeError, match="divisible"):
        F.pixel_shuffle(ag.randn(1, 3, 2, 2), 2)


# -- gradients ---------------------------------------------------------------------------

def _distinct(*shape):
    """Well-separated values, so max pooling has no near-ties for finite differences."""
    n = math.prod(shape)
    perm = ag.randperm(n, generator=ag.Generator().manual_seed(0)).to(F64)
    return (perm / n).reshape(*shape).requires_grad_(True)


GRAD_CASES = [
    ("max_pool2d", lambda x: F.max_pool2d(x, 2, stride=1, padding=1), (1, 2, 3, 3)),
    ("max_pool2d_ceil_dilation", lambda x: F.max_pool2d(x, 2, 2, 0, dilation=2, ceil_mode=True), (1, 1, 5, 4)),
    ("avg_pool2d", lambda x: F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), (1, 2, 4, 4)),
    ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (2, 3)), (1, 1, 3, 5)),
    ("interpolate", lambda x: F.interpolate(x, scale_factor=(1.5, 2)), (1, 2, 2, 2)),
    ("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), (1, 4, 2, 2)),
    ("pixel_unshuffle", lambda x: F.pixel_unshuffle(x, 2), (1, 1, 2, 4)),
]


@pytest.mark.parametrize("name,fn,shape", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck_and_gradgradcheck(name, fn, shape):
    x = _distinct(*shape)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_pools_match_torch():
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(5).standard_normal((2, 3, 7, 6))
    cases = [
        (F.max_pool2d, torch.nn.functional.max_pool2d, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
        (F.avg_pool2d, torch.nn.functional.avg_pool2d, dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                                             count_include_pad=False)),
        (F.adaptive_avg_pool2d, torch.nn.functional.adaptive_avg_pool2d, dict(output_size=(4, 5))),
        (F.interpolate, torch.nn.functional.interpolate, dict(scale_factor=1.7)),
        (F.interpolate, torch.nn.functional.interpolate, dict(size=(5, 13))),
    ]
    go_rng = np.random.default_rng(6)
    for ours, theirs, kw in cases:
        a, t = _t(x, True), torch.tensor(x, requires_grad=True)
        out, ref = ours(a, **kw), theirs(t, **kw)
        np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-14)
        go = go_rng.standard_normal(tuple(ref.shape))
        (out * _t(go)).sum().backward()
        (ref * torch.tensor(go)).sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-14)
