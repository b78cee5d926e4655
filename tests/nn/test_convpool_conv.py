"""conv1d/2d/3d and conv_transpose1d/2d/3d for every number of spatial dims, Conv3d and the
ConvTranspose layers, Fold/Unfold: values against direct N-d loops in float64 NumPy,
gradcheck + gradgradcheck, errors, and (if installed) PyTorch on random shapes (values,
gradients, state_dict loads)."""

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
CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
CONV_T = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


def _t(a, requires_grad=False):
    return ag.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def _a(t):
    return np.asarray(t.detach().numpy(), dtype=np.float64)


# -- independent references: direct loops over output positions and kernel offsets ----------

def reference_conv(x, w, b, stride, pads, dilation, groups):
    """out[n, o, *i] = sum_{c, *k} xpad[n, g*cg + c, *(i*s + k*d)] * w[o, c, *k] + b[o]."""
    nd = x.ndim - 2
    xp = np.pad(x, ((0, 0), (0, 0)) + tuple(pads))
    kernel = w.shape[2:]
    out_sizes = [(xp.shape[2 + a] - dilation[a] * (kernel[a] - 1) - 1) // stride[a] + 1
                 for a in range(nd)]
    o, cg = w.shape[:2]
    og = o // groups
    out = np.zeros((x.shape[0], o, *out_sizes))
    for oc in range(o):
        g = oc // og
        for pos in itertools.product(*(range(s) for s in out_sizes)):
            acc = np.zeros(x.shape[0])
            for c in range(cg):
                for k in itertools.product(*(range(s) for s in kernel)):
                    src = tuple(pos[a] * stride[a] + k[a] * dilation[a] for a in range(nd))
                    acc += xp[(slice(None), g * cg + c) + src] * w[(oc, c) + k]
            out[(slice(None), oc) + pos] = acc + (0.0 if b is None else b[oc])
    return out


def reference_conv_transpose(x, w, b, stride, padding, output_padding, dilation, groups):
    """Scatter definition: each input element adds ``x * w`` at ``i*s + k*d - pad``."""
    nd = x.ndim - 2
    cin, og = w.shape[:2]
    kernel = w.shape[2:]
    cg = cin // groups
    sizes = [(x.shape[2 + a] - 1) * stride[a] - 2 * padding[a] + dilation[a] * (kernel[a] - 1)
             + output_padding[a] + 1 for a in range(nd)]
    out = np.zeros((x.shape[0], og * groups, *sizes))
    for ci in range(cin):
        g = ci // cg
        for pos in itertools.product(*(range(s) for s in x.shape[2:])):
            for oc in range(og):
                for k in itertools.product(*(range(s) for s in kernel)):
                    dst = tuple(pos[a] * stride[a] + k[a] * dilation[a] - padding[a]
                                for a in range(nd))
                    if all(0 <= dst[a] < sizes[a] for a in range(nd)):
                        out[(slice(None), g * og + oc) + dst] += (
                            x[(slice(None), ci) + pos] * w[(ci, oc) + k])
    if b is not None:
        out += b.reshape(1, -1, *(1,) * nd)
    return out


CONV_CASES = [
    # (spatial, x shape, w shape, kwargs)
    (1, (2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, dilation=2, groups=2)),
    (3, (2, 2, 4, 5, 4), (3, 2, 2, 3, 2), dict(stride=(1, 2, 1), padding=(1, 0, 1))),
    (3, (1, 4, 4, 4, 5), (2, 2, 2, 2, 3), dict(padding="same", dilation=(1, 2, 1), groups=2)),
    (3, (2, 4, 3, 4), (3, 2, 2, 2, 2), dict(padding="valid")),  # unbatched (C, D, H, W)
]


@pytest.mark.parametrize("spatial,xs,ws,kwargs", CONV_CASES)
def test_conv_nd_matches_direct_loop(spatial, xs, ws, kwargs):
    rng = np.random.default_rng(spatial)
    x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])
    out = CONV[spatial](_t(x), _t(w), _t(b), **kwargs)
    unbatched = len(xs) == spatial + 1
    xb = x[None] if unbatched else x
    pad = kwargs.get("padding", 0)
    dil = kwargs.get("dilation", 1)
    dil = dil if isinstance(dil, tuple) else (dil,) * spatial
    if pad == "same":
        pads = [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for d, k in zip(dil, ws[2:])]
    elif pad == "valid":
        pads = [(0, 0)] * spatial
    else:
        pads = [(p, p) for p in (pad if isinstance(pad, tuple) else (pad,) * spatial)]
    s = kwargs.get("stride", 1)
    ref = reference_conv(xb, w, b, s if isinstance(s, tuple) else (s,) * spatial, pads, dil,
                         kwargs.get("groups", 1))
    np.testing.assert_allclose(_a(out), ref[0] if unbatched else ref, rtol=1e-10, atol=1e-12)


CONV_T_CASES = [
    (1, (2, 4, 5), (4, 3, 3), dict(stride=3, padding=1, output_padding=2, groups=2, dilation=2)),
    (3, (1, 2, 2, 3, 2), (2, 2, 2, 2, 3), dict(stride=(2, 1, 2), padding=(1, 0, 0),
                                               output_padding=(1, 0, 1))),
    (3, (4, 2, 2, 2), (4, 1, 2, 1, 2), dict(groups=2, dilation=(2, 1, 1))),  # unbatched
]


@pytest.mark.parametrize("spatial,xs,ws,kwargs", CONV_T_CASES)
def test_conv_transpose_nd_matches_scatter_definition(spatial, xs, ws, kwargs):
    rng = np.random.default_rng(10 + spatial)
    groups = kwargs.get("groups", 1)
    x, w, b = rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[1] * groups)
    out = CONV_T[spatial](_t(x), _t(w), _t(b), **kwargs)
    unbatched = len(xs) == spatial + 1

    def tup(v, default):
        v = kwargs.get(v, default)
        return v if isinstance(v, tuple) else (v,) * spatial

    ref = reference_conv_transpose(x[None] if unbatched else x, w, b, tup("stride", 1),
                                   tup("padding", 0), tup("output_padding", 0),
                                   tup("dilation", 1), groups)
    np.testing.assert_allclose(_a(out), ref[0] if unbatched else ref, rtol=1e-10, atol=1e-12)


def test_conv_transpose_is_the_adjoint_of_conv():
    """<conv(x), y> == <x, conv_transpose(y)> for the same weight (the defining identity)."""
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((2, 4, 5, 4, 6)), rng.standard_normal((6, 2, 2, 3, 2))
    kw = dict(stride=(2, 1, 2), padding=(1, 1, 0), dilation=(1, 1, 2), groups=2)
    y = F.conv3d(_t(x), _t(w), **kw)
    g = rng.standard_normal(tuple(y.shape))
    xt = F.conv_transpose3d(_t(g), _t(w), **kw, output_padding=(1, 0, 1))
    assert tuple(xt.shape) == x.shape
    np.testing.assert_allclose((_a(y) * g).sum(), (x * _a(xt)).sum(), rtol=1e-10)


def _r(*shape):
    return ag.randn(*shape, dtype=F64, requires_grad=True)


GRAD_CASES = [
    ("conv3d", lambda x, w, b: F.conv3d(x, w, b, stride=(2, 1, 1), padding=1, dilation=(1, 1, 2)),
     [(1, 2, 3, 3, 4), (2, 2, 2, 1, 2), (2,)]),
    ("conv3d_same_groups", lambda x, w: F.conv3d(x, w, padding="same", groups=2),
     [(1, 4, 2, 3, 2), (2, 2, 2, 2, 1)]),
    ("conv_transpose1d", lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1,
                                                            output_padding=1, groups=2),
     [(2, 2, 3), (2, 2, 3), (4,)]),
    ("conv_transpose3d", lambda x, w, b: F.conv_transpose3d(x, w, b, stride=(2, 1, 1),
                                                            dilation=(1, 2, 1)),
     [(1, 2, 2, 2, 2), (2, 1, 2, 2, 1), (1,)]),
]


@pytest.mark.parametrize("name,fn,shapes", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck_and_gradgradcheck(name, fn, shapes):
    ag.manual_seed(0)
    inputs = tuple(_r(*s) for s in shapes)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_conv_errors_are_pytorchs():
    x = ag.randn(1, 2, 4, 4, 4)
    w = ag.randn(3, 2, 2, 2, 2)
    with pytest.raises(RuntimeError, match="Expected 4D .unbatched. or 5D"):
        F.conv3d(ag.randn(2, 4, 4), w)
    with pytest.raises(RuntimeError, match="5-dimensional weight"):
        F.conv3d(x, ag.randn(3, 2, 2, 2))
    with pytest.raises(RuntimeError, match="expected weight to be divisible by 2"):
        F.conv3d(x, w, groups=2)
    with pytest.raises(RuntimeError, match="to have 4 channels, but got 2"):
        F.conv3d(x, ag.randn(4, 2, 2, 2, 2), groups=2)
    with pytest.raises(RuntimeError, match="expected bias to be 1-dimensional with 3"):
        F.conv3d(x, w, ag.randn(2))
    with pytest.raises(RuntimeError, match="strided"):
        F.conv3d(x, w, padding="same", stride=2)
    with pytest.raises(RuntimeError, match="Invalid padding string"):
        F.conv3d(x, w, padding="full")
    with pytest.raises(RuntimeError, match="negative padding"):
        F.conv3d(x, w, padding=-1)
    with pytest.raises(RuntimeError, match="list of 3 values"):
        F.conv3d(x, w, stride=(1, 1))
    with pytest.raises(RuntimeError, match="non-positive stride"):
        F.conv3d(x, w, stride=0)
    with pytest.raises(RuntimeError, match="too small"):
        F.conv3d(x, ag.randn(3, 2, 5, 1, 1))
    with pytest.raises(RuntimeError, match="transposed=1.*expected input.*to have 2 channels"):
        F.conv_transpose1d(ag.randn(1, 3, 4), ag.randn(2, 2, 2))
    with pytest.raises(RuntimeError, match="output padding must be smaller"):
        F.conv_transpose3d(x, ag.randn(2, 3, 2, 2, 2), stride=2, output_padding=(0, 2, 0))
    with pytest.raises(RuntimeError, match="transposed=1.*expected bias"):
        F.conv_transpose3d(x, ag.randn(2, 3, 2, 2, 2), ag.randn(2))
    with pytest.raises(RuntimeError, match="too small"):
        F.conv_transpose1d(ag.randn(1, 2, 1), ag.randn(2, 1, 1), padding=1)


# -- layers ---------------------------------------------------------------------------------

def test_layer_shapes_defaults_and_repr():
    m = nn.Conv3d(2, 4, (1, 2, 3), padding="same", padding_mode="reflect", bias=False)
    assert tuple(m.weight.shape) == (4, 2, 1, 2, 3) and m.bias is None
    assert repr(m) == ("Conv3d(2, 4, kernel_size=(1, 2, 3), stride=(1, 1, 1), padding=same, "
                       "bias=False, padding_mode=reflect)")
    t = nn.ConvTranspose3d(2, 4, 3, stride=2, output_padding=1, groups=2)
    assert tuple(t.weight.shape) == (2, 2, 3, 3, 3) and tuple(t.bias.shape) == (4,)
    assert repr(t) == ("ConvTranspose3d(2, 4, kernel_size=(3, 3, 3), stride=(2, 2, 2), "
                       "output_padding=(1, 1, 1), groups=2)")
    t1 = nn.ConvTranspose1d(3, 2, 4)
    assert tuple(t1.weight.shape) == (3, 2, 4)
    # default init bound: 1/sqrt(fan_in) with fan_in = weight.shape[1] * prod(kernel)
    bound = 1 / math.sqrt(2 * 4)
    assert float(t1.weight.abs().max()) <= bound and float(t1.bias.abs().max()) <= bound
    with pytest.raises(ValueError, match='Only "zeros" padding mode'):
        nn.ConvTranspose1d(2, 2, 3, padding_mode="circular")
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        nn.Conv3d(2, 3, 1, groups=2)


def test_conv_transpose_output_size_picks_output_padding():
    m = nn.ConvTranspose3d(2, 2, 3, stride=(2, 3, 1), padding=1).double()
    x = ag.randn(1, 2, 3, 3, 3, dtype=F64)
    assert tuple(m(x).shape) == (1, 2, 5, 7, 3)  # (n - 1) * s - 2 * p + (k - 1) + 1
    assert tuple(m(x, output_size=(6, 9, 3)).shape) == (1, 2, 6, 9, 3)
    assert tuple(m(x[0], output_size=[2, 6, 8, 3]).shape) == (2, 6, 8, 3)  # unbatched, with C
    with pytest.raises(ValueError, match="valid sizes range from"):
        m(x, output_size=(7, 7, 3))
    with pytest.raises(ValueError, match="output_size must have 3 or 5 elements"):
        m(x, output_size=(6, 7))
    m1 = nn.ConvTranspose1d(1, 1, 2, stride=3)
    assert tuple(m1(ag.randn(1, 1, 4), output_size=[12]).shape) == (1, 1, 12)


@pytest.mark.parametrize("mode", ["zeros", "reflect", "replicate", "circular"])
def test_conv3d_padding_modes_pad_first(mode):
    m = nn.Conv3d(1, 2, 3, padding=(1, 2, 1), padding_mode=mode).double()
    x = ag.randn(1, 1, 3, 4, 3, dtype=F64)
    np_mode = {"zeros": "constant", "reflect": "reflect", "replicate": "edge",
               "circular": "wrap"}[mode]
    xp = np.pad(_a(x), ((0, 0), (0, 0), (1, 1), (2, 2), (1, 1)), mode=np_mode)
    ref = reference_conv(xp, _a(m.weight), _a(m.bias), (1, 1, 1), [(0, 0)] * 3, (1, 1, 1), 1)
    np.testing.assert_allclose(_a(m(x)), ref, rtol=1e-10, atol=1e-12)
    valid = nn.Conv3d(1, 2, 3, padding="valid", padding_mode=mode).double()  # pads nothing
    ref = reference_conv(_a(x), _a(valid.weight), _a(valid.bias), (1, 1, 1), [(0, 0)] * 3,
                         (1, 1, 1), 1)
    np.testing.assert_allclose(_a(valid(x)), ref, rtol=1e-10, atol=1e-12)


def test_fold_unfold_layers():
    u = nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
    f = nn.Fold((5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
    assert repr(u) == "Unfold(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1))"
    assert repr(f) == ("Fold(output_size=(5, 6), kernel_size=(2, 3), dilation=(1, 2), "
                       "padding=1, stride=(2, 1))")
    x = ag.randn(2, 3, 5, 6, dtype=F64)
    cols = u(x)
    assert tuple(cols.shape) == (2, 18, 3 * 4)
    # fold(unfold(x)) multiplies each element by how many blocks cover it
    ones = f(u(ag.ones(1, 1, 5, 6, dtype=F64)))
    np.testing.assert_allclose(_a(f(cols)), _a(x) * _a(ones), rtol=1e-12)
    assert tuple(u(x[0]).shape) == (18, 12) and tuple(f(cols[0]).shape) == (3, 5, 6)


def test_fold_unfold_errors():
    x = ag.randn(2, 3, 5, 6)
    with pytest.raises(RuntimeError, match="Expected 3D or 4D"):
        F.unfold(ag.randn(2, 3, 4, 5, 6), 2)
    with pytest.raises(RuntimeError, match="Expected 3D or 4D"):
        F.unfold(ag.randn(2, 0, 5, 6), 2)
    with pytest.raises(RuntimeError, match="kernel_size equals to 2"):
        F.unfold(x, (2, 2, 2))
    with pytest.raises(RuntimeError, match="kernel size should be greater than zero"):
        F.unfold(x, 0)
    with pytest.raises(RuntimeError, match="stride should be greater than zero"):
        F.unfold(x, 2, stride=0)
    with pytest.raises(RuntimeError, match="dilation should be greater than zero"):
        F.unfold(x, 2, dilation=0)
    with pytest.raises(RuntimeError, match="padding should be non-negative"):
        F.unfold(x, 2, padding=-1)
    with pytest.raises(RuntimeError, match="must be at least one"):
        F.unfold(x, 7)
    y = F.unfold(x, 2)
    with pytest.raises(RuntimeError, match="Expected 2D or 3D"):
        F.fold(y.unsqueeze(0), (5, 6), 2)
    with pytest.raises(RuntimeError, match="output_size equals to 2"):
        F.fold(y, (5, 6, 1), 2)
    with pytest.raises(RuntimeError, match="divisible by the product of kernel_size"):
        F.fold(y, (5, 6), 3)
    with pytest.raises(RuntimeError, match="sliding blocks 4 \\* 6 = 24"):
        F.fold(y, (5, 7), 2)
    with pytest.raises(RuntimeError, match="sliding blocks 0 \\* 0 = 0"):
        F.fold(y, (1, 1), 2)


# -- against PyTorch --------------------------------------------------------------------------

def _compare_with_grads(ours_fn, theirs_fn, arrays, rng):
    ours = [_t(a, True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, ref = ours_fn(*ours), theirs_fn(*theirs)
    np.testing.assert_allclose(_a(out), ref.detach().numpy(), rtol=1e-9, atol=1e-11)
    go = rng.standard_normal(tuple(ref.shape))
    (out * _t(go)).sum().backward()
    (ref * torch.tensor(go)).sum().backward()
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(_a(a.grad), t.grad.numpy(), rtol=1e-9, atol=1e-11)


@st.composite
def _conv_setup(draw, transposed=False):
    spatial = draw(st.integers(1, 3))
    groups = draw(st.integers(1, 2))
    cg_in, cg_out = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    kernel = tuple(draw(st.integers(1, 3)) for _ in range(spatial))
    stride = tuple(draw(st.integers(1, 2)) for _ in range(spatial))
    dilation = tuple(draw(st.integers(1, 2)) for _ in range(spatial))
    padding = tuple(draw(st.integers(0, 1)) for _ in range(spatial))
    sizes = tuple(draw(st.integers(d * (k - 1) + 1, d * (k - 1) + 4))
                  for k, d in zip(kernel, dilation))
    n = draw(st.integers(1, 2))
    kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    if transposed:
        kw["output_padding"] = tuple(draw(st.integers(0, max(s, d) - 1))
                                     for s, d in zip(stride, dilation))
        wshape = (cg_in * groups, cg_out) + kernel
        if any((i - 1) * s - 2 * p + d * (k - 1) + 1 <= 0 for i, s, p, d, k
               in zip(sizes, stride, padding, dilation, kernel)):
            kw["padding"] = 0  # the output would be empty: PyTorch refuses it too
    else:
        if draw(st.booleans()):
            kw["padding"] = "same"
            kw["stride"] = 1
        wshape = (cg_out * groups, cg_in) + kernel
    return spatial, (n, cg_in * groups) + sizes, wshape, kw, draw(st.integers(0, 2**31))


@needs_torch
@pytest.mark.filterwarnings("ignore:Using padding='same'")  # PyTorch's note on its own copy
@settings(max_examples=25, deadline=None)
@given(_conv_setup())
def test_conv_matches_torch_on_random_shapes(setup):
    spatial, xs, ws, kw, seed = setup
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(xs), rng.standard_normal(ws), rng.standard_normal(ws[0])]
    tf = {1: torch.nn.functional.conv1d, 2: torch.nn.functional.conv2d,
          3: torch.nn.functional.conv3d}[spatial]
    _compare_with_grads(lambda x, w, b: CONV[spatial](x, w, b, **kw),
                        lambda x, w, b: tf(x, w, b, **kw), arrays, rng)


@needs_torch
@settings(max_examples=25, deadline=None)
@given(_conv_setup(transposed=True))
def test_conv_transpose_matches_torch_on_random_shapes(setup):
    spatial, xs, ws, kw, seed = setup
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(xs), rng.standard_normal(ws),
              rng.standard_normal(ws[1] * kw["groups"])]
    tf = {1: torch.nn.functional.conv_transpose1d, 2: torch.nn.functional.conv_transpose2d,
          3: torch.nn.functional.conv_transpose3d}[spatial]
    _compare_with_grads(lambda x, w, b: CONV_T[spatial](x, w, b, **kw),
                        lambda x, w, b: tf(x, w, b, **kw), arrays, rng)


LAYERS = [
    ("Conv1d", (2, 3, 3), dict(padding="valid", padding_mode="reflect"), (2, 2, 6)),
    ("Conv3d", (2, 4, (2, 3, 1)), dict(stride=(1, 2, 1), padding=1, groups=2,
                                       padding_mode="circular"), (2, 2, 4, 5, 3)),
    ("Conv3d", (2, 3, 3), dict(padding="same", dilation=(1, 2, 1), padding_mode="replicate"),
     (2, 4, 6, 5)),
    ("ConvTranspose1d", (4, 2, 3), dict(stride=2, padding=1, output_padding=1, groups=2),
     (2, 4, 5)),
    ("ConvTranspose3d", (2, 3, (2, 1, 3)), dict(stride=2, dilation=(1, 1, 2), bias=False),
     (1, 2, 2, 3, 2)),
]


@needs_torch
@pytest.mark.parametrize("name,args,kwargs,xs", LAYERS)
def test_layers_load_torch_state_dict(name, args, kwargs, xs):
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(*args, **kwargs).double()
    ours = getattr(nn, name)(*args, **kwargs).double()
    assert repr(ours) == repr(theirs)
    assert set(ours.state_dict()) == set(theirs.state_dict())
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(1).standard_normal(xs)
    np.testing.assert_allclose(_a(ours(_t(x))), theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-10, atol=1e-12)


@needs_torch
def test_layer_init_matches_torch_fan_in():
    """The default init draws from U(-1/sqrt(fan_in), 1/sqrt(fan_in)) with PyTorch's fan_in."""
    for name, args in [("Conv3d", (4, 6, (2, 3, 1))), ("ConvTranspose1d", (4, 6, 3)),
                       ("ConvTranspose3d", (3, 4, 2))]:
        ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
        fan_in = torch.nn.init._calculate_fan_in_and_fan_out(theirs.weight)[0]
        bound = 1 / math.sqrt(fan_in)
        assert tuple(ours.weight.shape) == tuple(theirs.weight.shape)
        assert float(ours.weight.abs().max()) <= bound
        assert float(ours.weight.abs().max()) > 0.5 * bound  # spread over the whole range
        assert float(ours.bias.abs().max()) <= bound
