"""The NumPy backend's max-pooling kernels (``Backend.kernel``'s ``"max_pool_forward"`` and
``"max_pool_grad"``; the contract is in ``arraygrad.nn._functional.max_pool_rule``), any
number of spatial dims, with stride, padding, dilation and ``ceil_mode``.

Chosen for one thread's speed: each kernel offset's inputs over all windows are one strided
slice of the (padded) input, ``(N, C, *out)``, so the forward is a running maximum over the
``prod(kernel)`` slices (no window array is built), and the winning offset, when a backward
or ``return_indices`` needs it, is found by comparing each slice with the maximum, last
offset first so the first maximal one wins (``argmax``'s choice, the portable twin's). The
backward adds each offset's share of the gradient into its strided slice of a zero plane
(no ``add.at`` scatter, no index arrays). Where the windows tile the input (stride equal to
the kernel, no dilation, no padding: ``MaxPool2d(2)``) every input element is in one window at
most, so each offset's share is written, not added, into its slots of the tiles, on the
gradient's bits (``_tiled_grad``): no zero plane to read, and no finiteness test.

They serve float32 and float64 NumPy arrays; anything else is declined (``NotImplemented``)
and the portable formulation runs.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

__all__ = ["max_pool_forward", "max_pool_grad"]

_SERVED = (np.dtype(np.float32), np.dtype(np.float64))


@functools.lru_cache(maxsize=256)
def _plan(in_shape, geom):
    """The padded plane's shape (None: no padding), where the input sits in it, and each
    kernel offset's strided slice of it."""
    kernel, dilation, stride, pad_lo, out = geom
    in_sizes = in_shape[2:]
    extent = tuple(max(size + p, (o - 1) * s + d * (k - 1) + 1)
                   for size, k, d, s, p, o in zip(in_sizes, kernel, dilation, stride, pad_lo, out))
    offsets = tuple(itertools.product(*(range(k) for k in kernel)))
    slices = tuple((slice(None), slice(None)) + tuple(
        slice(i * d, i * d + s * (o - 1) + 1, s) for i, d, s, o in zip(off, dilation, stride, out))
        for off in offsets)
    padded = in_shape[:2] + extent if extent != tuple(in_sizes) or any(pad_lo) else None
    # windows that tile the input: each spatial dim split into (out, kernel) by a reshape
    tiled = padded is None and all(s == k and (d == 1 or k == 1) and o * k <= size
                                   for k, d, s, o, size in zip(kernel, dilation, stride, out,
                                                               in_sizes))
    every = slice(None)
    return {
        "padded": padded,
        "interior": (every, every) + tuple(slice(p, p + size)
                                           for size, p in zip(in_sizes, pad_lo)),
        "slices": slices,
        "tiles": (in_shape[:2] + tuple(itertools.chain(*zip(out, kernel)))) if tiled else None,
        # the tiled part of the input (all of it unless floor mode leaves a remainder)
        "covered": (every, every) + tuple(slice(0, o * k) for o, k in zip(out, kernel)),
        "exact": all(o * k == size for o, k, size in zip(out, kernel, in_sizes)),
        # offset k's slots in the tiles: its position in each window, every window
        "slots": tuple((every, every) + tuple(itertools.chain(*((every, i) for i in off)))
                       for off in offsets),
    }


def _offset_dtype(k):
    """The narrowest integer dtype holding offsets below ``k`` (int8 for most kernels: the
    comparisons that find the winners, and the backward's, move an eighth of int64's bytes)."""
    for dtype in (np.int8, np.int16, np.int32):
        if k <= np.iinfo(dtype).max + 1:
            return np.dtype(dtype)
    return np.dtype(np.int64)


def max_pool_forward(x, geom, with_offsets):
    """Each window's maximum (NaN if it holds one); with ``with_offsets``, ``(values,
    offsets)``: also the row-major kernel offset of its first maximal element (the narrowest
    integer dtype that holds them). Padding never wins (``-inf``). (Values alone, not
    ``(values, None)``: a compiled replay records a kernel's result as arrays.)"""
    if type(x) is not np.ndarray or x.dtype not in _SERVED:
        return NotImplemented
    plan = _plan(x.shape, geom)
    if plan["padded"] is not None:
        buf = np.full(plan["padded"], -np.inf, x.dtype)
        buf[plan["interior"]] = x
        x = buf
    views = [x[key] for key in plan["slices"]]
    values = views[0].copy()
    for v in views[1:]:
        np.maximum(values, v, out=values)  # NaN-propagating, as PyTorch's max pooling
    if not with_offsets:
        return values
    offsets = np.zeros(values.shape, _offset_dtype(len(views)))
    for k in range(len(views) - 1, -1, -1):  # last first: the first maximal offset is kept
        _put(offsets, k, views[k] == values)
    nan = np.isnan(values)
    if nan.any():  # a NaN window's offset is its first NaN, as argmax picks (NaN == NaN is false)
        for k in range(len(views) - 1, -1, -1):
            _put(offsets, k, nan & np.isnan(views[k]))
    return values, offsets


def _put(offsets, k, hit):
    """``offsets[hit] = k`` in integer arithmetic (a masked copy is ~20x slower)."""
    offsets += hit * (offsets.dtype.type(k) - offsets)


def max_pool_grad(g, offsets, geom, in_sizes):
    """The input's gradient: each window's gradient added at its winning offset."""
    if type(g) is not np.ndarray or g.dtype not in _SERVED:
        return NotImplemented
    in_shape = tuple(g.shape[:2]) + tuple(in_sizes)
    plan = _plan(in_shape, geom)
    if plan["tiles"] is not None:
        return _tiled_grad(g, offsets, plan, in_shape)
    buf = np.zeros(plan["padded"] or in_shape, g.dtype)
    zero = g.dtype.type(0)
    # a product with the winners' mask is several times faster than ``where``, and exact
    # unless a gradient is NaN or infinite (0 * inf is NaN: it would leak to the losers)
    finite = bool(np.isfinite(g).all())
    for k, key in enumerate(plan["slices"]):
        share = g * (offsets == k) if finite else np.where(offsets == k, g, zero)
        buf[key] += share  # (added to the zeros even where windows are disjoint: no -0.0)
    if plan["padded"] is not None:
        return np.ascontiguousarray(buf[plan["interior"]])
    return buf


_BITS = {4: np.dtype(np.int32), 8: np.dtype(np.int64)}


def _tiled_grad(g, offsets, plan, in_shape):
    """``max_pool_grad`` where the windows tile the input: offset ``k``'s slots get ``g + 0``
    where ``k`` won and +0.0 elsewhere (the general path's sums into zeros: a -0.0 gradient
    lands as +0.0), as the bits ANDed with an all-ones or all-zeros mask (exact for NaN and
    infinite gradients, which a product with the mask is not), written straight into the
    tiles' strided view of the result. Slots outside every window (floor mode's remainder)
    stay zero."""
    bits = _BITS[g.itemsize]
    buf = (np.empty if plan["exact"] else np.zeros)(in_shape, g.dtype)
    # (a view: splitting a dim into (out, kernel) needs no copy, and ``copy=False`` says so)
    tiles = np.reshape(buf.view(bits)[plan["covered"]], plan["tiles"], copy=False)
    g_bits = (g + g.dtype.type(0)).view(bits)  # (a fresh array: its view is always allowed)
    for k, slot in enumerate(plan["slots"]):
        won = np.subtract(0, (offsets == k).view(np.int8), dtype=bits)  # -1 (all ones) or 0
        np.bitwise_and(g_bits, won, out=tiles[slot])
    return buf
