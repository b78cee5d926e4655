"""The NumPy backend's convolution kernels (``Backend.kernel``'s ``"conv_forward"``,
``"conv_input_grad"`` and ``"conv_weight_grad"``; the contract is in
``arraygrad.nn._functional.conv_rule``), any number of spatial dims, with groups, stride,
padding and dilation.

Chosen for one thread's speed:

* **Windows a few samples at a time.** Every window of the (zero-padded) input is one
  strided view (``as_strided``); a chunk of samples is copied into a block small enough to
  stay in cache while the products read it. Batch-major, ``(chunk, C * K, L)``, each
  direction is one stacked BLAS product per chunk (``W @ cols`` forward, straight into the
  batch-first output; ``g @ cols.T`` summed over the chunk for the weight; ``W.T @ g`` for
  the input's windows). With few output positions per sample (``L`` under
  ``_CHANNELS_FIRST_BELOW``: 8x8 maps) those per-sample products are too small for BLAS, and
  the block is laid out channels first, ``(C * K, chunk * L)``: the chunk's samples side by
  side as the columns of ONE product per group and direction (the output and the weight's
  gradient then take one transposing copy of a chunk). Nothing of the size of all the
  windows of the batch is ever made.
* **The input's gradient without short scatters.** With unit stride, the windows of kernel
  offset ``k`` are, in the flattened padded plane, one contiguous span starting at that
  offset (rows of the output grid padded to the plane's width, the extra columns given zero
  gradient), so the windows' gradients are summed back by one long slice add per offset
  instead of one per output row; channels first, the span runs across the chunk's samples
  (``_input_grad_spans``). Other strides add each offset's windows by a strided slice (no
  ``add.at`` scatter either way).
* The geometry of a call is checked against a small cache of index plans (shapes, strides,
  chunk size), so a training loop pays for none of that arithmetic after its first step.

They serve float32 and float64 NumPy arrays; anything else is declined (``NotImplemented``)
and the portable formulation runs (bfloat16 and float16 keep its rounding, through the
backend's low-precision products).
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

__all__ = ["conv_forward", "conv_input_grad", "conv_weight_grad"]

_SERVED = (np.dtype(np.float32), np.dtype(np.float64))

# bytes of one chunk's windows: about 1 MiB keeps the block in L2 between its copy and its
# product (measured on 1 thread: the whole batch at once is up to 1.5x slower on MNIST's conv2)
_CHUNK_BYTES = 1 << 20
# output positions per sample below which the windows are laid out channels first (see
# ``_windows``): measured on one thread, 8x8 outputs (64) gain 10-30%, MNIST's 26x26 (676)
# lose as much to the transposing copies
_CHANNELS_FIRST_BELOW = 256


def _served(*arrays):
    return all(a is None or (type(a) is np.ndarray and a.dtype in _SERVED) for a in arrays)


@functools.lru_cache(maxsize=256)
def _plan(x_shape, geom, groups, itemsize):
    """The index plan of one geometry: the padded buffer's shape and where the input sits in
    it, the chunk size, each kernel offset's place (strided slices; flat span starts with
    unit stride) and the products' shapes."""
    kernel, dilation, stride, pad_lo, out = geom
    n, c = x_shape[:2]
    in_sizes = x_shape[2:]
    extent = tuple(max(size + p, (o - 1) * s + d * (k - 1) + 1)
                   for size, k, d, s, p, o in zip(in_sizes, kernel, dilation, stride, pad_lo, out))
    offsets = tuple(itertools.product(*(range(k) for k in kernel)))
    k = math.prod(kernel)
    length = math.prod(out)
    # flat strides of the padded plane, in elements
    plane = tuple(math.prod(extent[a + 1:]) for a in range(len(extent)))
    unit = all(s == 1 for s in stride)
    return {
        "n": n, "c": c, "k": k, "length": length, "extent": extent,
        "padded": (n, c) + extent if extent != tuple(in_sizes) or any(pad_lo) else None,
        "interior": (slice(None), slice(None)) + tuple(
            slice(p, p + size) for size, p in zip(in_sizes, pad_lo)),
        "chunk": max(1, min(n, _CHUNK_BYTES // max(1, c * k * length * itemsize))),
        "window": (c,) + tuple(kernel) + tuple(out),
        # few output positions per sample: one product over the chunk's samples (columns
        # side by side) instead of one small product per sample
        "channels_first": length < _CHANNELS_FIRST_BELOW,
        "slices": tuple((slice(None), slice(None)) + tuple(
            slice(i * d, i * d + s * (o - 1) + 1, s) for i, d, s, o in zip(off, dilation, stride, out))
            for off in offsets),
        # unit stride: offset ``k``'s windows are the flat span ``starts[k] : + span``, and
        # output position ``r`` sits at ``sum(r * plane)`` of it
        "starts": tuple(sum(i * d * p for i, d, p in zip(off, dilation, plane))
                        for off in offsets) if unit else None,
        "span": sum((o - 1) * p for o, p in zip(out, plane)) + 1,
        "plane": plane,
    }


def _padded(x, plan):
    """``x`` zero-padded to the plane the windows read (``x`` itself when none is needed)."""
    if plan["padded"] is None:
        return x
    buf = np.zeros(plan["padded"], x.dtype)
    buf[plan["interior"]] = x
    return buf


def _windows(xp, geom, plan, a, b, groups):
    """Samples ``a:b`` of every window of the padded input ``xp`` as one contiguous block
    (one copy of a strided view): ``(b - a, groups, C/groups * K, L)`` batch-major, or with
    ``plan["channels_first"]`` ``(groups, C/groups * K, (b - a) * L)``, the chunk's output
    positions side by side as the columns of ONE matrix per group."""
    _, dilation, stride, _, _ = geom
    s = xp.strides
    spatial = s[2:]
    window = plan["window"]  # (C, *kernel, *out)
    offsets = tuple(t * d for t, d in zip(spatial, dilation))
    steps = tuple(t * u for t, u in zip(spatial, stride))
    if not plan["channels_first"]:
        view = as_strided(xp[a:b], (b - a,) + window, (s[0], s[1]) + offsets + steps,
                          writeable=False)
        return np.ascontiguousarray(view).reshape(b - a, groups, -1, plan["length"])
    nd = len(spatial)
    view = as_strided(xp[a:b], window[:1 + nd] + (b - a,) + window[1 + nd:],
                      (s[1],) + offsets + (s[0],) + steps, writeable=False)
    return np.ascontiguousarray(view).reshape(groups, -1, (b - a) * plan["length"])


def _by_group(w, groups):
    """``(groups, O/groups, C/groups * K)``: the weight as each group's matrix."""
    return w.reshape(groups, w.shape[0] // groups, -1)


def _channels_first(g: Any, a: int, b: int, groups: int) -> Any:
    """Samples ``a:b`` of ``g`` (N, O, L) as ``(groups, O/groups, (b - a) * L)``: the
    output positions of the chunk as the columns ``_windows`` has (one transposing copy)."""
    _, o, length = g.shape
    block = np.ascontiguousarray(g[a:b].transpose(1, 0, 2))
    return block.reshape(groups, o // groups, (b - a) * length)


def conv_forward(x, w, geom, groups):
    """``(N, O, *out)``: the convolution of ``x`` by ``w`` (no bias)."""
    if not _served(x, w) or x.dtype != w.dtype:
        return NotImplemented
    plan = _plan(x.shape, geom, groups, x.itemsize)
    xp = _padded(x, plan)
    n, o, step, length = x.shape[0], w.shape[0], plan["chunk"], plan["length"]
    y = np.empty((n, o) + tuple(geom[4]), x.dtype)
    wm = _by_group(w, groups)
    if not plan["channels_first"]:
        flat = y.reshape(n, groups, o // groups, length)
        for a in range(0, n, step):
            b = min(n, a + step)
            np.matmul(wm, _windows(xp, geom, plan, a, b, groups), out=flat[a:b])
        return y
    rows = y.reshape(n, o, length)
    for a in range(0, n, step):
        b = min(n, a + step)
        product = np.matmul(wm, _windows(xp, geom, plan, a, b, groups))
        rows[a:b] = product.reshape(o, b - a, length).transpose(1, 0, 2)
    return y


def conv_weight_grad(g, x, geom, groups, weight_shape):
    """The weight's gradient: ``g @ cols.T`` per group, the chunk's samples and positions
    summed by the product itself."""
    if not _served(g, x) or g.dtype != x.dtype:
        return NotImplemented
    plan = _plan(x.shape, geom, groups, x.itemsize)
    xp = _padded(x, plan)
    n, o, step = x.shape[0], g.shape[1], plan["chunk"]
    length, first = plan["length"], plan["channels_first"]
    gflat = np.reshape(g, (n, o, length) if first else (n, groups, o // groups, length))
    out: Any = None
    for a in range(0, n, step):
        b = min(n, a + step)
        cols = _windows(xp, geom, plan, a, b, groups)
        if first:
            part = np.matmul(_channels_first(gflat, a, b, groups), cols.transpose(0, 2, 1))
        else:
            part = np.matmul(gflat[a:b], cols.transpose(0, 1, 3, 2))
            part = part[0] if b - a == 1 else part.sum(0)
        if out is None:
            out = part
        else:
            out += part
    return out.reshape(weight_shape)


def conv_input_grad(g, w, geom, groups, in_sizes):
    """The input's gradient: ``W.T @ g`` per group, each kernel offset's windows added back
    into a zero plane (one slice add per offset and chunk)."""
    if not _served(g, w) or g.dtype != w.dtype:
        return NotImplemented
    n, o = g.shape[:2]
    plan = _plan((n, w.shape[1] * groups) + tuple(in_sizes), geom, groups, g.itemsize)
    wt = _by_group(w, groups).transpose(0, 2, 1)
    if plan["starts"] is not None and plan["channels_first"]:
        return _input_grad_spans(g, wt, plan, groups, tuple(in_sizes))
    buf = np.zeros((n, plan["c"]) + plan["extent"], g.dtype)
    if plan["starts"] is not None:
        _add_spans(buf, np.reshape(g, (n, groups, o // groups) + tuple(geom[4])), wt, plan)
    else:
        _add_windows(buf, np.reshape(g, (n, groups, o // groups, plan["length"])), wt, plan)
    if plan["padded"] is not None:
        return np.ascontiguousarray(buf[plan["interior"]])
    return buf


def _add_windows(buf, gm, wt, plan):
    """Any stride: each offset's windows of a chunk added by one strided slice."""
    n, c, k, step = plan["n"], plan["c"], plan["k"], plan["chunk"]
    out = plan["window"][1 + len(plan["extent"]):]
    for a in range(0, n, step):
        b = min(n, a + step)
        cols = np.matmul(wt, gm[a:b]).reshape((b - a, c, k) + out)
        part = buf[a:b]
        for i, key in enumerate(plan["slices"]):
            part[key] += cols[:, :, i]


def _input_grad_spans(g: Any, wt: Any, plan: Any, groups: int, in_sizes: tuple[int, ...]) -> Any:
    """Unit stride: the chunk's output grid laid on its padded planes, channels first and
    samples one after the other (zeros between rows), so each kernel offset's windows are ONE
    contiguous span of the flat planes, added by one slice per offset and chunk."""
    n, c, k, step = plan["n"], plan["c"], plan["k"], plan["chunk"]
    o = g.shape[1]
    extent = plan["extent"]
    size = math.prod(extent)
    on_grid = (slice(None), slice(None)) + tuple(slice(0, s) for s in plan["window"][-len(extent):])
    dx = np.empty((n, c) + in_sizes, g.dtype)
    for a in range(0, n, step):
        b = min(n, a + step)
        grid = np.zeros((o, b - a) + extent, g.dtype)
        grid[on_grid] = g[a:b].swapaxes(0, 1)
        cols = np.matmul(wt, grid.reshape(groups, o // groups, (b - a) * size))
        cols = cols.reshape(c, k, (b - a) * size)
        planes = np.zeros((c, (b - a) * size), g.dtype)
        span = (b - a - 1) * size + plan["span"]
        for i, start in enumerate(plan["starts"]):
            planes[:, start:start + span] += cols[:, i, :span]
        dx[a:b] = planes.reshape((c, b - a) + extent)[plan["interior"]].swapaxes(0, 1)
    return dx


def _add_spans(buf, g, wt, plan):
    """Unit stride: the output grid laid on the padded plane's rows (zeros between), so each
    offset's windows are one contiguous span of the flat plane, added by one slice."""
    n, c, k, step, span = plan["n"], plan["c"], plan["k"], plan["chunk"], plan["span"]
    groups, og = g.shape[1], g.shape[2]
    grid = np.zeros((n, groups, og, math.prod(plan["extent"])), g.dtype)
    item = g.itemsize
    on_plane = as_strided(grid, g.shape, grid.strides[:3] + tuple(p * item for p in plan["plane"]))
    on_plane[...] = g
    grid = grid[..., :span]
    flat = buf.reshape(n, c, -1)
    for a in range(0, n, step):
        b = min(n, a + step)
        cols = np.matmul(wt, grid[a:b]).reshape(b - a, c, k, span)
        part = flat[a:b]
        for i, start in enumerate(plan["starts"]):
            part[:, :, start:start + span] += cols[:, :, i]
