"""``arraygrad.fft``: the parts of PyTorch's ``torch.fft`` that are real-valued.

The sample frequencies (``fftfreq``, ``rfftfreq``) and the spectrum re-centring shifts
(``fftshift``, ``ifftshift``) are here. The transforms themselves take or return complex
tensors, and arraygrad has no complex dtype yet: they are listed in
``docs/differences.md`` (the census) with that reason.
"""

from __future__ import annotations

from typing import Any, Sequence

from arraygrad.tensor import Tensor

__all__ = ["Tensor", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _frequencies(values: list[float], n: int, d: float, *, out: Tensor | None, dtype: Any,
                 layout: Any, device: Any, requires_grad: bool) -> Tensor:
    import arraygrad as ag

    result = ag.tensor([v / (d * n) for v in values], dtype=dtype or ag.get_default_dtype(),
                       device=device, requires_grad=requires_grad)
    if out is not None:
        from arraygrad.ops.out_arg import write_out

        return write_out("fftfreq", result, out)
    return result


def fftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None, dtype: Any = None,
            layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """The sample frequencies of a length-``n`` FFT with sample spacing ``d``:
    ``[0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d * n)``."""
    if n <= 0:
        raise RuntimeError(f"fftfreq: n must be positive, got {n}")
    values = [float(i) for i in range((n + 1) // 2)] + [float(i) for i in range(-(n // 2), 0)]
    return _frequencies(values, n, d, out=out, dtype=dtype, layout=layout, device=device,
                        requires_grad=requires_grad)


def rfftfreq(n: int, d: float = 1.0, *, out: Tensor | None = None, dtype: Any = None,
             layout: Any = None, device: Any = None, requires_grad: bool = False) -> Tensor:
    """The non-negative sample frequencies of a length-``n`` real FFT:
    ``[0, 1, ..., n // 2] / (d * n)``."""
    if n <= 0:
        raise RuntimeError(f"rfftfreq: n must be positive, got {n}")
    return _frequencies([float(i) for i in range(n // 2 + 1)], n, d, out=out, dtype=dtype,
                        layout=layout, device=device, requires_grad=requires_grad)


def _shift(input: Tensor, dim: int | Sequence[int] | None, sign: int) -> Tensor:
    dims = tuple(range(input.ndim)) if dim is None else (
        (dim,) if isinstance(dim, int) else tuple(dim))
    shifts = tuple(sign * (input.shape[d] // 2) for d in dims)
    return input.roll(shifts, dims)


def fftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """Move the zero frequency to the centre: ``roll`` by ``n // 2`` along ``dim`` (all)."""
    return _shift(input, dim, 1)


def ifftshift(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """The inverse of ``fftshift``: ``roll`` by ``-(n // 2)`` along ``dim`` (all)."""
    return _shift(input, dim, -1)


def __getattr__(name: str) -> Any:
    """A ``torch.fft`` transform: AttributeError with the census's reason (complex dtypes)."""
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.fft", name, "arraygrad.fft")
