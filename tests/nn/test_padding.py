"""F.pad in every mode for 1, 2 and 3 padded dims and the padding layers: values against
NumPy's ``np.pad`` (and a direct definition for negative amounts), PyTorch's rules and error
classes, gradcheck + gradgradcheck, and (if installed) PyTorch on random pads."""

from __future__ import annotations

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
NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _t(a, requires_grad=False):
    return ag.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def _a(t):
    return np.asarray(t.detach().numpy(), dtype=np.float64)


def _np_widths(ndim, pad):
    """F.pad's (last_lo, last_hi, prev_lo, ...) as np.pad's per-dimension pairs."""
    widths = [(0, 0)] * ndim
    for i in range(len(pad) // 2):
        widths[ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
    return widths


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", [((2, 3, 5), (2, 3)), ((3, 5), (1, 4)),
                                       ((2, 3, 4, 5), (1, 2, 3, 0)), ((3, 4, 5), (0, 4, 2, 1)),
                                       ((1, 2, 3, 4, 5), (1, 2, 2, 1, 2, 0)),
                                       ((2, 3, 4, 4), (3, 3, 1, 2, 0, 1))])
def test_positive_pads_match_numpy(mode, shape, pad):
    x = np.random.default_rng(len(shape)).standard_normal(shape)
    kw = dict(value=2.5) if mode == "constant" else {}
    out = F.pad(_t(x), pad, mode=mode, **kw)
    ref = np.pad(x, _np_widths(x.ndim, pad), mode=NP_MODE[mode],
                 **(dict(constant_values=2.5) if mode == "constant" else {}))
    np.testing.assert_array_equal(_a(out), ref)


def _direct(x, pad, mode):
    """Direct definition along the last dim: PyTorch crops negative amounts first (after
    reading reflect/replicate positions relative to the uncropped input)."""
    n = x.shape[-1]
    lo, hi = pad
    if mode == "circular":
        start, kept = max(-lo, 0), n - max(-lo, 0) - max(-hi, 0)
        src = [start + i % kept for i in range(-max(lo, 0), kept + max(hi, 0))]
    elif mode == "replicate":
        src = [min(max(i, 0), n - 1) for i in range(-lo, n + hi)]
    else:  # reflect
        src = [abs(i) if i < n else 2 * (n - 1) - i for i in range(-lo, n + hi)]
    return x[..., src]


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("pad", [(-1, 2), (2, -1), (-2, -1), (3, -3), (-3, 3)])
def test_negative_pads_crop(mode, pad):
    x = np.arange(2 * 4, dtype=np.float64).reshape(2, 4)
    if mode == "reflect" and max(pad) >= 4:
        pytest.skip("reflect needs pad < size")
    np.testing.assert_array_equal(_a(F.pad(_t(x), pad, mode=mode)), _direct(x, pad, mode))


def test_constant_negative_pads_crop_and_value_fills():
    x = np.arange(12.0).reshape(3, 4)
    out = F.pad(_t(x), (-1, 2, 1, -2), value=-7.0)
    ref = np.full((2, 5), -7.0)
    ref[1:, :3] = x[:1, 1:]
    np.testing.assert_array_equal(_a(out), ref)
    assert tuple(F.pad(_t(x), (-3, -1)).shape) == (3, 0)
    assert tuple(F.pad(_t(x[None]), (1,) * 6).shape) == (3, 5, 6)  # constant: every dim
    ints = F.pad(ag.tensor([[1, 2]]), (1, 0), value=3)
    assert ints.dtype == ag.int64 and ints.tolist() == [[3, 1, 2]]
    assert F.pad(_t(x), [1, 1], mode="replicate", value=0).shape == (3, 6)  # a zero value is fine


def test_pad_errors_are_pytorchs():
    x = ag.randn(2, 3, 4)
    with pytest.raises(NotImplementedError, match="Padding size 6 is not supported for 3D"):
        F.pad(x, (1,) * 6, mode="reflect")
    with pytest.raises(NotImplementedError, match="Padding size 2 is not supported for 1D"):
        F.pad(ag.randn(4), (1, 1), mode="replicate")
    with pytest.raises(NotImplementedError, match="Padding size 2 is not supported for 6D"):
        F.pad(ag.randn(1, 1, 1, 1, 1, 2), (1, 1), mode="circular")
    with pytest.raises(RuntimeError, match=r"Argument #4: Padding size should be less than the "
                                           r"corresponding input dimension, but got: padding "
                                           r"\(4, 1\) at dimension 2"):
        F.pad(x, (4, 1), mode="reflect")
    with pytest.raises(RuntimeError, match=r"Argument #6.*padding \(5, 1\) at dimension 2"):
        F.pad(ag.randn(2, 3, 4, 5), (1, 1, 5, 1), mode="reflect")
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        F.pad(x, (5, 1), mode="circular")
    with pytest.raises(RuntimeError, match="resulting in an empty dimension"):
        F.pad(x, (-2, -3), mode="circular")
    with pytest.raises(RuntimeError, match="is too small. Calculated output W: 0"):
        F.pad(x, (-2, -2), mode="replicate")
    with pytest.raises(RuntimeError, match="other non-zero dimensions"):
        F.pad(ag.randn(2, 0, 4), (1, 1), mode="reflect")
    with pytest.raises(RuntimeError, match="doesn't take in value argument"):
        F.pad(x, (1, 1), mode="reflect", value=2.0)
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode foo"):
        F.pad(x, (1, 1), mode="foo")
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(x, (1, 1, 1))
    with pytest.raises(RuntimeError, match="Padding length should be less than or equal"):
        F.pad(x, (1,) * 8)
    with pytest.raises(TypeError, match="must be tuple of ints"):
        F.pad(x, (1.5, 1))
    with pytest.raises(RuntimeError, match="negative size"):
        F.pad(x, (-5, 1))
    # allowed: empty batch for reflect, empty non-padded dims for circular
    assert tuple(F.pad(ag.randn(0, 3, 4), (1, 1), mode="reflect").shape) == (0, 3, 6)
    assert tuple(F.pad(ag.randn(2, 0, 4), (1, 1), mode="circular").shape) == (2, 0, 6)


GRAD_CASES = [
    ("reflect1d", lambda x: F.pad(x, (2, 1), mode="reflect"), (2, 4)),
    ("replicate2d", lambda x: F.pad(x, (1, 2, 2, -1), mode="replicate"), (1, 3, 3)),
    ("circular3d", lambda x: F.pad(x, (1, 1, 2, 0, 0, 1), mode="circular"), (1, 1, 2, 2, 2)),
    ("constant", lambda x: F.pad(x, (1, -1, 2, 0), value=3.0), (2, 3)),
]


@pytest.mark.parametrize("name,fn,shape", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck_and_gradgradcheck(name, fn, shape):
    ag.manual_seed(2)
    x = ag.randn(*shape, dtype=F64, requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_reflect_gradient_sums_over_mirrored_copies():
    x = _t([[1.0, 2.0, 3.0]], requires_grad=True)
    F.pad(x, (2, 2), mode="reflect").sum().backward()  # [3 2 | 1 2 3 | 2 1]
    assert x.grad.tolist() == [[2.0, 3.0, 2.0]]


LAYERS = [
    ("ZeroPad1d", (2,), (2, 3, 4)), ("ZeroPad2d", ((1, 2, 0, 3),), (2, 3, 4)),
    ("ZeroPad3d", (1,), (1, 2, 2, 3, 4)), ("ConstantPad1d", ((1, 2), 3.5), (3, 4)),
    ("ConstantPad2d", (2, -1.0), (2, 3, 4)), ("ConstantPad3d", ((1, 0, 2, 1, 0, 1), 0.5),
                                              (2, 2, 3, 4)),
    ("ReflectionPad1d", (2,), (2, 3, 4)), ("ReflectionPad2d", ((1, 2, 2, 0),), (3, 4, 5)),
    ("ReflectionPad3d", (1,), (1, 2, 2, 3, 4)), ("ReplicationPad1d", ((3, 1),), (3, 4)),
    ("ReplicationPad2d", (2,), (1, 2, 3, 4)), ("ReplicationPad3d", ((1, 2, 0, 1, 2, 0),),
                                               (2, 2, 3, 4)),
    ("CircularPad1d", (2,), (2, 3, 4)), ("CircularPad2d", ((1, 2, 2, 0),), (3, 4, 5)),
    ("CircularPad3d", (1,), (1, 2, 2, 3, 4)),
]


def test_layers_pad_with_their_mode():
    x = np.random.default_rng(0).standard_normal((2, 3, 4))
    np.testing.assert_array_equal(_a(nn.ReflectionPad1d((1, 2))(_t(x))),
                                  np.pad(x, ((0, 0), (0, 0), (1, 2)), mode="reflect"))
    np.testing.assert_array_equal(_a(nn.ConstantPad2d(1, 9.0)(_t(x))),
                                  np.pad(x, ((0, 0), (1, 1), (1, 1)), constant_values=9.0))
    m = nn.ZeroPad2d(2)
    assert m.padding == (2, 2, 2, 2) and m.value == 0.0 and isinstance(m, nn.ConstantPad2d)
    assert repr(m) == "ZeroPad2d((2, 2, 2, 2))"
    assert repr(nn.ConstantPad1d(1, 2.0)) == "ConstantPad1d(padding=(1, 1), value=2.0)"
    assert repr(nn.CircularPad3d(1)) == "CircularPad3d((1, 1, 1, 1, 1, 1))"


@needs_torch
@pytest.mark.parametrize("name,args,xs", LAYERS, ids=[c[0] for c in LAYERS])
def test_layers_match_torch(name, args, xs):
    ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(ours) == repr(theirs)
    assert ours.padding == theirs.padding
    x = np.random.default_rng(1).standard_normal(xs)
    np.testing.assert_array_equal(_a(ours(_t(x))), theirs(torch.tensor(x)).numpy())


@st.composite
def _pad_setup(draw):
    mode = draw(st.sampled_from(["constant", "reflect", "replicate", "circular"]))
    k = draw(st.integers(1, 3))
    batched = draw(st.booleans())
    sizes = [draw(st.integers(1, 4)) for _ in range(k)]
    lead = [draw(st.integers(1, 2)) for _ in range(1 + batched)]
    pad = []
    for size in reversed(sizes):
        for _ in range(2):
            if mode == "reflect":
                pad.append(draw(st.integers(-(size - 1) // 2, size - 1)))
            elif mode == "circular":
                pad.append(draw(st.integers(-(size // 2), size // 2)))
            else:
                pad.append(draw(st.integers(-(size // 2), 3)))
    return mode, tuple(lead + sizes), tuple(pad), draw(st.integers(0, 2**31))


@needs_torch
@settings(max_examples=40, deadline=None)
@given(_pad_setup())
def test_pad_matches_torch_on_random_pads(setup):
    mode, shape, pad, seed = setup
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    t = torch.tensor(x, requires_grad=True)
    try:
        ref = torch.nn.functional.pad(t, pad, mode=mode)
    except RuntimeError as exc:  # e.g. a crop that empties a dimension: we refuse it too
        with pytest.raises(RuntimeError):
            F.pad(_t(x), pad, mode=mode)
        assert str(exc)
        return
    a = _t(x, True)
    out = F.pad(a, pad, mode=mode)
    np.testing.assert_array_equal(_a(out), ref.detach().numpy())
    if ref.numel():
        go = rng.standard_normal(tuple(ref.shape))
        (out * _t(go)).sum().backward()
        (ref * torch.tensor(go)).sum().backward()
        np.testing.assert_allclose(_a(a.grad), t.grad.numpy(), rtol=1e-12, atol=1e-12)
