"""The window pair every convolution and pooling rests on, for any number of spatial dims:
``im2col`` gathers the ``prod(kernel)`` shifted, strided windows of a padded ``(N, C,
*spatial)`` array into ``(N, C, prod(kernel), *out)`` (a loop over the kernel window only;
each step is one strided slice of the whole batch), ``col2im`` is its adjoint, adding the
windows back. Each is the other's backward and both are linear, so gradients of any order
flow through them. A geometry is a tuple of per-axis tuples (see below)."""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any

from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = ["im2col", "col2im"]


# -- the im2col / col2im pair -------------------------------------------------------

# A geometry is ``(kernel, dilation, stride, pad_lo, out)``, each a tuple with one entry per
# spatial axis; the padding after the input is whatever the windows reach.

def _window_key(offset: tuple[Any, ...], geom: Any) -> tuple[Any, ...]:
    """The strided slice picking kernel offset ``offset`` (one index per axis) of every window."""
    _, dilation, stride, _, out = geom
    key: list[Any] = [slice(None), slice(None)]
    for i, d, s, o in zip(offset, dilation, stride, out):
        start = i * d
        key.append(slice(start, start + s * (o - 1) + 1, s))
    return tuple(key)


def _offsets(kernel: tuple[Any, ...]) -> Any:
    """Every kernel offset, row-major (the order of a weight's flattened window)."""
    return itertools.product(*(range(k) for k in kernel))


def _padded_extent(in_sizes: Any, geom: Any) -> tuple[Any, ...]:
    """The padded buffer's spatial sizes: the input plus what the windows reach."""
    kernel, dilation, stride, pad_lo, out = geom
    return tuple(max(n + p, (o - 1) * s + d * (k - 1) + 1)
                 for n, k, d, s, p, o in zip(in_sizes, kernel, dilation, stride, pad_lo, out))


def _interior(in_sizes: Any, pad_lo: Any) -> tuple[Any, ...]:
    """The slice of the padded buffer that holds the input."""
    return (slice(None), slice(None)) + tuple(slice(p, p + n) for n, p in zip(in_sizes, pad_lo))


def _im2col_data(backend: Backend, data: Any, geom: Any, pad_value: Any = 0) -> Any:
    xp = backend.xp
    in_sizes = tuple(data.shape[2:])
    pad_lo = geom[3]
    extent = _padded_extent(in_sizes, geom)
    if extent != in_sizes or any(pad_lo):
        padded = xp.full(tuple(data.shape[:2]) + extent, pad_value, dtype=data.dtype)
        padded = backend.write(padded, _interior(in_sizes, pad_lo), data)
    else:
        padded = data
    return xp.stack([padded[_window_key(o, geom)] for o in _offsets(geom[0])], axis=2)


def _col2im_data(backend: Backend, cols: Any, in_sizes: Any, geom: Any) -> Any:
    xp = backend.xp
    padded = xp.zeros(tuple(cols.shape[:2]) + _padded_extent(in_sizes, geom), dtype=cols.dtype)
    for k, offset in enumerate(_offsets(geom[0])):
        key = _window_key(offset, geom)
        padded = backend.write(padded, key, cols[:, :, k, ...], "add")  # "..." for the standard
    return padded[_interior(in_sizes, geom[3])]


# each is the other's adjoint: backward of either is the other, so every order works
IM2COL = defop("Im2ColBackward0", jvp=VIA_VJP, params=("in_hw", "geom"),
               vjp=(lambda g, n: col2im(g, n.in_hw, n.geom),))
COL2IM = defop("Col2ImBackward0", jvp=VIA_VJP, params=("in_hw", "geom"),
               vjp=(lambda g, n: im2col(g, n.geom),))


def im2col(input: Tensor, geom: Any, pad_value: Any = 0) -> Tensor:
    """``(N, C, *spatial)`` -> ``(N, C, prod(kernel), *out)`` windows (recorded; backward is
    ``col2im``).

    ``geom`` is ``(kernel, dilation, stride, pad_lo, out)``, one entry per
    spatial axis in each; the padding after the input is whatever the windows
    reach. ``pad_value`` fills the padding (``-inf`` for max pooling; it gets
    no gradient either way).
    """
    data = _im2col_data(input._backend, input._data, geom, pad_value)
    return IM2COL.record(data, input._backend, (input,), in_hw=tuple(input._data.shape[2:]),
                         geom=geom)


def col2im(cols: Tensor, in_hw: Any, geom: Any) -> Tensor:
    """The adjoint of ``im2col``: windows summed back into ``(N, C, *in_hw)`` (recorded)."""
    data = _col2im_data(cols._backend, cols._data, tuple(in_hw), geom)
    return COL2IM.record(data, cols._backend, (cols,), in_hw=tuple(in_hw), geom=geom)
