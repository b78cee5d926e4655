"""conv1d / conv2d / conv_transpose2d / unfold / fold: shapes, values against a direct loop
formula in float64 NumPy, gradcheck + gradgradcheck, and (if installed) PyTorch."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn._functional import conv as F

F64 = ag.float64


def _t(a, requires_grad=False):
    return ag.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def reference_conv2d(x, w, b, stride, padding, dilation, groups):
    """Direct definition: out[n, o, i, j] = sum_{c, p, q} xpad[n, c, i*s + p*d, j*s + q*d] w[o, c, p, q]."""
    sh, sw = stride
    (pt, pb), (pl, pr) = padding
    dh, dw = dilation
    n, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr))
    xp[:, :, pt:pt + h, pl:pl + wd] = x
    oh = (h + pt + pb - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + pl + pr - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, o, oh, ow))
    og = o // groups
    for bn in range(n):
        for oc in range(o):
            g = oc // og
            for i in range(oh):
                for j in range(ow):
                    acc = 0.0
                    for ci in range(cg):
                        for p in range(kh):
                            for q in range(kw):
                                acc += xp[bn, g * cg + ci, i * sh + p * dh, j * sw + q * dw] * w[oc, ci, p, q]
                    out[bn, oc, i, j] = acc + (0.0 if b is None else b[oc])
    return out


def reference_conv_transpose2d(x, w, stride, padding, output_padding, dilation, groups):
    """Scatter definition: each input pixel adds w * x at i*s + p*d - pad."""
    n, cin, h, wd = x.shape
    _, og, kh, kw = w.shape
    cg = cin // groups
    H = (h - 1) * stride[0] - 2 * padding[0] + dilation[0] * (kh - 1) + output_padding[0] + 1
    W = (wd - 1) * stride[1] - 2 * padding[1] + dilation[1] * (kw - 1) + output_padding[1] + 1
    out = np.zeros((n, og * groups, H, W))
    for bn in range(n):
        for ci in range(cin):
            g = ci // cg
            for i in range(h):
                for j in range(wd):
                    for oc in range(og):
                        for p in range(kh):
                            for q in range(kw):
                                y = i * stride[0] + p * dilation[0] - padding[0]
                                z = j * stride[1] + q * dilation[1] - padding[1]
                                if 0 <= y < H and 0 <= z < W:
                                    out[bn, g * og + oc, y, z] += x[bn, ci, i, j] * w[ci, oc, p, q]
    return out


CONV_CASES = [
    # (input shape, weight shape, kwargs, expected output shape)
    ((2, 3, 6, 5), (4, 3, 3, 3), {}, (2, 4, 4, 3)),
    ((2, 3, 6, 5), (4, 3, 3, 2), dict(stride=2, padding=1), (2, 4, 3, 3)),
    ((1, 4, 7, 7), (6, 2, 3, 3), dict(padding=(2, 1), dilation=(2, 1), groups=2), (1, 6, 7, 7)),
    ((1, 4, 5, 6), (4, 1, 2, 2), dict(groups=4, stride=(1, 2)), (1, 4, 4, 3)),
    ((2, 2, 5, 5), (3, 2, 2, 3), dict(padding="same", dilation=(1, 2)), (2, 3, 5, 5)),
    ((2, 2, 5, 5), (3, 2, 3, 3), dict(padding="valid"), (2, 3, 3, 3)),
]


def _pads(kwargs, w_shape):
    padding = kwargs.get("padding", 0)
    dil = kwargs.get("dilation", 1)
    dil = dil if isinstance(dil, tuple) else (dil, dil)
    if padding == "valid":
        return ((0, 0), (0, 0))
    if padding == "same":
        out = []
        for k, d in zip(w_shape[2:], dil):
            total = d * (k - 1)
            out.append((total // 2, total - total // 2))
        return tuple(out)
    p = padding if isinstance(padding, tuple) else (padding, padding)
    return ((p[0], p[0]), (p[1], p[1]))


@pytest.mark.parametrize("x_shape,w_shape,kwargs,out_shape", CONV_CASES)
def test_conv2d_shape_and_values_match_direct_formula(x_shape, w_shape, kwargs, out_shape):
    rng = np.random.default_rng(0)
    x, w, b = rng.standard_normal(x_shape), rng.standard_normal(w_shape), rng.standard_normal(w_shape[0])
    out = F.conv2d(_t(x), _t(w), _t(b), **kwargs)
    assert tuple(out.shape) == out_shape
    s = kwargs.get("stride", 1)
    d = kwargs.get("dilation", 1)
    ref = reference_conv2d(x, w, b, s if isinstance(s, tuple) else (s, s), _pads(kwargs, w_shape),
                           d if isinstance(d, tuple) else (d, d), kwargs.get("groups", 1))
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12, atol=1e-12)


def test_conv2d_unbatched_and_no_bias():
    x, w = ag.randn(3, 5, 5, dtype=F64), ag.randn(2, 3, 3, 3, dtype=F64)
    out = F.conv2d(x, w)
    assert tuple(out.shape) == (2, 3, 3)
    np.testing.assert_allclose(out.numpy(), F.conv2d(x.unsqueeze(0), w)[0].numpy())


def test_conv1d_values():
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal((2, 4, 9)), rng.standard_normal((6, 2, 3)), rng.standard_normal(6)
    out = F.conv1d(_t(x), _t(w), _t(b), stride=2, padding=1, dilation=2, groups=2)
    ref = reference_conv2d(x[:, :, None], w[:, :, None], b, (1, 2), ((0, 0), (1, 1)), (1, 2), 2)[:, :, 0]
    assert tuple(out.shape) == ref.shape == (2, 6, 4)
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12, atol=1e-12)
    assert tuple(F.conv1d(_t(x), _t(w), groups=2, padding="same").shape) == (2, 6, 9)


@pytest.mark.parametrize("kwargs", [
    {}, dict(stride=2, padding=1, output_padding=1),
    dict(stride=(2, 3), padding=(1, 0), dilation=2, groups=2, output_padding=(1, 0)),
])
def test_conv_transpose2d_values(kwargs):
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal((2, 4, 3, 4)), rng.standard_normal((4, 3, 3, 2)), rng.standard_normal(3)
    g = kwargs.get("groups", 1)
    out = F.conv_transpose2d(_t(x), _t(w), _t(b[:1].repeat(3 * g)), **kwargs)

    def pair(name, default):
        v = kwargs.get(name, default)
        return v if isinstance(v, tuple) else (v, v)

    ref = reference_conv_transpose2d(x, w, pair("stride", 1), pair("padding", 0),
                                     pair("output_padding", 0), pair("dilation", 1), g) + b[0]
    assert tuple(out.shape) == ref.shape
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12, atol=1e-12)


def test_conv_errors():
    with pytest.raises(RuntimeError, match="channels"):
        F.conv2d(ag.randn(1, 3, 5, 5), ag.randn(2, 2, 3, 3))
    with pytest.raises(RuntimeError, match="Expected 3D .unbatched. or 4D"):
        F.conv2d(ag.randn(5, 5), ag.randn(2, 1, 3, 3))
    with pytest.raises(RuntimeError, match="strided"):  # PyTorch: RuntimeError
        F.conv2d(ag.randn(1, 1, 5, 5), ag.randn(1, 1, 3, 3), stride=2, padding="same")
    with pytest.raises(RuntimeError, match="too small"):
        F.conv2d(ag.randn(1, 1, 2, 2), ag.randn(1, 1, 3, 3))
    with pytest.raises(RuntimeError, match="output padding"):
        F.conv_transpose2d(ag.randn(1, 1, 3, 3), ag.randn(1, 1, 3, 3), output_padding=1)


def test_unfold_fold_values_and_adjointness():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 5, 6))
    cols = F.unfold(_t(x), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
    # direct definition of one column
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    oh = (5 + 2 - 1 - 1) // 2 + 1
    ow = (6 + 2 - 4 - 1) // 1 + 1
    assert tuple(cols.shape) == (2, 3 * 6, oh * ow)
    i, j = 1, 2
    block = xp[:, :, i * 2:i * 2 + 2, j:j + 5:2].reshape(2, -1)
    np.testing.assert_allclose(cols.numpy()[:, :, i * ow + j], block)
    # fold is unfold's adjoint: <unfold(x), y> == <x, fold(y)>
    y = rng.standard_normal(tuple(cols.shape))
    back = F.fold(_t(y), (5, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
    assert tuple(back.shape) == x.shape
    np.testing.assert_allclose((cols.numpy() * y).sum(), (x * back.numpy()).sum(), rtol=1e-12)


def test_fold_rejects_wrong_block_count():
    with pytest.raises(RuntimeError, match="sliding blocks"):
        F.fold(ag.randn(1, 4, 5), (3, 3), 2)


# -- gradients ------------------------------------------------------------------------

def _r(*shape):
    return ag.randn(*shape, dtype=F64, requires_grad=True)


GRAD_CASES = [
    ("conv2d", lambda x, w, b: F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2)),
     [(1, 2, 4, 5), (2, 2, 2, 2), (2,)]),
    ("conv2d_groups", lambda x, w: F.conv2d(x, w, padding="same", groups=2), [(1, 4, 3, 3), (2, 2, 2, 2)]),
    ("conv1d", lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1), [(2, 2, 5), (3, 2, 2), (3,)]),
    ("conv_transpose2d", lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1,
                                                            output_padding=1),
     [(1, 2, 2, 3), (2, 2, 2, 2), (2,)]),
    ("conv_transpose2d_groups", lambda x, w: F.conv_transpose2d(x, w, groups=2, dilation=2),
     [(1, 2, 2, 2), (2, 1, 2, 2)]),
    ("unfold", lambda x: F.unfold(x, 2, padding=1, stride=2), [(1, 2, 3, 3)]),
    ("fold", lambda x: F.fold(x, (3, 3), 2, padding=1, stride=2), [(1, 8, 4)]),
]


@pytest.mark.parametrize("name,fn,shapes", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck_and_gradgradcheck(name, fn, shapes):
    ag.manual_seed(0)
    inputs = tuple(_r(*s) for s in shapes)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


def test_backend_kernel_hook_is_used(monkeypatch):
    x, w = ag.randn(1, 1, 4, 4), ag.randn(1, 1, 3, 3)
    seen = {}

    def kernel(input, weight, bias, stride, padding, dilation, groups):
        seen["args"] = (stride, padding, dilation, groups)
        return NotImplemented if seen.get("decline") else ag.zeros(1, 1, 4, 4)

    monkeypatch.setattr(type(x._backend), "kernel",
                        lambda self, name: kernel if name == "conv2d" else None)
    assert F.conv2d(x, w, padding=1).abs().sum().item() == 0
    assert seen["args"] == ((1, 1), ((1, 1), (1, 1)), (1, 1), 1)
    seen["decline"] = True
    assert F.conv2d(x, w, padding=1).abs().sum().item() > 0  # fell back to the portable path


# -- against PyTorch --------------------------------------------------------------------

@pytest.mark.parametrize("kwargs", [dict(stride=2, padding=1), dict(padding="same", dilation=2, groups=2)])
def test_conv2d_matches_torch(kwargs):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    x, w, b = rng.standard_normal((2, 4, 7, 6)), rng.standard_normal((6, 4 // kwargs.get("groups", 1), 3, 2)), rng.standard_normal(6)
    go = None
    ours = [_t(a, True) for a in (x, w, b)]
    theirs = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    out = F.conv2d(*ours, **kwargs)
    ref = torch.nn.functional.conv2d(*theirs, **kwargs)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    go = rng.standard_normal(tuple(ref.shape))
    (out * _t(go)).sum().backward()
    (ref * torch.tensor(go)).sum().backward()
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_conv_transpose2d_and_fold_match_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((2, 4, 3, 4)), rng.standard_normal((4, 3, 3, 2))
    kw = dict(stride=(2, 3), padding=(1, 0), dilation=2, groups=2, output_padding=(1, 0))
    xa, wa = _t(x, True), _t(w, True)
    xt, wt = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    out, ref = F.conv_transpose2d(xa, wa, **kw), torch.nn.functional.conv_transpose2d(xt, wt, **kw)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(wa.grad.numpy(), wt.grad.numpy(), rtol=1e-10, atol=1e-12)
    cols = rng.standard_normal((2, 18, 16))
    np.testing.assert_allclose(
        F.fold(_t(cols), (7, 6), (2, 3), dilation=(1, 2), padding=1, stride=(2, 1)).numpy(),
        torch.nn.functional.fold(torch.tensor(cols), (7, 6), (2, 3), dilation=(1, 2), padding=1,
                                 stride=(2, 1)).numpy())
