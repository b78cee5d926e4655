"""Pooling for 1, 2 and 3 spatial dims (max with indices, average, adaptive average and max,
power-average, max-unpooling) and the pooling layers: values against direct loops over the
windows in float64 NumPy, gradcheck + gradgradcheck, errors, and (if installed) PyTorch on
random shapes (values, indices, gradients, layer reprs)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn import functional as F

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

F64 = ag.float64


def _t(a, requires_grad=False):
    return ag.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def _a(t):
    return np.asarray(t.detach().numpy(), dtype=np.float64)


def _tup(v, n):
    return tuple(v) if isinstance(v, (list, tuple)) else (v,) * n


# -- independent references: one loop over output positions, one over each window -----------

def _out_count(n, k, s, p, d, ceil):
    span = n + 2 * p - d * (k - 1) - 1
    o = (math.ceil(span / s) if ceil else span // s) + 1
    if ceil and (o - 1) * s >= n + p:  # a last window starting in the right padding is dropped
        o -= 1
    return o


def _windows(sizes, kernel, stride, padding, dilation, ceil):
    """Per output position: the in-bounds input positions of its window (row-major order)."""
    outs = [_out_count(*a, ceil) for a in zip(sizes, kernel, stride, padding, dilation)]
    result = {}
    for pos in itertools.product(*(range(o) for o in outs)):
        members = []
        for k in itertools.product(*(range(kk) for kk in kernel)):
            src = tuple(pos[a] * stride[a] - padding[a] + k[a] * dilation[a]
                        for a in range(len(sizes)))
            if all(0 <= src[a] < sizes[a] for a in range(len(sizes))):
                members.append(src)
        result[pos] = members
    return outs, result


def reference_max_pool(x, kernel, stride, padding, dilation, ceil):
    """Values and flat per-plane indices (first maximum in window order)."""
    sizes = x.shape[2:]
    outs, wins = _windows(sizes, kernel, stride, padding, dilation, ceil)
    values = np.zeros(x.shape[:2] + tuple(outs))
    indices = np.zeros(x.shape[:2] + tuple(outs), dtype=np.int64)
    for n, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for pos, members in wins.items():
            vals = [x[(n, c) + m] for m in members]
            best = int(np.argmax(vals))
            values[(n, c) + pos] = vals[best]
            indices[(n, c) + pos] = np.ravel_multi_index(members[best], sizes)
    return values, indices


def reference_avg_pool(x, kernel, stride, padding, ceil, count_include_pad, divisor=None):
    sizes = x.shape[2:]
    nd = len(sizes)
    outs, wins = _windows(sizes, kernel, stride, padding, (1,) * nd, ceil)
    out = np.zeros(x.shape[:2] + tuple(outs))
    for pos, members in wins.items():
        if divisor is not None:
            div = divisor
        elif count_include_pad:  # the window clipped to input + padding (PyTorch's rule)
            div = 1
            for a in range(nd):
                start = pos[a] * stride[a] - padding[a]
                div *= min(start + kernel[a], sizes[a] + padding[a]) - start
        else:
            div = len(members)
        total = sum(x[(slice(None), slice(None)) + m] for m in members)
        out[(slice(None), slice(None)) + pos] = total / div
    return out


def _bins(n, o):
    return [(i * n // o, -(-(i + 1) * n // o)) for i in range(o)]


def reference_adaptive(x, out, reduce):
    sizes = x.shape[2:]
    bins = [_bins(n, o) for n, o in zip(sizes, out)]
    res = np.zeros(x.shape[:2] + tuple(out))
    idx = np.zeros(x.shape[:2] + tuple(out), dtype=np.int64)
    for pos in itertools.product(*(range(o) for o in out)):
        members = list(itertools.product(*(range(*bins[a][pos[a]]) for a in range(len(out)))))
        vals = np.stack([x[(slice(None), slice(None)) + m] for m in members], axis=-1)
        key = (slice(None), slice(None)) + pos
        if reduce == "mean":
            res[key] = vals.mean(-1)
        else:
            best = vals.argmax(-1)
            res[key] = vals.max(-1)
            idx[key] = np.vectorize(lambda b: np.ravel_multi_index(members[b], sizes))(best)
    return res, idx


# -- values -------------------------------------------------------------------------------------

MAX_CASES = [
    (1, (2, 3, 11), dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True)),
    (1, (3, 8), dict(kernel_size=(4,), padding=2)),  # unbatched
    (2, (1, 2, 7, 6), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0), ceil_mode=True)),
    (3, (2, 2, 5, 6, 7), dict(kernel_size=(2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0),
                              dilation=(2, 1, 1), ceil_mode=True)),
    (3, (2, 4, 5, 4), dict(kernel_size=2)),  # unbatched
]


@pytest.mark.parametrize("nd,shape,kw", MAX_CASES)
def test_max_pool_values_and_indices_match_window_loop(nd, shape, kw):
    x = np.random.default_rng(nd).standard_normal(shape)
    fn = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[nd]
    values, indices = fn(_t(x), **kw, return_indices=True)
    unbatched = len(shape) == nd + 1
    k = _tup(kw["kernel_size"], nd)
    s = _tup(kw.get("stride", k), nd)
    ref_v, ref_i = reference_max_pool(x[None] if unbatched else x, k, s,
                                      _tup(kw.get("padding", 0), nd),
                                      _tup(kw.get("dilation", 1), nd), kw.get("ceil_mode", False))
    if unbatched:
        ref_v, ref_i = ref_v[0], ref_i[0]
    np.testing.assert_array_equal(_a(values), ref_v)
    assert indices.dtype == ag.int64
    np.testing.assert_array_equal(np.asarray(indices.tolist()), ref_i)
    with_idx = {1: F.max_pool1d_with_indices, 2: F.max_pool2d_with_indices,
                3: F.max_pool3d_with_indices}[nd]
    np.testing.assert_array_equal(_a(with_idx(_t(x), **kw)[0]), ref_v)


AVG_CASES = [
    (1, (2, 3, 10), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (1, (3, 9), dict(kernel_size=4, stride=3, padding=2, count_include_pad=False,
                     ceil_mode=True)),
    (2, (1, 2, 7, 6), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 1), ceil_mode=True,
                           count_include_pad=False)),
    (3, (2, 2, 5, 6, 7), dict(kernel_size=(2, 3, 3), stride=(1, 2, 2), padding=(1, 1, 1),
                              ceil_mode=True)),
    (3, (2, 2, 5, 6, 7), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    (3, (2, 4, 5, 4), dict(kernel_size=2, padding=1, divisor_override=3)),  # unbatched
]


@pytest.mark.parametrize("nd,shape,kw", AVG_CASES)
def test_avg_pool_matches_window_loop(nd, shape, kw):
    x = np.random.default_rng(10 + nd).standard_normal(shape)
    fn = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[nd]
    out = fn(_t(x), **kw)
    unbatched = len(shape) == nd + 1
    k = _tup(kw["kernel_size"], nd)
    ref = reference_avg_pool(x[None] if unbatched else x, k, _tup(kw.get("stride", k), nd),
                             _tup(kw.get("padding", 0), nd), kw.get("ceil_mode", False),
                             kw.get("count_include_pad", True), kw.get("divisor_override"))
    np.testing.assert_allclose(_a(out), ref[0] if unbatched else ref, rtol=1e-12, atol=1e-14)


ADAPTIVE_CASES = [(1, (2, 3, 10), (4,)), (1, (3, 5), (7,)), (2, (2, 3, 7, 5), (3, 5)),
                  (3, (1, 2, 5, 6, 7), (3, 4, 2)), (3, (2, 4, 3, 5), (2, 5, 3))]


@pytest.mark.parametrize("nd,shape,out", ADAPTIVE_CASES)
def test_adaptive_pools_match_bin_loop(nd, shape, out):
    x = np.random.default_rng(20 + nd).standard_normal(shape)
    unbatched = len(shape) == nd + 1
    xb = x[None] if unbatched else x
    avg = {1: F.adaptive_avg_pool1d, 2: F.adaptive_avg_pool2d, 3: F.adaptive_avg_pool3d}[nd]
    mx = {1: F.adaptive_max_pool1d, 2: F.adaptive_max_pool2d, 3: F.adaptive_max_pool3d}[nd]
    ref_avg, _ = reference_adaptive(xb, out, "mean")
    ref_max, ref_idx = reference_adaptive(xb, out, "max")
    if unbatched:
        ref_avg, ref_max, ref_idx = ref_avg[0], ref_max[0], ref_idx[0]
    np.testing.assert_allclose(_a(avg(_t(x), out)), ref_avg, rtol=1e-12)
    values, indices = mx(_t(x), out, return_indices=True)
    np.testing.assert_array_equal(_a(values), ref_max)
    np.testing.assert_array_equal(np.asarray(indices.tolist()), ref_idx)
    np.testing.assert_array_equal(_a(mx(_t(x), out[0] if nd == 1 else out)), ref_max)


def test_adaptive_output_size_none_keeps_a_size_and_zero_is_empty():
    x = _t(np.random.default_rng(0).standard_normal((2, 3, 6, 5, 4)))
    assert tuple(F.adaptive_avg_pool3d(x, (2, None, 3)).shape) == (2, 3, 2, 5, 3)
    assert tuple(F.adaptive_max_pool2d(x[0], (None, 2)).shape) == (3, 6, 5, 2)
    assert tuple(F.adaptive_max_pool2d(x[0, 0], (None, 2)).shape) == (6, 5, 2)  # unbatched
    v, i = F.adaptive_max_pool2d(x[0, 0], 0, return_indices=True)
    assert tuple(v.shape) == tuple(i.shape) == (6, 0, 0)


def test_lp_pool_is_the_p_norm_of_each_window():
    x = np.abs(np.random.default_rng(5).standard_normal((2, 3, 7, 6))) + 0.1
    out = F.lp_pool2d(_t(x), 3.0, (2, 3), stride=(2, 2))
    ref = np.zeros((2, 3, 3, 2))
    for i, j in itertools.product(range(3), range(2)):
        ref[:, :, i, j] = (x[:, :, 2 * i:2 * i + 2, 2 * j:2 * j + 3] ** 3).sum((2, 3)) ** (1 / 3)
    np.testing.assert_allclose(_a(out), ref, rtol=1e-12)
    out1 = F.lp_pool1d(_t(x[:, :, 0]), 2, 3)  # stride defaults to the kernel
    ref1 = np.sqrt((x[:, :, 0, :6].reshape(2, 3, 2, 3) ** 2).sum(-1))
    np.testing.assert_allclose(_a(out1), ref1, rtol=1e-12)
    out3 = F.lp_pool3d(_t(x[None]), 1, (1, 2, 2))  # p = 1: the sum of each window
    np.testing.assert_allclose(_a(out3)[0], x[:, :, :6, :6].reshape(2, 3, 3, 2, 3, 2).sum((3, 5)),
                               rtol=1e-12)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_unpool_puts_values_back_at_their_indices(nd):
    shape = (2, 3) + (6, 5, 3)[:nd]
    x = np.random.default_rng(30 + nd).standard_normal(shape)
    pool = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[nd]
    unpool = {1: F.max_unpool1d, 2: F.max_unpool2d, 3: F.max_unpool3d}[nd]
    values, indices = pool(_t(x), 2, return_indices=True)
    out = unpool(values, indices, 2, output_size=shape[2:])
    # every non-zero of the result is the input's own value at that place: the window maxima
    flat = x.reshape(6, -1)
    res = _a(out).reshape(6, -1)
    idx = np.asarray(indices.tolist()).reshape(6, -1)
    for plane in range(6):
        ref = np.zeros(flat.shape[1])
        ref[idx[plane]] = flat[plane][idx[plane]]
        np.testing.assert_array_equal(res[plane], ref)
    # the default size is (n - 1) * stride + kernel - 2 * padding
    even = _t(x[(slice(None), slice(None)) + tuple(slice(0, s // 2 * 2) for s in shape[2:])])
    values, indices = pool(even, 2, return_indices=True)
    assert tuple(unpool(values, indices, 2).shape) == tuple(even.shape)


def test_max_unpool_errors():
    v, i = F.max_pool2d(ag.randn(1, 2, 4, 4), 2, return_indices=True)
    with pytest.raises(ValueError, match="output_size should be a sequence containing 2 or 4"):
        F.max_unpool2d(v, i, 2, output_size=(4,))
    with pytest.raises(ValueError, match="invalid output_size"):
        F.max_unpool2d(v, i, 2, output_size=(6, 4))
    bad = int(i.max()) + 12  # the largest index depends on the random data (at most 15)
    with pytest.raises(RuntimeError, match=f"Found an invalid max index: {bad} "):
        F.max_unpool2d(v, i + 12, 2)
    with pytest.raises(RuntimeError, match="should be type int64"):
        F.max_unpool2d(v, i.to(ag.int32), 2)
    with pytest.raises(RuntimeError, match="shape of indices"):
        F.max_unpool2d(v, i[:, :1], 2)
    with pytest.raises(RuntimeError, match="Expected 2D or 3D"):
        F.max_unpool1d(v, i, 2)


def test_pool_errors_are_pytorchs():
    x1, x3 = ag.randn(2, 3, 7), ag.randn(2, 3, 7, 6, 5)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel"):
        F.max_pool1d(x1, 3, padding=2)
    with pytest.raises(RuntimeError, match="pad should be at most half of effective kernel"):
        F.avg_pool3d(x3, 3, padding=2)
    with pytest.raises(RuntimeError, match="stride should not be zero"):
        F.max_pool3d(x3, 2, stride=0)
    with pytest.raises(RuntimeError, match="kernel_size must be greater than zero"):
        F.max_pool1d(x1, 0)
    with pytest.raises(RuntimeError, match="dilation should be greater than zero"):
        F.max_pool3d(x3, 3, dilation=0)
    with pytest.raises(RuntimeError, match="Output size is too small"):
        F.max_pool3d(x3, 6)
    with pytest.raises(RuntimeError, match="Output size is too small"):
        F.avg_pool1d(x1, 9)
    with pytest.raises(RuntimeError, match="Expected 2D or 3D"):
        F.max_pool1d(x3, 2)
    with pytest.raises(RuntimeError, match="Expected 4D or 5D"):
        F.avg_pool3d(x1, 2)
    with pytest.raises(RuntimeError, match="Expected 3D or 4D"):
        F.max_pool2d(ag.randn(2, 3, 0, 3), 2)
    with pytest.raises(RuntimeError, match="tuple of three ints"):
        F.max_pool3d(x3, (3, 3))
    with pytest.raises(RuntimeError, match="divisor must be not zero"):
        F.avg_pool3d(x3, 2, divisor_override=0)
    with pytest.raises(RuntimeError, match="Expected 2 to 3 dimensions"):
        F.adaptive_avg_pool1d(x3, 2)
    with pytest.raises(RuntimeError, match="Expected 4D or 5D tensor"):
        F.adaptive_max_pool3d(x1, 2)
    with pytest.raises(RuntimeError, match="output_size must have 2"):
        F.adaptive_max_pool2d(x3[0], (2, 2, 2))
    with pytest.raises(RuntimeError, match="dimension 2 being empty"):
        F.adaptive_avg_pool2d(ag.randn(2, 3, 0, 3), 2)
    with pytest.raises(RuntimeError, match="elements of output_size must be greater"):
        F.adaptive_max_pool1d(x1, -1)
    assert tuple(F.max_pool2d(ag.randn(0, 3, 4, 4), 2).shape) == (0, 3, 2, 2)  # empty batch


def test_max_pool_gradient_goes_to_the_first_maximum():
    x = _t([[[1.0, 3.0, 3.0, 0.0, 2.0, 2.0]]], requires_grad=True)
    values, indices = F.max_pool1d(x, 3, stride=1, return_indices=True)
    assert indices.tolist() == [[[1, 1, 2, 4]]]
    values.sum().backward()
    assert x.grad.tolist() == [[[0.0, 2.0, 1.0, 0.0, 1.0, 0.0]]]


# -- gradients ---------------------------------------------------------------------------------

def _r(*shape, positive=False):
    x = ag.randn(*shape, dtype=F64)
    if positive:
        x = x.abs() + 0.5
    return x.requires_grad_(True)


GRAD_CASES = [
    ("max_pool1d", lambda x: F.max_pool1d(x, 3, 2, 1, dilation=2, ceil_mode=True), (1, 2, 7)),
    ("max_pool3d", lambda x: F.max_pool3d(x, (2, 2, 1), (1, 2, 1), padding=(1, 0, 0)),
     (1, 1, 3, 4, 2)),
    ("avg_pool1d", lambda x: F.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
     (2, 2, 6)),
    ("avg_pool3d", lambda x: F.avg_pool3d(x, 2, 1, 1, divisor_override=3), (1, 1, 2, 3, 2)),
    ("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3), (2, 2, 5)),
    ("adaptive_avg_pool3d", lambda x: F.adaptive_avg_pool3d(x, (2, 1, 3)), (1, 1, 3, 2, 4)),
    ("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 3), (2, 2, 5)),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, (2, 3)), (1, 2, 3, 5)),
    ("lp_pool1d", lambda x: F.lp_pool1d(x, 2.0, 2), (1, 2, 6)),
    ("lp_pool2d", lambda x: F.lp_pool2d(x, 3.0, (2, 1), ceil_mode=True), (1, 1, 5, 3)),
    ("max_unpool1d", lambda x: F.max_unpool1d(
        x, ag.tensor([[[1, 2, 5]]]), 2, output_size=(6,)), (1, 1, 3)),
    ("max_unpool2d", lambda x: F.max_unpool2d(
        x, ag.tensor([[[[0, 3], [9, 10]]]]), 2), (1, 1, 2, 2)),
]


@pytest.mark.parametrize("name,fn,shape", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck_and_gradgradcheck(name, fn, shape):
    ag.manual_seed(1)
    x = _r(*shape, positive=name.startswith("lp"))
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


# -- layers ---------------------------------------------------------------------------------

LAYERS = [
    ("MaxPool1d", (3,), dict(stride=2, padding=1, ceil_mode=True), (2, 3, 9)),
    ("MaxPool3d", ((2, 3, 2),), dict(padding=1, dilation=(1, 1, 2)), (2, 2, 5, 6, 7)),
    ("AvgPool1d", (3,), dict(padding=1, count_include_pad=False), (2, 3, 9)),
    ("AvgPool2d", (3,), dict(ceil_mode=True, stride=2), (2, 3, 8, 9)),
    ("AvgPool3d", (3,), dict(stride=2, padding=1, divisor_override=2), (2, 3, 5, 6, 7)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 9)),
    ("AdaptiveAvgPool3d", ((2, None, 3),), {}, (2, 3, 5, 6, 7)),
    ("AdaptiveMaxPool1d", (4,), {}, (2, 3, 9)),
    ("AdaptiveMaxPool2d", ((3, None),), {}, (3, 8, 9)),
    ("LPPool1d", (2, 3), dict(stride=2), (2, 3, 9)),
    ("LPPool2d", (1.5, (3, 2)), dict(ceil_mode=True), (2, 3, 8, 9)),
]


@needs_torch
@pytest.mark.parametrize("name,args,kwargs,xs", LAYERS, ids=[c[0] for c in LAYERS])
def test_layers_match_torch(name, args, kwargs, xs):
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert ours.state_dict() == {} and theirs.state_dict() == {}
    x = np.random.default_rng(2).standard_normal(xs)
    if name.startswith("LP"):
        x = np.abs(x)
    np.testing.assert_allclose(_a(ours(_t(x))), theirs(torch.tensor(x)).numpy(), rtol=1e-10,
                               atol=1e-12)


@needs_torch
def test_pool_with_indices_layers_feed_unpool_layers_like_torch():
    x = np.random.default_rng(3).standard_normal((2, 3, 9, 8))
    ours, theirs = nn.MaxPool2d(2, return_indices=True), torch.nn.MaxPool2d(2, return_indices=True)
    (v, i), (tv, ti) = ours(_t(x)), theirs(torch.tensor(x))
    np.testing.assert_array_equal(np.asarray(i.tolist()), ti.numpy())
    un, tun = nn.MaxUnpool2d(2), torch.nn.MaxUnpool2d(2)
    assert repr(un) == repr(tun)
    np.testing.assert_array_equal(_a(un(v, i, output_size=(9, 8))),
                                  tun(tv, ti, output_size=(9, 8)).numpy())
    x1 = x[:, :, 0]
    v1, i1 = nn.MaxPool1d(3, 2, return_indices=True)(_t(x1))
    tv1, ti1 = torch.nn.MaxPool1d(3, 2, return_indices=True)(torch.tensor(x1))
    assert repr(nn.MaxUnpool1d(3, 2)) == repr(torch.nn.MaxUnpool1d(3, 2))
    np.testing.assert_array_equal(_a(nn.MaxUnpool1d(3, 2)(v1, i1)),
                                  torch.nn.MaxUnpool1d(3, 2)(tv1, ti1).numpy())
    v2, i2 = nn.AdaptiveMaxPool1d(3, return_indices=True)(_t(x1))
    tv2, ti2 = torch.nn.AdaptiveMaxPool1d(3, return_indices=True)(torch.tensor(x1))
    np.testing.assert_array_equal(np.asarray(i2.tolist()), ti2.numpy())


@st.composite
def _pool_setup(draw):
    nd = draw(st.integers(1, 3))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    stride = tuple(draw(st.integers(1, 3)) for _ in range(nd))
    padding = tuple(draw(st.integers(0, k // 2)) for k in kernel)
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(nd))
    sizes = tuple(draw(st.integers(d * (k - 1) + 1, d * (k - 1) + 5))
                  for k, d in zip(kernel, dilation))
    return (nd, (draw(st.integers(1, 2)), draw(st.integers(1, 2))) + sizes, kernel, stride,
            padding, dilation, draw(st.booleans()), draw(st.booleans()),
            draw(st.integers(0, 2**31)))


def _grads_match(ours_fn, theirs_fn, x, rng):
    a, t = _t(x, True), torch.tensor(x, requires_grad=True)
    out, ref = ours_fn(a), theirs_fn(t)
    if isinstance(ref, tuple):
        np.testing.assert_array_equal(np.asarray(out[1].tolist()), ref[1].numpy())
        out, ref = out[0], ref[0]
    np.testing.assert_allclose(_a(out), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    go = rng.standard_normal(tuple(ref.shape))
    (out * _t(go)).sum().backward()
    (ref * torch.tensor(go)).sum().backward()
    np.testing.assert_allclose(_a(a.grad), t.grad.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
@settings(max_examples=20, deadline=None)
@given(_pool_setup())
def test_pools_match_torch_on_random_shapes(setup):
    nd, shape, kernel, stride, padding, dilation, ceil, flag, seed = setup
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    tf = torch.nn.functional
    name = f"max_pool{nd}d"
    _grads_match(lambda a: getattr(F, name)(a, kernel, stride, padding, dilation, ceil, True),
                 lambda t: getattr(tf, name)(t, kernel, stride, padding, dilation, ceil, True),
                 x, rng)
    name = f"avg_pool{nd}d"
    _grads_match(lambda a: getattr(F, name)(a, kernel, stride, padding, ceil, flag),
                 lambda t: getattr(tf, name)(t, kernel, stride, padding, ceil, flag), x, rng)
    out = tuple(rng.integers(1, 6, size=nd).tolist())
    for name in (f"adaptive_avg_pool{nd}d", f"adaptive_max_pool{nd}d"):
        _grads_match(lambda a: getattr(F, name)(a, out), lambda t: getattr(tf, name)(t, out),
                     x, rng)
    if nd < 3 or flag:
        name = f"lp_pool{nd}d"
        xp = np.abs(x) + 0.1
        kernel = kernel[0] if nd == 1 else kernel  # PyTorch's lp_pool1d multiplies by it
        _grads_match(lambda a: getattr(F, name)(a, 2.0, kernel, stride, ceil),
                     lambda t: getattr(tf, name)(t, 2.0, kernel, stride, ceil), xp, rng)


def test_integer_input_pools_in_its_own_dtype():
    """Max pooling pads an integer input with its smallest value; average pooling divides in
    the integer type, truncating toward zero (PyTorch's CPU kernels)."""
    x = np.arange(-12, 12).reshape(1, 2, 3, 4)
    ours = ag.tensor(x)
    out = F.max_pool2d(ours, 2, padding=1)
    assert out.dtype == ag.int64
    ref, _ = reference_max_pool(x.astype(np.float64), (2, 2), (2, 2), (1, 1), (1, 1), False)
    np.testing.assert_array_equal(np.asarray(out.tolist()), ref.astype(np.int64))
    avg = F.avg_pool2d(ours, 3, 1, 1, count_include_pad=False)
    assert avg.dtype == ag.int64
    ref = reference_avg_pool(x.astype(np.float64), (3, 3), (1, 1), (1, 1), False, False)
    np.testing.assert_array_equal(np.asarray(avg.tolist()), np.trunc(ref).astype(np.int64))
