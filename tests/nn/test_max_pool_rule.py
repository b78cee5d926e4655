"""Max pooling is one rule (``MaxPool2DWithIndicesBackward0``/``MaxPool3DWithIndicesBackward0``,
as PyTorch names the node): the NumPy backend's kernels (strided slices, no window array)
and the portable formulation (its reference twin, ``ARRAYGRAD_REFERENCE=1``) give PyTorch's
values, indices and gradients for every geometry (stride, padding, dilation, ceil_mode,
return_indices, ties) and derivatives of higher order flow (``arraygrad.compile``'s replay
of the kernels: ``test_conv_rule``)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.ops.rule import reference_mode

MODES = [False, True]  # reference_mode(on): fast paths as shipped, then the portable twin

# (input shape, keyword arguments): overlapping and disjoint windows, padding, dilation,
# ceil_mode (a last window hanging over the end), unbatched inputs, 1-3 spatial dims
CASES = [
    ((2, 3, 8, 8), dict(kernel_size=2)),
    ((2, 3, 9, 7), dict(kernel_size=3, stride=2, padding=1)),
    ((2, 3, 9, 8), dict(kernel_size=(3, 2), stride=(2, 1), dilation=(1, 2), ceil_mode=True)),
    ((2, 2, 7, 7), dict(kernel_size=3, stride=2, ceil_mode=True, padding=1)),
    ((3, 10), dict(kernel_size=3, stride=2, padding=1)),  # unbatched 1-d
    ((2, 3, 11), dict(kernel_size=4, stride=3, dilation=2, ceil_mode=True)),
    ((1, 2, 5, 6, 5), dict(kernel_size=(2, 3, 2), stride=(1, 2, 2), padding=1)),
]
FNS = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}


def _spatial(shape, kw):
    k = kw["kernel_size"]
    return len(k) if isinstance(k, tuple) else (1 if len(shape) <= 3 else len(shape) - 2)


@pytest.mark.parametrize("reference", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,kw", CASES)
def test_values_indices_and_gradients_are_pytorchs(reference, dtype, shape, kw):
    torch = pytest.importorskip("torch")
    nd = _spatial(shape, kw)
    # rounded values: many ties, which PyTorch breaks for the first maximal element
    a = np.round(np.random.default_rng(0).standard_normal(shape) * 2)
    x = ag.tensor(a, dtype=getattr(ag, dtype), requires_grad=True)
    tx = torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=True)
    with reference_mode(reference):
        y, idx = FNS[nd](x, return_indices=True, **kw)
        (y * ag.arange(y.numel(), dtype=y.dtype).reshape(tuple(y.shape))).sum().backward()
    ty, tidx = getattr(torch.nn.functional, f"max_pool{nd}d")(tx, return_indices=True, **kw)
    (ty * torch.arange(ty.numel(), dtype=ty.dtype).reshape(ty.shape)).sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(idx.numpy(), tidx.numpy())
    assert idx.dtype == ag.int64
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("reference", MODES)
def test_the_node_is_pytorchs(reference):
    x2 = ag.randn(1, 2, 6, 6, requires_grad=True)
    x3 = ag.randn(1, 2, 4, 4, 4, requires_grad=True)
    with reference_mode(reference):
        y2, y3 = F.max_pool2d(x2, 2), F.max_pool3d(x3, 2)
    assert type(y2.grad_fn).__name__ == "MaxPool2DWithIndicesBackward0"
    assert type(y3.grad_fn).__name__ == "MaxPool3DWithIndicesBackward0"
    assert [type(fn).__name__ for fn, _ in y2.grad_fn.next_functions] == ["AccumulateGrad"]


@pytest.mark.parametrize("reference", MODES)
def test_float64_finite_differences_and_second_order(reference):
    x = ag.tensor(np.random.default_rng(1).standard_normal((1, 2, 5, 6)), requires_grad=True)
    kw = dict(kernel_size=3, stride=2, padding=1, dilation=1, ceil_mode=True)
    with reference_mode(reference):
        assert ag.autograd.gradcheck(lambda t: F.max_pool2d(t, **kw), (x,))
        assert ag.autograd.gradgradcheck(lambda t: F.max_pool2d(t, **kw), (x,))


@pytest.mark.parametrize("reference", MODES)
def test_double_backward_is_pytorchs(reference):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(2).standard_normal((2, 2, 7, 6))
    x, tx = ag.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    kw = dict(kernel_size=3, stride=1, padding=1)  # overlapping windows: gradients add
    with reference_mode(reference):
        y = F.max_pool2d(x, **kw)
        (gx,) = ag.autograd.grad((y ** 3).sum(), (x,), create_graph=True)
        (gx * gx).sum().backward()
    ty = torch.nn.functional.max_pool2d(tx, **kw)
    (tgx,) = torch.autograd.grad((ty ** 3).sum(), (tx,), create_graph=True)
    (tgx * tgx).sum().backward()
    for mine, want in ((gx, tgx), (x.grad, tx.grad)):
        np.testing.assert_allclose(mine.detach().numpy(), want.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("reference", MODES)
def test_nan_propagates_and_integers_pool(reference):
    torch = pytest.importorskip("torch")
    a = np.arange(32.0).reshape(1, 2, 4, 4)
    a[0, 0, 1, 0] = np.nan
    with reference_mode(reference):
        y = F.max_pool2d(ag.tensor(a), 2)
        yi = F.max_pool2d(ag.tensor(a[:, 1:].astype(np.int64)), 3, stride=1, padding=1)
    want = torch.nn.functional.max_pool2d(torch.tensor(a), 2)
    np.testing.assert_array_equal(y.numpy(), want.numpy())  # (NaN where PyTorch has NaN)
    wanti = torch.nn.functional.max_pool2d(torch.tensor(a[:, 1:].astype(np.int64)), 3,
                                           stride=1, padding=1)
    assert yi.dtype == ag.int64 and np.array_equal(yi.numpy(), wanti.numpy())


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_the_numpy_kernels_equal_the_portable_twin(data):
    """Any geometry, ties and NaNs included: the kernels' values, winning offsets and
    gradients are the portable formulation's exactly."""
    from arraygrad.backends.registry import default_backend
    from arraygrad.nn._functional.max_pool_rule import _forward, _grad
    from arraygrad_numpy import pool_kernels

    nd = data.draw(st.integers(1, 3), label="spatial dims")
    kernel = tuple(data.draw(st.integers(1, 3)) for _ in range(nd))
    stride = tuple(data.draw(st.integers(1, 3)) for _ in range(nd))
    dilation = tuple(data.draw(st.integers(1, 2)) for _ in range(nd))
    pad = tuple(data.draw(st.integers(0, k // 2)) for k in kernel)
    sizes = tuple(data.draw(st.integers(d * (k - 1) + 1, d * (k - 1) + 5))
                  for k, d in zip(kernel, dilation))
    ceil = data.draw(st.booleans(), label="ceil_mode")
    out = tuple((s + 2 * p - d * (k - 1) - 1 + (t - 1 if ceil else 0)) // t + 1
                for s, p, d, k, t in zip(sizes, pad, dilation, kernel, stride))
    # PyTorch's rule: a last window must start inside the input or its left padding
    out = tuple(o - 1 if ceil and (o - 1) * t >= s + p else o
                for o, t, s, p in zip(out, stride, sizes, pad))
    geom = (kernel, dilation, stride, pad, out)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    x = np.round(rng.standard_normal((2, 2) + sizes) * 2).astype(dtype)  # ties
    if data.draw(st.booleans(), label="NaNs"):
        x[rng.random(x.shape) < 0.1] = np.nan
    backend = default_backend()
    values, offsets = pool_kernels.max_pool_forward(x, geom, True)
    want_values, want_offsets = _forward(backend, -np.inf, x, geom, True)
    np.testing.assert_array_equal(values, want_values)
    np.testing.assert_array_equal(offsets, want_offsets)  # (values: the dtypes may differ)
    np.testing.assert_array_equal(pool_kernels.max_pool_forward(x, geom, False), want_values)
    g = rng.standard_normal(values.shape).astype(dtype)
    if data.draw(st.booleans(), label="a NaN and an infinite gradient"):
        g.flat[0], g.flat[-1] = np.nan, -np.inf  # (they stay at their windows' winners)
    got, want = (pool_kernels.max_pool_grad(g, offsets, geom, sizes),
                 _grad(backend, g, offsets, geom, sizes))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))  # no -0.0 at the losers


def test_the_numpy_kernels_decline_what_they_do_not_serve():
    from arraygrad_numpy import pool_kernels

    geom = ((2, 2), (1, 1), (2, 2), (0, 0), (2, 2))
    assert pool_kernels.max_pool_forward(np.ones((1, 1, 4, 4), np.int32), geom,
                                         True) is NotImplemented
    assert pool_kernels.max_pool_grad(np.ones((1, 1, 2, 2), np.float16),
                                      np.zeros((1, 1, 2, 2), np.int64), geom,
                                      (4, 4)) is NotImplemented


def test_a_compiled_forward_without_gradients_records_the_pooling_kernel():
    """Under no_grad the kernel computes no offsets; its result was ``(values, None)``, which
    a compiled replay cannot record (a graph break: the ported MNIST program's evaluation
    warned and ran eagerly)."""
    model = ag.nn.Sequential(ag.nn.Conv2d(1, 2, 3), ag.nn.MaxPool2d(2), ag.nn.Flatten())
    x = ag.randn(2, 1, 8, 8)

    def evaluate():
        with ag.no_grad():
            return model(x)

    compiled = ag.compile(evaluate)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a graph break warns
        for _ in range(3):
            assert np.array_equal(compiled().numpy(), evaluate().numpy())
    assert compiled.stats["replays"] >= 1 and compiled.stats["eager"] == 0


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_the_tiled_gradient_is_the_portable_twins_bit_for_bit(data):
    """Windows that tile the input (stride = kernel, no dilation or padding; floor mode may
    leave a remainder): the kernel writes each offset's share into its slots instead of adding
    it to zeros, and must still give the portable formulation's bits: +0.0 at the losers and
    for a -0.0 gradient, NaN and infinite gradients at their winners only, zeros in the
    remainder."""
    from arraygrad.backends.registry import default_backend
    from arraygrad.nn._functional.max_pool_rule import _grad
    from arraygrad_numpy import pool_kernels

    nd = data.draw(st.integers(1, 3), label="spatial dims")
    kernel = tuple(data.draw(st.integers(1, 3)) for _ in range(nd))
    sizes = tuple(data.draw(st.integers(k, 3 * k + 2)) for k in kernel)
    out = tuple(s // k for s, k in zip(sizes, kernel))
    geom = (kernel, (1,) * nd, kernel, (0,) * nd, out)
    assert pool_kernels._plan((2, 2) + sizes, geom)["tiles"] is not None  # the tiled path
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    x = np.round(rng.standard_normal((2, 2) + sizes) * 2).astype(dtype)  # ties
    x[rng.random(x.shape) < 0.1] = np.nan
    _, offsets = pool_kernels.max_pool_forward(x, geom, True)
    g = rng.standard_normal(offsets.shape).astype(dtype)
    g.flat[0], g.flat[-1] = np.nan, -np.inf
    if g.size > 2:
        g.flat[1] = -0.0
    got = pool_kernels.max_pool_grad(g, offsets, geom, sizes)
    want = _grad(default_backend(), g, offsets, geom, sizes)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
