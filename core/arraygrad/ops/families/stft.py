"""The short-time Fourier transform and its inverse, as PyTorch's ``torch.stft``/``istft``.

``stft`` pads the signal by ``n_fft // 2`` on both sides (``center``, ``pad_mode``), cuts it
into frames of ``n_fft`` every ``hop_length`` points (``Tensor.unfold``: a view), multiplies
each by the window (``win_length`` points, centred in ``n_fft`` with zeros) and transforms it
(``fft.rfft`` when ``onesided``, ``fft.fft`` otherwise; ``normalized``: ``norm="ortho"``):
``(B?, n_fft // 2 + 1, n_frames)`` complex. With ``center=False``, ``align_to_window`` starts
each frame where its window's (unpadded) part starts: the signal is padded with the window's
zero margins instead. ``istft`` transforms each frame back, windows it,
adds the frames where they overlap (``index_add``) and divides by the summed squared window,
which must not vanish anywhere in the kept signal (PyTorch's "window overlap add min" check).
Both are composites of differentiable ops, so gradients come through them.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from arraygrad.tensor import Tensor

__all__ = ["stft", "istft", "FUNCTIONS", "METHODS"]


def _window(window: Tensor | None, win_length: int, n_fft: int, like: Tensor, op: str) -> Tensor:
    """The window, ``win_length`` points centred in ``n_fft`` with zeros (ones by default)."""
    import arraygrad as ag

    real = like.dtype.to_real()
    if window is None:
        window = ag.ones(win_length, dtype=real, device=like.device)
    elif window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{op}: expected a 1D window tensor of size equal to win_length="
                           f"{win_length}, but got window with size {list(window.shape)}")
    if win_length < n_fft:
        left = (n_fft - win_length) // 2
        window = ag.nn.functional.pad(window, (left, n_fft - win_length - left))
    return window


def _lengths(op: str, n_fft: int, hop_length: int | None,
             win_length: int | None) -> tuple[int, int]:
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if hop <= 0:
        raise RuntimeError(f"{op}: expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"{op}: expected 0 < win_length <= n_fft, but got win_length={win}")
    return hop, win


def stft(input: Tensor, n_fft: int, hop_length: int | None = None,
         win_length: int | None = None, window: Tensor | None = None, center: bool = True,
         pad_mode: str = "reflect", normalized: bool = False, onesided: bool | None = None,
         return_complex: bool | None = None, align_to_window: bool | None = None) -> Tensor:
    """The short-time Fourier transform of a signal ``(L,)`` or a batch ``(B, L)``:
    ``(B?, n_fft // 2 + 1, n_frames)`` complex (``n_fft`` bins when not ``onesided``)."""
    import arraygrad as ag

    op = "stft"
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    complex_input = input.dtype.is_complex or (window is not None and window.dtype.is_complex)
    if return_complex is None:
        if not complex_input:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in "
                               "a future PyTorch release.")
        return_complex = True
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch "
                      "release, stft will return complex tensors for all inputs, and "
                      "return_complex=False will raise an error.\nNote: you can still call "
                      "torch.view_as_real on the complex output to recover the old return "
                      "format.", UserWarning, stacklevel=2)
    if input.ndim not in (1, 2):
        raise RuntimeError(f"{op}: expected a 1D or 2D tensor, but got {input.ndim}D")
    hop, win = _lengths(op, n_fft, hop_length, win_length)
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied,which is "
                      "known to cause spectral leakage. Other windows such as torch.hann_window "
                      "or torch.hamming_window are recommended to reduce spectral leakage.To "
                      "suppress this warning and use a rectangular window, explicitly set "
                      "`window=torch.ones(n_fft, device=<device>)`.", UserWarning, stacklevel=2)
    x = input.unsqueeze(0) if input.ndim == 1 else input
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        x = x.to(ag.get_default_dtype())
    if center:
        pad = n_fft // 2
        x = ag.nn.functional.pad(x.unsqueeze(1), (pad, pad), mode=pad_mode).squeeze(1)
    elif align_to_window and win < n_fft:  # the window's zero margins, as zeros around x
        left = (n_fft - win) // 2
        x = ag.nn.functional.pad(x, (left, n_fft - win - left))
    length = x.shape[-1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"{op}: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    frames = x.unfold(-1, n_fft, hop) * _window(window, win, n_fft, x, op)
    onesided = not complex_input if onesided is None else onesided
    if onesided and complex_input:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spectrum = (ag.fft.rfft if onesided else ag.fft.fft)(frames, norm=norm).transpose(-1, -2)
    if input.ndim == 1:
        spectrum = spectrum.squeeze(0)
    return spectrum if return_complex else ag.view_as_real(spectrum)


def istft(input: Tensor, n_fft: int, hop_length: int | None = None,
          win_length: int | None = None, window: Tensor | None = None, center: bool = True,
          normalized: bool = False, onesided: bool | None = None, length: int | None = None,
          return_complex: bool = False) -> Tensor:
    """The inverse of ``stft``: the signal from its frames' spectra ``(B?, n_freq, n_frames)``
    (complex), by windowed overlap-add, ``length`` points if given."""
    import arraygrad as ag

    op = "istft"
    if not input.dtype.is_complex:
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"{op}: expected a tensor with 2 or 3 dimensions of complex dtype, "
                           f"but got {input.ndim}D")
    hop, win = _lengths(op, n_fft, hop_length, win_length)
    spec = input.unsqueeze(0) if input.ndim == 2 else input
    n_freq, n_frames = spec.shape[-2], spec.shape[-1]
    onesided = n_freq != n_fft if onesided is None else onesided
    if onesided and n_fft // 2 + 1 != n_freq:
        raise RuntimeError(f"{op}: expected the frequency dimension (3rd to the last) of the "
                           f"input tensor to match n_fft / 2 + 1 when onesided=True, but got "
                           f"{n_freq}")
    if not onesided and n_freq != n_fft:
        raise RuntimeError(f"{op}: expected the frequency dimension (3rd to the last) of the "
                           f"input tensor to match n_fft when onesided=False, but got {n_freq}")
    if return_complex and onesided:
        raise RuntimeError("cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    columns = spec.transpose(-1, -2)
    if return_complex:
        frames = ag.fft.ifft(columns, n=n_fft, norm=norm)
    elif onesided:
        frames = ag.fft.irfft(columns, n=n_fft, norm=norm)
    else:
        frames = ag.real(ag.fft.ifft(columns, n=n_fft, norm=norm))
    w = _window(window, win, n_fft, frames, op)
    frames = frames * w
    total = n_fft + hop * (n_frames - 1)
    positions = (ag.arange(n_frames, device=input.device).unsqueeze(-1) * hop
                 + ag.arange(n_fft, device=input.device)).reshape(-1)
    batch = frames.shape[0]
    signal = ag.zeros(batch, total, dtype=frames.dtype, device=input.device).index_add(
        1, positions, frames.reshape(batch, -1))
    squares = (w * ag.conj(w)).real if w.dtype.is_complex else w * w
    envelope = ag.zeros(total, dtype=squares.dtype, device=input.device).index_add(
        0, positions, squares.expand(n_frames, n_fft).reshape(-1))
    start = n_fft // 2 if center else 0
    end = total - (n_fft // 2 if center else 0) if length is None else start + length
    keep = min(end, total)
    signal, envelope = signal[:, start:keep], envelope[start:keep]
    if bool((envelope.abs() < 1e-11).any()):
        raise RuntimeError(f"{op}: window overlap add min: {float(envelope.abs().min()):g}")
    signal = signal / envelope
    if end > total:  # a requested length past the frames: zeros, as PyTorch pads
        signal = ag.nn.functional.pad(signal, (0, end - total))
    return signal.squeeze(0) if input.ndim == 2 else signal


FUNCTIONS: dict[str, Callable[..., Any]] = {"stft": stft, "istft": istft}
METHODS: dict[str, Callable[..., Any]] = {"stft": stft, "istft": istft}
