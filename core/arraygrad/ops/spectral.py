"""The discrete Fourier transforms as ops: three rules, PyTorch's ``_fft_c2c``, ``_fft_r2c``
and ``_fft_c2r``, over the backend's Array API ``fft`` extension (``xp.fft``).

``arraygrad.fft`` reads PyTorch's arguments (``n``/``s``, ``dim``, ``norm``), resizes the input
(a differentiable slice or zero pad) and calls these on exactly the sizes transformed.

Gradients (PyTorch's convention, docs/complex.md): a DFT is linear and its matrix symmetric,
so the vjp of a transform with normalisation ``norm`` is the inverse transform with the dual
normalisation (``forward`` <-> ``backward``, ``ortho`` itself). A real-to-complex transform's
is the real part of that, after the one-sided gradient is padded back to the full spectrum
with zeros; a complex-to-real one's is the one-sided real-to-complex transform of the
gradient, the bins whose mirror image lies outside the one-sided half doubled (the
Hermitian extension the forward made counts them twice).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from arraygrad.ops.extensions import extension
from arraygrad.ops.rule import defop
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode

__all__ = ["c2c", "r2c", "c2r", "DUAL_NORM"]

DUAL_NORM = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


def _c2c_vjp(g: Tensor, n: RuleNode) -> Tensor:
    return c2c(g, n.dim, DUAL_NORM[n.norm], not n.forward)


def _r2c_vjp(g: Tensor, n: RuleNode) -> Tensor:
    from arraygrad.ops.complex_views import real

    if n.onesided:  # the other half of the spectrum got nothing: zeros
        last = n.dim[-1]
        missing = n.last_dim_size - g.shape[last]
        if missing > 0:
            g = _pad_end(g, last, missing)
    return real(c2c(g, n.dim, DUAL_NORM[n.norm], False))


def _c2r_vjp(g: Tensor, n: RuleNode) -> Tensor:
    gI = r2c(g, n.dim, DUAL_NORM[n.norm], True)
    last = n.dim[-1]
    doubled = g.shape[last] - gI.shape[last]
    if doubled > 0:  # bins 1 .. n - onesided: mirrored into the half the forward rebuilt
        import arraygrad as ag

        size = gI.shape[last]
        scale = [2.0 if 1 <= i <= doubled else 1.0 for i in range(size)]
        shape = [1] * gI.ndim
        shape[last] = size
        gI = gI * ag.tensor(scale, dtype=g.dtype, device=g.device).reshape(shape)
    return gI


C2C = defop("FftC2CBackward0", params=("dim", "norm", "forward"), vjp=(_c2c_vjp,),
            complex=True)
R2C = defop("FftR2CBackward0", params=("dim", "norm", "onesided", "last_dim_size"),
            vjp=(_r2c_vjp,), complex=True)
C2R = defop("FftC2RBackward0", params=("dim", "norm", "last_dim_size"), vjp=(_c2r_vjp,),
            complex=True)


def _pad_end(t: Tensor, d: int, count: int) -> Tensor:
    """``t`` with ``count`` zeros appended along ``d`` (differentiable)."""
    import arraygrad as ag

    shape = list(t.shape)
    shape[d] = count
    return ag.cat([t, ag.zeros(shape, dtype=t.dtype, device=t.device)], dim=d)


def c2c(input: Tensor, dim: Sequence[int], norm: str, forward: bool) -> Tensor:
    """The complex transform of a complex ``input`` over ``dim`` (forward, or inverse)."""
    backend = input._backend
    ext = extension("fft", backend, "fft")
    fn = ext.fftn if forward else ext.ifftn
    data = fn(input._data, axes=tuple(dim), norm=norm)
    return C2C.record(data, backend, (input,), dim=tuple(dim), norm=norm, forward=forward)


def r2c(input: Tensor, dim: Sequence[int], norm: str, onesided: bool) -> Tensor:
    """The forward transform of a real ``input`` over ``dim``: the one-sided spectrum (last
    dim ``n // 2 + 1`` bins) when ``onesided``, else the full one, complex."""
    backend = input._backend
    ext = extension("rfft", backend, "fft")
    xp = backend.xp
    dims = tuple(dim)
    if onesided:
        data = ext.rfftn(input._data, axes=dims, norm=norm)
    else:  # the standard's fftn takes complex input: the real values, made complex
        native = backend.native_dtype(input.dtype.to_complex())
        data = ext.fftn(xp.astype(input._data, native), axes=dims, norm=norm)
    data = xp.astype(data, backend.native_dtype(input.dtype.to_complex()))
    return R2C.record(data, backend, (input,), dim=dims, norm=norm, onesided=onesided,
                      last_dim_size=input.shape[dims[-1]])


def c2r(input: Tensor, dim: Sequence[int], norm: str, last_dim_size: int) -> Tensor:
    """The inverse transform of a one-sided spectrum over ``dim`` to a real signal whose last
    transformed dimension has ``last_dim_size`` points (``input``'s last dim holds
    ``last_dim_size // 2 + 1`` bins)."""
    backend = input._backend
    ext = extension("irfft", backend, "fft")
    xp = backend.xp
    dims = tuple(dim)
    sizes = tuple(input.shape[d] for d in dims[:-1]) + (last_dim_size,)
    data = ext.irfftn(input._data, s=sizes, axes=dims, norm=norm)
    data = xp.astype(data, backend.native_dtype(input.dtype.to_real()))
    return C2R.record(data, backend, (input,), dim=dims, norm=norm, last_dim_size=last_dim_size)
