"""The standard's ``fft`` extension over ``arraygrad.fft`` (differentiable): the standard's
keywords (``axis``, ``axes``, ``norm="backward"``), ``fftfreq(dtype=, device=)``."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from arraygrad import fft as _fft
from arraygrad.tensor import Tensor
from arraygrad.array_api._array import export as _export

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
           "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _one(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def function(x: Tensor, /, *, n: int | None = None, axis: int = -1,
                 norm: str = "backward") -> Tensor:
        return fn(x, n=n, dim=axis, norm=norm)

    function.__name__ = function.__qualname__ = fn.__name__
    function.__doc__ = f"The standard's ``fft.{fn.__name__}`` (one axis)."
    return function


def _many(fn: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def function(x: Tensor, /, *, s: Sequence[int] | None = None,
                 axes: Sequence[int] | None = None, norm: str = "backward") -> Tensor:
        return fn(x, s=s, dim=axes, norm=norm)

    function.__name__ = function.__qualname__ = fn.__name__
    function.__doc__ = f"The standard's ``fft.{fn.__name__}`` (several axes)."
    return function


fft, ifft, rfft, irfft, hfft, ihfft = (_one(f) for f in (_fft.fft, _fft.ifft, _fft.rfft,
                                                          _fft.irfft, _fft.hfft, _fft.ihfft))
fftn, ifftn, rfftn, irfftn = (_many(f) for f in (_fft.fftn, _fft.ifftn, _fft.rfftn,
                                                  _fft.irfftn))


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Tensor:
    """The sample frequencies of a length-``n`` transform."""
    return _fft.fftfreq(n, d, dtype=dtype, device=device)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Tensor:
    """The sample frequencies of a length-``n`` real transform."""
    return _fft.rfftfreq(n, d, dtype=dtype, device=device)


def fftshift(x: Tensor, /, *, axes: Any = None) -> Tensor:
    """``x`` with the zero frequency moved to the centre."""
    return _fft.fftshift(x, dim=axes)


def ifftshift(x: Tensor, /, *, axes: Any = None) -> Tensor:
    """The inverse of ``fftshift``."""
    return _fft.ifftshift(x, dim=axes)


_export(globals(), __all__)  # the namespace's functions return its array type (``_array``)
