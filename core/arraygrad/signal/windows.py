"""``arraygrad.signal.windows``: PyTorch's ``torch.signal.windows``, the window functions of
signal processing (``hann``, ``hamming``, ``blackman``, ``kaiser``, ``gaussian``...), computed
as PyTorch computes them (from ``linspace``), so the values match and gradients flow through
``requires_grad=True`` windows.

``sym=True`` gives a symmetric window (filter design), ``sym=False`` a periodic one (spectral
analysis). Windows are float32 or float64 (the default dtype by default).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.tensor import Tensor

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine",
           "general_hamming", "hamming", "hann", "kaiser", "nuttall"]


def _checks(name: str, M: int, dtype: _dt.dtype | None, layout: Any) -> _dt.dtype:
    """The dtype to use, after PyTorch's checks of the common arguments."""
    dtype = _dt.get_default_dtype() if dtype is None else dtype
    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and str(layout).rsplit(".", 1)[-1] != "strided":
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    if dtype not in (_dt.float32, _dt.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dtype}")
    return dtype


def _trivial(M: int, dtype: _dt.dtype, device: Any, requires_grad: bool) -> Tensor | None:
    """The window of length 0 (empty) or 1 (a one), else None."""
    import arraygrad

    if M == 0:
        return arraygrad.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if M == 1:
        return arraygrad.ones((1,), dtype=dtype, device=device, requires_grad=requires_grad)
    return None


def _linspace(start: Any, end: Any, M: int, dtype: _dt.dtype, device: Any,
              requires_grad: bool) -> Tensor:
    import arraygrad

    return arraygrad.linspace(start, end, M, dtype=dtype, device=device,
                              requires_grad=requires_grad)


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True,
                dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
                requires_grad: bool = False) -> Tensor:
    """The exponential (Poisson) window ``exp(-|n - center| / tau)``."""
    import arraygrad

    dtype = _checks("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return arraygrad.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / tau
    k = _linspace(-center * constant, (-center + (M - 1)) * constant, M, dtype, device,
                  requires_grad)
    return arraygrad.exp(-arraygrad.abs(k))


def cosine(M: int, *, sym: bool = True, dtype: _dt.dtype | None = None, layout: Any = None,
           device: Any = None, requires_grad: bool = False) -> Tensor:
    """The cosine (sine) window."""
    import arraygrad

    dtype = _checks("cosine", M, dtype, layout)
    if M == 0:
        return arraygrad.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    constant = math.pi / (M + 1 if not sym and M > 1 else M)
    k = _linspace(0.5 * constant, (0.5 + (M - 1)) * constant, M, dtype, device, requires_grad)
    return arraygrad.sin(k)


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype: _dt.dtype | None = None,
             layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """The Gaussian window of standard deviation ``std``."""
    import arraygrad

    dtype = _checks("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return arraygrad.empty((0,), dtype=dtype, device=device, requires_grad=requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    constant = 1 / (std * math.sqrt(2))
    k = _linspace(start * constant, (start + (M - 1)) * constant, M, dtype, device,
                  requires_grad)
    return arraygrad.exp(-(k ** 2))


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype: _dt.dtype | None = None,
           layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """The Kaiser window of shape ``beta``."""
    import arraygrad
    from arraygrad.special import i0

    dtype = _checks("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    small = _trivial(M, dtype, device, requires_grad)
    if small is not None:
        return small
    b = arraygrad.tensor(beta, dtype=dtype, device=device)
    constant = 2.0 * b / (M if not sym else M - 1)
    end = arraygrad.minimum(b, -b + (M - 1) * constant)
    k = _linspace(-beta, end.item(), M, dtype, device, requires_grad)
    return i0(arraygrad.sqrt(b * b - k ** 2)) / i0(b)


def hamming(M: int, *, sym: bool = True, dtype: _dt.dtype | None = None, layout: Any = None,
            device: Any = None, requires_grad: bool = False) -> Tensor:
    """The Hamming window (``general_hamming`` with alpha 0.54)."""
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype: _dt.dtype | None = None, layout: Any = None,
         device: Any = None, requires_grad: bool = False) -> Tensor:
    """The Hann window (``general_hamming`` with alpha 0.5)."""
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype: _dt.dtype | None = None, layout: Any = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:
    """The Blackman window (``general_cosine`` with a = [0.42, 0.5, 0.08])."""
    dtype = _checks("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M: int, *, sym: bool = True, dtype: _dt.dtype | None = None, layout: Any = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:
    """The Bartlett (triangular) window."""
    import arraygrad

    dtype = _checks("bartlett", M, dtype, layout)
    small = _trivial(M, dtype, device, requires_grad)
    if small is not None:
        return small
    constant = 2 / (M if not sym else M - 1)
    k = _linspace(-1, -1 + (M - 1) * constant, M, dtype, device, requires_grad)
    return 1 - arraygrad.abs(k)


def general_cosine(M: int, *, a: Iterable[float], sym: bool = True,
                   dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
                   requires_grad: bool = False) -> Tensor:
    """The generalized cosine window ``sum_i (-1)^i a_i cos(2 pi i n / N)``."""
    import arraygrad

    dtype = _checks("general_cosine", M, dtype, layout)
    small = _trivial(M, dtype, device, requires_grad)
    if small is not None:
        return small
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    coefficients = list(a)
    if not coefficients:
        raise ValueError("Coefficients cannot be empty")
    constant = 2 * math.pi / (M if not sym else M - 1)
    k = _linspace(0, (M - 1) * constant, M, dtype, device, requires_grad)
    a_i = arraygrad.tensor([(-1) ** i * w for i, w in enumerate(coefficients)], device=device,
                           dtype=dtype, requires_grad=requires_grad)
    i = arraygrad.arange(a_i.shape[0], dtype=a_i.dtype, device=a_i.device)
    return (a_i.unsqueeze(-1) * arraygrad.cos(i.unsqueeze(-1) * k)).sum(0)


def general_hamming(M: int, *, alpha: float = 0.54, sym: bool = True,
                    dtype: _dt.dtype | None = None, layout: Any = None, device: Any = None,
                    requires_grad: bool = False) -> Tensor:
    """The generalized Hamming window ``alpha - (1 - alpha) cos(2 pi n / N)``."""
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def nuttall(M: int, *, sym: bool = True, dtype: _dt.dtype | None = None, layout: Any = None,
            device: Any = None, requires_grad: bool = False) -> Tensor:
    """The minimum 4-term Blackman-Harris window of Nuttall."""
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)
