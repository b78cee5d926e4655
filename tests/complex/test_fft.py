"""``arraygrad.fft`` against PyTorch: every transform, each ``norm`` mode, ``n``/``s``/``dim``,
real and complex inputs, values and gradients; gradients also by finite differences; PyTorch's
errors; ``stft``/``istft``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from tests.complex.torch_pairs import as_numpy, needs_torch, torch

REAL = np.random.default_rng(0).standard_normal((3, 8))
COMPLEX = REAL + 1j * np.random.default_rng(1).standard_normal((3, 8))

CALLS = [  # (name, keywords, input kinds)
    ("fft", {}, "rc"), ("fft", {"n": 5, "dim": 0}, "rc"), ("fft", {"n": 11}, "rc"),
    ("ifft", {"n": 6}, "rc"), ("fft2", {}, "rc"), ("ifft2", {"s": (2, 9)}, "rc"),
    ("fftn", {"s": (4, 6)}, "rc"), ("ifftn", {"dim": (0,)}, "rc"), ("fftn", {"s": (5,)}, "c"),
    ("rfft", {}, "r"), ("rfft", {"n": 7}, "r"), ("rfft2", {}, "r"), ("rfftn", {"s": (2, 5)}, "r"),
    ("irfft", {}, "rc"), ("irfft", {"n": 9}, "c"), ("irfft2", {"s": (2, -1)}, "c"),
    ("irfftn", {"s": (3, 7)}, "c"), ("hfft", {}, "c"), ("hfft", {"n": 5}, "c"),
    ("ihfft", {}, "r"), ("hfft2", {"s": (3, 5)}, "c"), ("hfftn", {}, "c"), ("ihfft2", {}, "r"),
    ("ihfftn", {"s": (2, 3)}, "r"),
]
PARAMS = [pytest.param(name, dict(kw, norm=norm), kind, id=f"{name}{kw}-{kind}-{norm}")
          for name, kw, kinds in CALLS for kind in kinds
          for norm in (None, "forward", "ortho")]


def _run(lib, name, kw, data):
    x = lib.tensor(data, requires_grad=True)
    out = getattr(lib.fft, name)(x, **kw)
    parts = lib.view_as_real(out.resolve_conj()) if out.dtype.is_complex else out
    weights = lib.tensor(np.linspace(-1, 2, parts.numel()).reshape(tuple(parts.shape)),
                         dtype=parts.dtype)
    (grad,) = lib.autograd.grad((parts * weights).sum(), x)
    return out, grad


@needs_torch
@pytest.mark.parametrize("name, kw, kind", PARAMS)
def test_values_and_gradients_equal_pytorchs(name, kw, kind):
    data = REAL if kind == "r" else COMPLEX
    (ours, g_ours), (theirs, g_theirs) = _run(ag, name, kw, data), _run(torch, name, kw, data)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(as_numpy(ours), as_numpy(theirs), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(as_numpy(g_ours), as_numpy(g_theirs), rtol=1e-10, atol=1e-10)
    if name not in ("ihfft2", "ihfftn"):  # (PyTorch's splits its transform over two nodes)
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


@pytest.mark.parametrize("name, kw, kind", [p for p in PARAMS if p.values[1]["norm"] != "forward"])
def test_gradients_by_finite_differences(name, kw, kind):
    x = ag.tensor(REAL[:2, :6] if kind == "r" else COMPLEX[:2, :6], requires_grad=True)
    fn = lambda t: getattr(ag.fft, name)(t, **kw)  # noqa: E731
    assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))


def test_dtypes_and_the_float32_path():
    x = ag.tensor(REAL, dtype=ag.float32)
    assert ag.fft.fft(x).dtype is ag.complex64 and ag.fft.rfft(x).dtype is ag.complex64
    assert ag.fft.irfft(ag.fft.rfft(x)).dtype is ag.float32
    assert ag.fft.fft(ag.arange(4)).dtype is ag.complex64  # integers: the default float's
    back = ag.fft.irfft(ag.fft.rfft(x), n=8)
    assert np.allclose(back.numpy(), REAL, atol=1e-5)
    assert np.allclose(ag.fft.ifft(ag.fft.fft(ag.tensor(COMPLEX))).numpy(), COMPLEX)


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m: m.fft.fft(m.ones(8), norm="bad"), lambda m: m.fft.fft(m.ones(8), n=0),
    lambda m: m.fft.fftn(m.ones(2, 3), s=(2, 2), dim=(0,)),
    lambda m: m.fft.fft(m.ones(8, dtype=m.float16)),
    lambda m: m.fft.rfft(m.ones(4, dtype=m.complex64)),
    lambda m: m.fft.rfftn(m.ones(4, dtype=m.complex64)),
    lambda m: m.fft.ihfftn(m.ones(4, dtype=m.complex64)),
    lambda m: m.fft.irfft(m.ones(1, dtype=m.complex64)),
    lambda m: m.fft.fft(m.ones(8), dim=3), lambda m: m.fft.fft(m.tensor(3.0)),
    lambda m: m.fft.fftn(m.ones(2, 3), dim=(0, 0)),
], ids=["norm", "n=0", "s-and-dim", "half", "rfft-complex", "rfftn-complex", "ihfftn-complex",
        "irfft-one-bin", "dim", "0-d", "repeated-dims"])
def test_errors_equal_pytorchs(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(ag)
    assert str(ours.value) == str(theirs.value)


def test_out_and_shifts():
    out = ag.empty(0, dtype=ag.cdouble)
    assert ag.fft.fft(ag.ones(4, dtype=ag.float64), out=out) is out
    assert out.tolist() == [4, 0, 0, 0]
    spectrum = ag.fft.fftshift(ag.fft.fft(ag.tensor(REAL[0])))
    assert ag.allclose(ag.fft.ifftshift(spectrum), ag.fft.fft(ag.tensor(REAL[0])))


def _window_pair(name, n):
    return (None, None) if name is None else (getattr(ag, name)(n, dtype=ag.float64),
                                              getattr(torch, name)(n, dtype=torch.float64))


@needs_torch
@pytest.mark.parametrize("kw", [
    dict(n_fft=16), dict(n_fft=16, hop_length=5, win_length=12, window="hann_window"),
    dict(n_fft=15, center=False, normalized=True, window="hamming_window"),
    dict(n_fft=16, pad_mode="constant", onesided=False, window="blackman_window"),
    dict(n_fft=16, center=False, win_length=9, align_to_window=True, window="bartlett_window"),
    dict(n_fft=8, window="kaiser_window"),
], ids=["rectangular", "hann", "hamming-uncentred", "two-sided", "aligned", "kaiser"])
def test_stft_and_istft_equal_pytorchs(kw):
    kw = dict(kw)
    ours_w, theirs_w = _window_pair(kw.pop("window", None), kw.get("win_length", kw["n_fft"]))
    signal = np.random.default_rng(2).standard_normal((2, 60))
    x, xt = ag.tensor(signal, requires_grad=True), torch.tensor(signal, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the rectangular window's warning, in both
        S = ag.stft(x, window=ours_w, return_complex=True, **kw)
        St = torch.stft(xt, window=theirs_w, return_complex=True, **kw)
    np.testing.assert_allclose(as_numpy(S), as_numpy(St), rtol=1e-10, atol=1e-10)
    inverse = {k: v for k, v in kw.items() if k not in ("pad_mode", "align_to_window")}
    if not kw.get("align_to_window"):
        y = ag.istft(S, window=ours_w, length=60, **inverse)
        yt = torch.istft(St, window=theirs_w, length=60, **inverse)
        np.testing.assert_allclose(as_numpy(y), as_numpy(yt), rtol=1e-9, atol=1e-10)
        if kw.get("center", True):
            np.testing.assert_allclose(as_numpy(y), signal, rtol=1e-9, atol=1e-10)
        loss, loss_t = (y * y).sum() + ag.view_as_real(S).sum(), (yt * yt).sum() + \
            torch.view_as_real(St).sum()
        (g,), (gt,) = ag.autograd.grad(loss, x), torch.autograd.grad(loss_t, xt)
        np.testing.assert_allclose(as_numpy(g), as_numpy(gt), rtol=1e-9, atol=1e-10)


@needs_torch
def test_stft_errors_and_warnings_equal_pytorchs():
    x = ag.ones(40)
    with pytest.raises(RuntimeError, match="stft requires the return_complex parameter"):
        ag.stft(x, 8)
    with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
        real = ag.stft(x, 8, window=ag.hann_window(8), return_complex=False)
    assert tuple(real.shape) == (5, 21, 2) and x.stft(8, window=ag.hann_window(8),
                                                       return_complex=True).dtype is ag.cfloat
    with pytest.raises(RuntimeError, match="align_to_window should only be set when center"):
        ag.stft(x, 8, return_complex=True, align_to_window=True)
    with pytest.raises(RuntimeError, match="istft requires a complex-valued input"):
        ag.istft(ag.ones(5, 3), 8)
    with pytest.raises(RuntimeError, match="window overlap add min"):
        ag.istft(ag.ones(5, 3, dtype=ag.cfloat), 8, hop_length=8, window=ag.hann_window(8),
                 center=False)
