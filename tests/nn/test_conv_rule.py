"""A forward convolution is one ``ConvolutionBackward0`` rule: the NumPy backend's kernels
(strided windows, one product per direction) and the portable formulation (its reference
twin, ``ARRAYGRAD_REFERENCE=1``) give PyTorch's values and gradients, float64 finite
differences agree, derivatives of every order flow, and ``arraygrad.compile`` replays the
kernels eager calls."""

import contextlib
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.ops.rule import reference_mode

MODES = [False, True]  # reference_mode(on): fast paths as shipped, then the portable twin
FNS = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}

# (input shape, weight shape, keyword arguments): odd strides, dilations, groups, padding
CASES = [
    ((2, 4, 9, 8), (6, 2, 3, 2), dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)),
    ((2, 4, 9, 8), (6, 4, 3, 3), dict(stride=3, padding="valid")),
    ((2, 4, 9, 8), (6, 4, 3, 4), dict(padding="same", dilation=2)),  # even kernel: asymmetric
    ((3, 7), (4, 3, 3), dict(stride=2, padding=1)),  # unbatched conv1d
    ((2, 6, 11), (6, 1, 3), dict(stride=2, padding=1, groups=6)),  # depthwise
    ((1, 2, 5, 6, 5), (3, 2, 2, 3, 2), dict(stride=(1, 2, 1), padding=1, dilation=(2, 1, 1))),
    ((2, 3, 7, 5), (4, 3, 1, 1), dict(stride=(3, 2))),  # windows leave the input's end unread
]


def _arrays(shape, wshape, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape), rng.standard_normal(wshape),
            rng.standard_normal(wshape[0]))


@pytest.mark.parametrize("reference", MODES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape,wshape,kw", CASES)
def test_values_and_gradients_are_pytorchs(reference, dtype, shape, wshape, kw):
    torch = pytest.importorskip("torch")
    a, b, c = _arrays(shape, wshape, 0)
    ours = [ag.tensor(v, dtype=getattr(ag, dtype), requires_grad=True) for v in (a, b, c)]
    theirs = [torch.tensor(v, dtype=getattr(torch, dtype), requires_grad=True) for v in (a, b, c)]
    nd = len(wshape) - 2
    with reference_mode(reference):
        y = FNS[nd](*ours, **kw)
        (y * y).sum().backward()
    ty = getattr(torch.nn.functional, f"conv{nd}d")(*theirs, **kw)
    (ty * ty).sum().backward()
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == "float32" else dict(rtol=1e-11, atol=1e-11)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), **tol)
    for mine, want in zip(ours, theirs):
        np.testing.assert_allclose(mine.grad.numpy(), want.grad.numpy(), **tol)


# smaller geometries of the same kinds: finite differences cost a forward per element
FD_CASES = [
    ((1, 4, 5, 6), (4, 2, 3, 2), dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)),
    ((1, 2, 7, 5), (3, 2, 3, 3), dict(stride=3, padding="valid")),
    ((1, 2, 6, 5), (2, 2, 3, 4), dict(padding="same", dilation=2)),
    ((2, 4, 7), (4, 1, 3), dict(stride=2, padding=1, groups=4)),
    ((1, 1, 4, 5, 4), (2, 1, 2, 3, 2), dict(stride=(1, 2, 1), padding=1, dilation=(2, 1, 1))),
]


@pytest.mark.parametrize("reference", MODES)
@pytest.mark.parametrize("case", range(len(FD_CASES)))
def test_float64_finite_differences(reference, case):
    """First order for every geometry; second order (slower) for the grouped, strided,
    dilated, padded one and the 3-D one."""
    shape, wshape, kw = FD_CASES[case]
    a, b, c = _arrays(shape, wshape, 1)
    inputs = [ag.tensor(v, dtype=ag.float64, requires_grad=True) for v in (a, b, c)]
    fn = FNS[len(wshape) - 2]
    with reference_mode(reference):
        assert ag.autograd.gradcheck(lambda x, w, bias: fn(x, w, bias, **kw), inputs)
        if case in (0, 4):
            assert ag.autograd.gradgradcheck(lambda x, w, bias: fn(x, w, bias, **kw), inputs)


@pytest.mark.parametrize("reference", MODES)
def test_one_node_whose_edges_are_the_leaves(reference):
    x = ag.randn(2, 3, 6, 6, requires_grad=True)
    w = ag.randn(4, 3, 3, 3, requires_grad=True)
    b = ag.randn(4, requires_grad=True)
    with reference_mode(reference):
        y = F.conv2d(x, w, b, padding=1)
    assert type(y.grad_fn).__name__ == "ConvolutionBackward0"
    assert [type(fn).__name__ for fn, _ in y.grad_fn.next_functions] == ["AccumulateGrad"] * 3
    no_bias = F.conv2d(x, w)
    assert no_bias.grad_fn.next_functions[2][0] is None  # no bias: no edge


@pytest.mark.parametrize("reference", MODES)
def test_double_backward_is_pytorchs(reference):
    torch = pytest.importorskip("torch")
    a, b, _ = _arrays((2, 4, 7, 6), (6, 2, 3, 2), 2)
    x, w = (ag.tensor(v, requires_grad=True) for v in (a, b))
    tx, tw = (torch.tensor(v, requires_grad=True) for v in (a, b))
    kw = dict(stride=(2, 1), padding=1, dilation=(1, 2), groups=2)
    with reference_mode(reference):
        y = F.conv2d(x, w, **kw)
        gx, gw = ag.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        ((gx * gx).sum() + (gw * gw).sum()).backward()
    ty = torch.nn.functional.conv2d(tx, tw, **kw)
    tgx, tgw = torch.autograd.grad((ty * ty).sum(), (tx, tw), create_graph=True)
    ((tgx * tgx).sum() + (tgw * tgw).sum()).backward()
    for mine, want in ((gx, tgx), (gw, tgw), (x.grad, tx.grad), (w.grad, tw.grad)):
        np.testing.assert_allclose(mine.detach().numpy(), want.detach().numpy(), rtol=1e-9,
                                   atol=1e-9)


@contextlib.contextmanager
def _layout(channels_first):
    """The NumPy kernels' windows laid out channels first for every geometry, or never."""
    from arraygrad_numpy import conv_kernels

    was = conv_kernels._CHANNELS_FIRST_BELOW
    conv_kernels._CHANNELS_FIRST_BELOW = 1 << 30 if channels_first else 0
    conv_kernels._plan.cache_clear()
    try:
        yield
    finally:
        conv_kernels._CHANNELS_FIRST_BELOW = was
        conv_kernels._plan.cache_clear()


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_the_numpy_kernels_equal_the_portable_twin(data):
    """Any geometry: the NumPy kernels' forward and both gradients equal the portable
    formulation's (reference mode) to float64 rounding."""
    nd = data.draw(st.integers(1, 3), label="spatial dims")
    groups = data.draw(st.integers(1, 3), label="groups")
    cg, og = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
    kernel = [data.draw(st.integers(1, 3)) for _ in range(nd)]
    stride = [data.draw(st.integers(1, 3)) for _ in range(nd)]
    dilation = [data.draw(st.integers(1, 2)) for _ in range(nd)]
    padding = [data.draw(st.integers(0, 2)) for _ in range(nd)]
    reach = [d * (k - 1) + 1 for d, k in zip(dilation, kernel)]
    sizes = [data.draw(st.integers(max(1, r - 2 * p), r + 4))
             for r, p in zip(reach, padding)]
    n = data.draw(st.integers(1, 3))
    # both layouts of the windows: channels first (few output positions, the usual case
    # here) and batch-major (forced: every size counts as many positions)
    channels_first = data.draw(st.booleans(), label="channels first")
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    a = rng.standard_normal((n, cg * groups, *sizes))
    b = rng.standard_normal((og * groups, cg, *kernel))
    results = []
    for reference in MODES:
        x, w = (ag.tensor(v, dtype=ag.float64, requires_grad=True) for v in (a, b))
        with reference_mode(reference), _layout(channels_first):
            y = FNS[nd](x, w, stride=stride, padding=padding, dilation=dilation, groups=groups)
            g = ag.tensor(np.linspace(-1, 1, y.numel()).reshape(tuple(y.shape)))
            y.backward(g)
        results.append((y.detach().numpy(), x.grad.numpy(), w.grad.numpy()))
    for fast, portable in zip(*results):
        np.testing.assert_allclose(fast, portable, rtol=1e-12, atol=1e-12)


@pytest.fixture
def one_sample_chunks():
    """The NumPy kernels working one sample at a time (their chunk loop at every step)."""
    from arraygrad_numpy import conv_kernels

    was = conv_kernels._CHUNK_BYTES
    conv_kernels._CHUNK_BYTES = 1
    conv_kernels._plan.cache_clear()
    yield
    conv_kernels._CHUNK_BYTES = was
    conv_kernels._plan.cache_clear()


@pytest.mark.parametrize("channels_first", [True, False])
@pytest.mark.parametrize("shape,wshape,kw", CASES)
def test_the_kernels_chunked_by_sample_are_pytorchs(one_sample_chunks, shape, wshape, kw,
                                                    channels_first):
    """A batch split into chunks (here one sample each) gives PyTorch's values and
    gradients: each chunk's windows, products and sums land in their own samples."""
    torch = pytest.importorskip("torch")
    shape = (3,) + tuple(shape[1:]) if len(shape) == len(wshape) else shape  # a batch of 3
    a, b, c = _arrays(shape, wshape, 3)
    ours = [ag.tensor(v, requires_grad=True) for v in (a, b, c)]
    theirs = [torch.tensor(v, requires_grad=True) for v in (a, b, c)]
    nd = len(wshape) - 2
    with _layout(channels_first):
        y = FNS[nd](*ours, **kw)
        (y * y).sum().backward()
    ty = getattr(torch.nn.functional, f"conv{nd}d")(*theirs, **kw)
    (ty * ty).sum().backward()
    for mine, want in zip([y] + [t.grad for t in ours], [ty] + [t.grad for t in theirs]):
        np.testing.assert_allclose(mine.detach().numpy(), want.detach().numpy(), rtol=1e-11,
                                   atol=1e-11)


def test_the_numpy_kernels_decline_what_they_do_not_serve():
    """float16 (and any non-float32/64 array) goes to the portable formulation."""
    from arraygrad_numpy import conv_kernels

    x = np.ones((1, 1, 4, 4), np.float16)
    w = np.ones((1, 1, 3, 3), np.float16)
    geom = ((3, 3), (1, 1), (1, 1), (0, 0), (2, 2))
    assert conv_kernels.conv_forward(x, w, geom, 1) is NotImplemented
    assert conv_kernels.conv_weight_grad(np.ones((1, 1, 2, 2), np.float16), x, geom, 1,
                                         (1, 1, 3, 3)) is NotImplemented
    half = F.conv2d(ag.tensor(x.astype(np.float32)).half(), ag.tensor(w.astype(np.float32)).half())
    assert half.dtype == ag.float16 and float(half.sum()) == 36.0


def test_a_compiled_conv_step_replays_the_kernels_and_equals_eager():
    """A compiled training step (convolutions with stride and dilation, a max pooling)
    writes each backend kernel's call down as one instruction, not the portable formulation
    (the recording backend hands the kernel out wrapped: it runs on the real arrays), replays
    with no graph break, and gives eager's gradients bit for bit."""
    from arraygrad.ops.rule import fast_paths

    def make():
        ag.manual_seed(0)
        model = ag.nn.Sequential(ag.nn.Conv2d(2, 4, 3, stride=2, padding=1), ag.nn.ReLU(),
                                 ag.nn.MaxPool2d(2, stride=1),
                                 ag.nn.Conv2d(4, 3, 2, groups=1, dilation=2))
        x = ag.randn(3, 2, 9, 9)

        def step():
            model.zero_grad()
            model(x).square().sum().backward()
            return [p.grad.clone() for p in model.parameters()]
        return step
    compiled, eager = ag.compile(make()), make()
    for _ in range(4):
        for a, b in zip(compiled(), eager()):
            assert np.array_equal(a.numpy(), b.numpy())
    assert compiled.stats["replays"] >= 2 and compiled.stats["eager"] == 0
    recorded = [e.program.rec for es in compiled._cache.values() for e in es
                if hasattr(e.program, "rec")]
    names = {getattr(ins.fn, "__name__", "") for rec in recorded for ins in rec.instrs}
    kernels = {"conv_forward", "conv_input_grad", "conv_weight_grad", "max_pool_forward",
               "max_pool_grad"}
    if fast_paths.on:
        assert kernels <= names, names
    else:  # reference mode: the portable twin, no kernel
        assert not kernels & names, names


@pytest.mark.parametrize("fn", [F.conv1d, F.conv2d, F.conv3d])
def test_a_bias_of_another_dtype_is_pytorchs_error(fn):
    """PyTorch refuses a bias whose dtype is not the input's (arraygrad promoted it, and a
    float32 input then got a float64 gradient)."""
    nd = {F.conv1d: 1, F.conv2d: 2, F.conv3d: 3}[fn]
    x = ag.randn(1, 2, *(5,) * nd, requires_grad=True)
    w = ag.randn(3, 2, *(3,) * nd)
    b = ag.randn(3, dtype=ag.float64)
    with pytest.raises(RuntimeError, match=r"^Input type \(float\) and bias type \(double\) "
                                           r"should be the same$"):
        fn(x, w, b)
