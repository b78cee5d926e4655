"""The NumPy backend's convolution kernels (``Backend.kernel``'s ``"conv_forward"``,
``"conv_input_grad"`` and ``"conv_weight_grad"``; the contract is in
``arraygrad.nn._functional.conv_rule``), any number of spatial dims, with groups, stride,
padding and dilation.

Chosen for one thread's speed: every window of the (zero-padded) input is one strided view
(``as_strided``), copied once into a ``(C * K, N * L)`` matrix, channel-and-offset-major,
which is the copy NumPy does fastest (whole rows of the output grid at a time), so that each
direction is a single BLAS product per group: ``W @ cols`` forward, ``g @ cols.T`` for the
weight and ``W.T @ g`` for the input's windows. Those are summed back into the input by one
strided-slice add per kernel offset (no ``add.at`` scatter). The geometry of a call is
checked against a small cache of index plans (shapes and strides), so a training loop pays
for none of that arithmetic after its first step.

They serve float32 and float64 NumPy arrays; anything else is declined (``NotImplemented``)
and the portable formulation runs (bfloat16 and float16 keep its rounding, through the
backend's low-precision products).
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = ["conv_forward", "conv_input_grad", "conv_weight_grad"]

_SERVED = (np.dtype(np.float32), np.dtype(np.float64))


def _served(*arrays):
    return all(a is None or (type(a) is np.ndarray and a.dtype in _SERVED) for a in arrays)


@functools.lru_cache(maxsize=256)
def _plan(x_shape, geom, groups):
    """The index plan of one geometry: the padded buffer's shape and where the input sits in
    it, each kernel offset's slices of that buffer, and the products' shapes."""
    kernel, dilation, stride, pad_lo, out = geom
    n, c = x_shape[:2]
    in_sizes = x_shape[2:]
    extent = tuple(max(size + p, (o - 1) * s + d * (k - 1) + 1)
                   for size, k, d, s, p, o in zip(in_sizes, kernel, dilation, stride, pad_lo, out))
    padded = extent != tuple(in_sizes) or any(pad_lo)
    interior = tuple(slice(p, p + size) for size, p in zip(in_sizes, pad_lo))
    offsets = tuple(
        tuple(slice(i * d, i * d + s * (o - 1) + 1, s) for i, d, s, o in zip(off, dilation, stride, out))
        for off in itertools.product(*(range(k) for k in kernel)))
    k = math.prod(kernel)
    length = math.prod(out)
    return {"n": n, "c": c, "extent": extent,
            "padded": (n, c) + extent if padded else None, "interior": interior,
            "offsets": offsets, "k": k, "rows": (groups, c // groups * k, n * length),
            "window": (c,) + tuple(kernel) + (n,) + tuple(out)}


def _columns(x, geom, plan):
    """``(groups, C/groups * K, N * L)``: every window of ``x`` (zero-padded), one copy."""
    if plan["padded"] is not None:
        buf = np.zeros(plan["padded"], x.dtype)
        buf[(slice(None), slice(None)) + plan["interior"]] = x
        x = buf
    _, dilation, stride, _, _ = geom
    s = x.strides
    spatial = s[2:]
    strides = ((s[1],) + tuple(a * d for a, d in zip(spatial, dilation)) + (s[0],)
               + tuple(a * t for a, t in zip(spatial, stride)))
    view = as_strided(x, plan["window"], strides, writeable=False)
    return np.ascontiguousarray(view).reshape(plan["rows"])


def _channels_first(a, groups):
    """``(N, O, *out)`` as ``(groups, O/groups, N * L)`` (one transposing copy)."""
    o = a.shape[1]
    return np.ascontiguousarray(np.moveaxis(a, 1, 0)).reshape(groups, o // groups, -1)


def _batch_first(a):
    """A fresh contiguous ``(N, C, ...)`` from ``(C, N, ...)`` (a transposing copy)."""
    out = np.empty((a.shape[1], a.shape[0]) + a.shape[2:], a.dtype)
    np.copyto(out, np.moveaxis(a, 0, 1))
    return out


def conv_forward(x, w, geom, groups):
    """``(N, O, *out)``: the convolution of ``x`` by ``w`` (no bias)."""
    if not _served(x, w) or x.dtype != w.dtype:
        return NotImplemented
    plan = _plan(x.shape, geom, groups)
    cols = _columns(x, geom, plan)
    o, n = w.shape[0], x.shape[0]
    wm = w.reshape(groups, o // groups, -1)
    if groups == 1:  # a 2-D product: BLAS gemm directly
        y = wm[0] @ cols[0]
    else:
        y = np.matmul(wm, cols)
    return _batch_first(y.reshape((o, n) + tuple(geom[4])))


def conv_weight_grad(g, x, geom, groups, weight_shape):
    """The weight's gradient: ``g @ cols.T`` per group."""
    if not _served(g, x) or g.dtype != x.dtype:
        return NotImplemented
    plan = _plan(x.shape, geom, groups)
    gm = _channels_first(g, groups)  # (groups, O/groups, N * L)
    cols = _columns(x, geom, plan)
    out = np.empty(weight_shape, g.dtype)
    np.matmul(gm, cols.transpose(0, 2, 1), out=out.reshape(gm.shape[:2] + cols.shape[1:2]))
    return out


def conv_input_grad(g, w, geom, groups, in_sizes):
    """The input's gradient: ``W.T @ g`` per group, each window summed back in place."""
    if not _served(g, w) or g.dtype != w.dtype:
        return NotImplemented
    plan = _plan((g.shape[0], w.shape[1] * groups) + tuple(in_sizes), geom, groups)
    gm = _channels_first(g, groups)
    wm = w.reshape(groups, w.shape[0] // groups, -1)
    cols = np.matmul(wm.transpose(0, 2, 1), gm)
    return _sum_windows(cols, plan, g.dtype)


def _sum_windows(cols, plan, dtype):
    """The adjoint of ``_columns``: each kernel offset's windows added into a zero buffer
    (channels first, then batch, as ``cols``), cropped to the input, batch first again."""
    c, n = plan["c"], plan["n"]
    buf = np.zeros((c, n) + plan["extent"], dtype)
    flat = cols.reshape((c, plan["k"], n) + plan["window"][2 + len(plan["extent"]):])
    for k, offset in enumerate(plan["offsets"]):
        buf[(slice(None), slice(None)) + offset] += flat[:, k]
    if plan["padded"] is not None:
        buf = buf[(slice(None), slice(None)) + plan["interior"]]
    return _batch_first(buf)
