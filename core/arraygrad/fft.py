"""``arraygrad.fft``: PyTorch's ``torch.fft``.

The transforms (``fft``, ``ifft``, ``fft2``, ``ifft2``, ``fftn``, ``ifftn``, ``rfft``,
``irfft``, ``rfft2``, ``irfft2``, ``rfftn``, ``irfftn``, ``hfft``, ``ihfft``, ``hfft2``,
``ihfft2``, ``hfftn``, ``ihfftn``) take PyTorch's arguments: the signal sizes ``n``/``s``
(the input cut, or padded with zeros, to them first), ``dim`` (with ``s`` alone, the last
``len(s)`` dimensions) and ``norm`` (``"backward"``: no scaling forward, ``1/n`` inverse;
``"forward"`` the other way round; ``"ortho"``: ``1/sqrt(n)`` both). They compute through the
backend's Array API ``fft`` extension and are differentiable (``ops.spectral``: PyTorch's
``FftC2C``/``FftR2C``/``FftC2R`` nodes). Real inputs (integers in the default float dtype) give
complex64 for float32, complex128 for float64; float16 and bfloat16 are refused, as PyTorch's
CPU build does. ``hfft*``/``ihfft*`` are ``irfft*``/``rfft*`` of the conjugate with the dual
normalisation. The sample frequencies (``fftfreq``, ``rfftfreq``) and the spectrum
re-centring shifts (``fftshift``, ``ifftshift``) are here too.
"""

from __future__ import annotations

from typing import Any, Sequence

from arraygrad import dtypes as _dt
from arraygrad.ops import spectral as _spectral
from arraygrad.ops.conjugate import conj as _conj
from arraygrad.ops.out_arg import accepts_out
from arraygrad.tensor import Tensor

__all__ = ["Tensor", "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2",
           "irfft2", "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_DUAL = _spectral.DUAL_NORM
Dims = "int | Sequence[int] | None"


# -- arguments ---------------------------------------------------------------------------

def _norm(norm: str | None) -> str:
    if norm is None:
        return "backward"
    if norm not in _DUAL:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


def _floating(input: Any, op: str) -> Tensor:
    """``input`` as a floating or complex tensor (integers in the default float dtype);
    PyTorch's CPU errors for float16/bfloat16."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    d = input.dtype
    if d is _dt.float16 or d is _dt.bfloat16:
        raise RuntimeError(f"Unsupported dtype {_dt.scalar_type_name(d)}")
    if not (d.is_floating_point or d.is_complex):
        input = input.to(_dt.get_default_dtype())
    return input


def _dims_and_sizes(input: Tensor, s: Any, dim: Any, op: str) -> tuple[list[int], list[int]]:
    """PyTorch's ``fftn`` arguments made explicit: the transformed dims (``dim``; with ``s``
    alone, the last ``len(s)``; neither: all) and their signal sizes (``s``, -1 or absent:
    the input's)."""
    ndim = input.ndim
    if dim is not None:
        dims = [dim] if isinstance(dim, int) else list(dim)
        dims = [_wrap(d, ndim) for d in dims]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        sizes = [s] if isinstance(s, int) else list(s)
        if dim is None:
            if len(sizes) > ndim:
                raise RuntimeError(f"Got shape with {len(sizes)} values but input tensor only "
                                   f"has {ndim} dimensions.")
            dims = list(range(ndim - len(sizes), ndim))
        elif len(sizes) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        sizes = [input.shape[d] if n == -1 else n for d, n in zip(dims, sizes)]
    else:
        if dim is None:
            dims = list(range(ndim))
        sizes = [input.shape[d] for d in dims]
    for n in sizes:
        if n < 1:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return dims, sizes


def _wrap(d: int, ndim: int) -> int:
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -ndim <= d < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {d})")
    return d % ndim


def _resized(input: Tensor, dims: Sequence[int], sizes: Sequence[int]) -> Tensor:
    """``input`` cut, or padded with zeros at the end, to ``sizes`` along ``dims``
    (differentiable: a slice or a ``cat`` with zeros)."""
    from arraygrad.ops.spectral import _pad_end

    for d, n in zip(dims, sizes):
        have = input.shape[d]
        if n < have:
            input = input.narrow(d, 0, n)
        elif n > have:
            input = _pad_end(input, d, n - have)
    return input


# -- the transforms --------------------------------------------------------------------

def _c2c_or_r2c(input: Tensor, dims: Sequence[int], sizes: Sequence[int], norm: str,
                forward: bool, one_dim: bool) -> Tensor:
    x = _resized(input, dims, sizes)
    if not x.dtype.is_complex:
        if not one_dim:  # as PyTorch's n-dimensional transforms: the signal made complex
            x = x.to(x.dtype.to_complex())
        elif forward:  # as PyTorch's fft: the full-spectrum real transform
            return _spectral.r2c(x, dims, norm, onesided=False)
        else:  # and its ifft: the conjugate of the forward one, dual normalisation
            return _conj(_spectral.r2c(x, dims, _DUAL[norm], onesided=False))
    return _spectral.c2c(x, dims, norm, forward)


def _complex_nd(op: str, input: Any, s: Any, dim: Any, norm: str | None,
                forward: bool) -> Tensor:
    x = _floating(input, op)
    dims, sizes = _dims_and_sizes(x, s, dim, op)
    return _c2c_or_r2c(x, dims, sizes, _norm(norm), forward, op in ("fft", "ifft"))


def fft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The one-dimensional discrete Fourier transform of ``input`` along ``dim``."""
    return _complex_nd("fft", input, None if n is None else [n], [dim], norm, True)


def ifft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of ``fft``."""
    return _complex_nd("ifft", input, None if n is None else [n], [dim], norm, False)


def fft2(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1),
         norm: str | None = None) -> Tensor:
    """The two-dimensional transform (over the last two dimensions by default)."""
    return _complex_nd("fft2", input, s, dim, norm, True)


def ifft2(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Tensor:
    """The inverse of ``fft2``."""
    return _complex_nd("ifft2", input, s, dim, norm, False)


def fftn(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
         norm: str | None = None) -> Tensor:
    """The n-dimensional transform (over every dimension by default)."""
    return _complex_nd("fftn", input, s, dim, norm, True)


def ifftn(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
          norm: str | None = None) -> Tensor:
    """The inverse of ``fftn``."""
    return _complex_nd("ifftn", input, s, dim, norm, False)


def _real_signal(x: Tensor, op: str) -> None:
    """PyTorch's RuntimeError (its words for each op) for a complex signal."""
    if not x.dtype.is_complex:
        return
    name = _dt.scalar_type_name(x.dtype)
    if op in ("rfft2", "rfftn"):
        raise RuntimeError(f"rfftn expects a real-valued input tensor, but got {name}")
    if op in ("ihfft2", "ihfftn"):
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {name}")
    raise RuntimeError(f"{op} expects a real input tensor, but got {name}")


def _real_nd(op: str, input: Any, s: Any, dim: Any, norm: str | None) -> Tensor:
    """The one-sided transform of a real signal (the last dim's ``n // 2 + 1`` bins)."""
    x = _floating(input, op)
    _real_signal(x, op)
    dims, sizes = _dims_and_sizes(x, s, dim, op)
    return _spectral.r2c(_resized(x, dims, sizes), dims, _norm(norm), onesided=True)


def rfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The transform of a real signal: its ``n // 2 + 1`` non-negative frequency bins."""
    return _real_nd("rfft", input, None if n is None else [n], [dim], norm)


def rfft2(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Tensor:
    """``rfftn`` over two dimensions (the last two by default)."""
    return _real_nd("rfft2", input, s, dim, norm)


def rfftn(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
          norm: str | None = None) -> Tensor:
    """The n-dimensional transform of a real signal, one-sided in the last dimension."""
    return _real_nd("rfftn", input, s, dim, norm)


def _inverse_real_nd(op: str, input: Any, s: Any, dim: Any, norm: str) -> Tensor:
    """The real signal of a one-sided spectrum (the last dim's size ``2 (m - 1)`` unless
    given)."""
    x = _floating(input, op)
    if not x.dtype.is_complex:
        x = x.to(x.dtype.to_complex())
    dims, sizes = _dims_and_sizes(x, s, dim, op)
    if s is None or (not isinstance(s, int) and list(s)[-1] == -1):
        sizes[-1] = 2 * (x.shape[dims[-1]] - 1)
        if sizes[-1] < 1:
            raise RuntimeError(f"Invalid number of data points ({sizes[-1]}) specified")
    bins = sizes[:-1] + [sizes[-1] // 2 + 1]
    return _spectral.c2r(_resized(x, dims, bins), dims, norm, sizes[-1])


def irfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of ``rfft``: a real signal of ``n`` points (``2 (m - 1)`` by default)."""
    return _inverse_real_nd("irfft", input, None if n is None else [n], [dim], _norm(norm))


def irfft2(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1),
           norm: str | None = None) -> Tensor:
    """The inverse of ``rfft2``."""
    return _inverse_real_nd("irfft2", input, s, dim, _norm(norm))


def irfftn(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
           norm: str | None = None) -> Tensor:
    """The inverse of ``rfftn``."""
    return _inverse_real_nd("irfftn", input, s, dim, _norm(norm))


def _hermitian_nd(op: str, input: Any, s: Any, dim: Any, norm: str | None) -> Tensor:
    """The transform of a Hermitian-symmetric signal given by its one-sided half: real, as
    ``irfftn`` of the conjugate with the dual normalisation."""
    x = _floating(input, op)
    return _inverse_real_nd(op, _conj(x), s, dim, _DUAL[_norm(norm)])


def hfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The transform of a Hermitian-symmetric signal (given by its ``n // 2 + 1`` first
    points): a real spectrum of ``n`` points."""
    return _hermitian_nd("hfft", input, None if n is None else [n], [dim], norm)


def hfft2(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1),
          norm: str | None = None) -> Tensor:
    """``hfftn`` over two dimensions."""
    return _hermitian_nd("hfft2", input, s, dim, norm)


def hfftn(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
          norm: str | None = None) -> Tensor:
    """The n-dimensional ``hfft`` (Hermitian in the last dimension)."""
    return _hermitian_nd("hfftn", input, s, dim, norm)


def _inverse_hermitian_nd(op: str, input: Any, s: Any, dim: Any, norm: str | None) -> Tensor:
    """The inverse of ``hfftn``: the conjugate of ``rfftn`` with the dual normalisation."""
    x = _floating(input, op)
    _real_signal(x, op)
    dims, sizes = _dims_and_sizes(x, s, dim, op)
    spectrum = _spectral.r2c(_resized(x, dims, sizes), dims, _DUAL[_norm(norm)], onesided=True)
    return _conj(spectrum)


def ihfft(input: Tensor, n: int | None = None, dim: int = -1, norm: str | None = None) -> Tensor:
    """The inverse of ``hfft``: the one-sided half of a real signal's inverse transform."""
    return _inverse_hermitian_nd("ihfft", input, None if n is None else [n], [dim], norm)


def ihfft2(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] = (-2, -1),
           norm: str | None = None) -> Tensor:
    """The inverse of ``hfft2``."""
    return _inverse_hermitian_nd("ihfft2", input, s, dim, norm)


def ihfftn(input: Tensor, s: Sequence[int] | None = None, dim: Sequence[int] | None = None,
           norm: str | None = None) -> Tensor:
    """The inverse of ``hfftn``."""
    return _inverse_hermitian_nd("ihfftn", input, s, dim, norm)


def _frequencies(values: list[float], n: int, d: float, *, out: Tensor | None, dtype: Any,
                 layout: Any, device: Any, requires_grad: bool) -> Tensor:
    import arraygrad as ag

    result = ag.tensor([v / (d * n) for v in values], dtype=dtype or ag.get_default_dtype(),
                       device=device, requires_grad=requires_grad)
    if out is not None:
        from arraygrad.ops.out_arg import write_out

        return write_out("fftfreq", result, out)
    return result


# PyTorch's ``out=`` on every transform (``ops.out_arg``)
for _name in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
              "rfftn", "irfftn", "hfft", "ihfft", "hfft2", "ihfft2", "hfftn", "ihfftn"):
    globals()[_name] = accepts_out(globals()[_name])


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
    """An absent ``torch.fft`` name: AttributeError with the census's reason."""
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.fft", name, "arraygrad.fft")
