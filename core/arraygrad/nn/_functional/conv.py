"""Convolution, pooling and resampling as differentiable ops on Array API primitives.

Everything rests on one pair of recorded ops over native arrays:

* ``im2col``: gather the ``kh*kw`` shifted, strided windows of a padded
  ``(N, C, H, W)`` array into ``(N, C, kh*kw, OH, OW)`` (a loop over the
  kernel window only; each step is one strided slice of the whole batch);
* ``col2im``: its adjoint, adding the windows back into ``(N, C, H, W)``.

Each is the other's backward and both are linear, so gradients of any order
flow through them. Convolution is ``im2col`` followed by one batched
``matmul``; pooling reduces the window axis; ``conv_transpose2d`` is a matmul
followed by ``col2im``.

Kernel hook
-----------
``conv2d`` (and ``conv1d``, which is a 2-D convolution of height 1) runs
through ``arraygrad.plugins.registry.dispatch_kernel``: a ``"conv2d"`` kernel
registered by an op plugin for the backend, else the backend's own
``kernel("conv2d")``, else the portable path. A kernel is a callable::

    kernel(input, weight, bias, stride, padding, dilation, groups) -> Tensor

with ``input`` ``(N, C_in, H, W)``, ``weight`` ``(C_out, C_in/groups, kh, kw)``,
``bias`` a ``(C_out,)`` Tensor or None, ``stride`` and ``dilation`` int pairs and
``padding`` as ``((top, bottom), (left, right))`` zero-padding (asymmetric for
``padding='same'`` with an even extent). It must return a Tensor that takes
part in autograd (for example built with ``arraygrad.autograd.Function``), or
``NotImplemented`` to fall back to the portable path for this call. A kernel
that raises is reported, dropped, and the portable path runs.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

from arraygrad.ops.rule import defop
from arraygrad.plugins.registry import dispatch_kernel
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = [
    "conv1d", "conv2d", "conv_transpose2d", "max_pool2d", "max_pool2d_with_indices",
    "avg_pool2d", "adaptive_avg_pool2d", "unfold", "fold",
]


# -- argument normalisation ---------------------------------------------------------

def _pair(value: Any, name: str, n: int = 2) -> tuple:
    """``value`` (int or sequence of ``n`` ints) as a tuple of ``n`` ints."""
    if isinstance(value, Tensor):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        if len(value) == 1:
            value = tuple(value) * n
        if len(value) != n:
            raise ValueError(f"{name} must be an int or a tuple of {n} ints, got {value!r}")
        return tuple(int(v) for v in value)
    return (int(value),) * n


def _check_positive(op: str, stride: tuple, dilation: tuple) -> None:
    """PyTorch's checks of a convolution's stride and dilation (before any arithmetic)."""
    if min(stride) <= 0:
        raise RuntimeError(f"{op}: non-positive stride is not supported")
    if min(dilation) <= 0:
        raise RuntimeError(f"{op}: dilation should be greater than zero, but got "
                           f"{list(dilation)}")


def _out_size(size: int, k: int, s: int, p_lo: int, p_hi: int, d: int,
              ceil_mode: bool = False) -> int:
    """Sliding-window count along one axis (PyTorch's pooling rule when ``ceil_mode``)."""
    span = size + p_lo + p_hi - d * (k - 1) - 1
    if ceil_mode:
        out = -(-span // s) + 1
        # the last window must start inside the input or the left padding
        if (out - 1) * s >= size + p_lo:
            out -= 1
        return out
    return span // s + 1


# -- the im2col / col2im pair -------------------------------------------------------

def _window_key(i: int, j: int, geom: Any) -> tuple:
    """The strided slice picking kernel offset ``(i, j)`` of every window."""
    (kh, kw), (dh, dw), (sh, sw), _, (oh, ow) = geom
    h0, w0 = i * dh, j * dw
    return (slice(None), slice(None), slice(h0, h0 + sh * (oh - 1) + 1, sh),
            slice(w0, w0 + sw * (ow - 1) + 1, sw))


def _padded_extent(in_hw: Any, geom: Any) -> tuple:
    """Height and width of the padded buffer: the input plus what the windows reach."""
    (kh, kw), (dh, dw), (sh, sw), (pt, pl), (oh, ow) = geom
    hp = max(in_hw[0] + pt, (oh - 1) * sh + dh * (kh - 1) + 1)
    wp = max(in_hw[1] + pl, (ow - 1) * sw + dw * (kw - 1) + 1)
    return hp, wp


def _im2col_data(backend: Backend, data: Any, geom: Any, pad_value: Any = 0) -> Any:
    xp = backend.xp
    n, c, h, w = data.shape
    (kh, kw), _, _, (pt, pl), _ = geom
    hp, wp = _padded_extent((h, w), geom)
    if (hp, wp) != (h, w) or pt or pl:
        padded = xp.full((n, c, hp, wp), pad_value, dtype=data.dtype)
        padded[:, :, pt:pt + h, pl:pl + w] = data
    else:
        padded = data
    return xp.stack([padded[_window_key(i, j, geom)] for i in range(kh) for j in range(kw)],
                    axis=2)


def _col2im_data(backend: Backend, cols: Any, in_hw: Any, geom: Any) -> Any:
    xp = backend.xp
    n, c = cols.shape[:2]
    (kh, kw), _, _, (pt, pl), _ = geom
    h, w = in_hw
    hp, wp = _padded_extent(in_hw, geom)
    padded = xp.zeros((n, c, hp, wp), dtype=cols.dtype)
    for i in range(kh):
        for j in range(kw):
            key = _window_key(i, j, geom)
            padded[key] = padded[key] + cols[:, :, i * kw + j, ...]  # "..." for the standard
    return padded[:, :, pt:pt + h, pl:pl + w]


# each is the other's adjoint: backward of either is the other, so every order works
IM2COL = defop("Im2ColBackward0", params=("in_hw", "geom"),
               vjp=(lambda g, n: col2im(g, n.in_hw, n.geom),))
COL2IM = defop("Col2ImBackward0", params=("in_hw", "geom"),
               vjp=(lambda g, n: im2col(g, n.geom),))


def im2col(input: Tensor, geom: Any, pad_value: Any = 0) -> Tensor:
    """``(N, C, H, W)`` -> ``(N, C, kh*kw, OH, OW)`` windows (recorded; backward is ``col2im``).

    ``geom`` is ``(kernel, dilation, stride, (pad_top, pad_left), (OH, OW))``;
    the bottom/right padding is whatever the windows reach. ``pad_value`` fills
    the padding (``-inf`` for max pooling; it gets no gradient either way).
    """
    data = _im2col_data(input._backend, input._data, geom, pad_value)
    return IM2COL.record(data, input._backend, (input,), in_hw=input._data.shape[2:], geom=geom)


def col2im(cols: Tensor, in_hw: Any, geom: Any) -> Tensor:
    """The adjoint of ``im2col``: windows summed back into ``(N, C, *in_hw)`` (recorded)."""
    data = _col2im_data(cols._backend, cols._data, tuple(in_hw), geom)
    return COL2IM.record(data, cols._backend, (cols,), in_hw=tuple(in_hw), geom=geom)


# -- convolution --------------------------------------------------------------------

def _batched(input: Tensor, spatial: int, op: str) -> tuple[Any, ...]:
    """``input`` with a batch dimension, and whether one was added (unbatched input)."""
    if input.ndim == spatial + 1:
        return input.unsqueeze(0), True
    if input.ndim != spatial + 2:
        raise RuntimeError(
            f"{op}: Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to "
            f"{op}, but got input of size: {list(input.shape)}")
    return input, False


def _conv_padding(padding: Any, kernel: Any, dilation: Any, stride: Any, op: str) -> Any:
    """``padding`` (int, tuple, 'same', 'valid') as ``((top, bottom), (left, right))``."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0), (0, 0))
        if padding != "same":
            raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                             "{'valid', 'same'}")
        if any(s != 1 for s in stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        out = []
        for k, d in zip(kernel, dilation):
            total = d * (k - 1)
            out.append((total // 2, total - total // 2))  # PyTorch puts the extra one last
        return tuple(out)
    ph, pw = _pair(padding, "padding")
    if ph < 0 or pw < 0:
        raise RuntimeError("negative padding is not supported")
    return ((ph, ph), (pw, pw))


def _check_conv(input: Tensor, weight: Tensor, groups: int, op: str,
                transposed: bool = False) -> None:
    c_in = input.shape[1]
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.ndim != 4:
        raise RuntimeError(f"{op}: Expected 4-dimensional weight, but got weight of size "
                           f"{list(weight.shape)}")
    expected = weight.shape[0] if transposed else weight.shape[1] * groups
    if c_in != expected:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight.shape)}, expected input"
            f"{list(input.shape)} to have {expected} channels, but got {c_in} channels instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"{op}: weight's first dimension {weight.shape[0]} is not divisible "
                           f"by groups={groups}")
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"Input type ({input.dtype.name}) and weight type "
                           f"({weight.dtype.name}) should be the same")


def _conv2d_core(x: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, pads: Any,
                 dilation: Any, groups: Any) -> Tensor:
    return dispatch_kernel("conv2d", weight._backend, _conv2d_portable,
                           x, weight, bias, stride, pads, dilation, groups)


def _conv2d_portable(x: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, pads: Any,
                     dilation: Any, groups: Any) -> Tensor:
    """``im2col`` then one (grouped) matmul: the convolution every backend can run."""
    n, c, h, w = x.shape
    o, cg, kh, kw = weight.shape
    (pt, pb), (pl, pr) = pads
    oh = _out_size(h, kh, stride[0], pt, pb, dilation[0])
    ow = _out_size(w, kw, stride[1], pl, pr, dilation[1])
    if oh <= 0 or ow <= 0:
        raise RuntimeError(
            f"Calculated output size: ({o}x{max(oh, 0)}x{max(ow, 0)}). Output size is too small "
            f"(input {list(x.shape)}, kernel ({kh}, {kw}))")
    geom = ((kh, kw), tuple(dilation), tuple(stride), (pt, pl), (oh, ow))
    cols = im2col(x, geom)  # (N, C, K, OH, OW); C-major rows match the weight layout
    if groups == 1:
        out = weight.reshape(o, cg * kh * kw) @ cols.reshape(n, c * kh * kw, oh * ow)
    else:
        cols = cols.reshape(n, groups, cg * kh * kw, oh * ow)
        out = weight.reshape(groups, o // groups, cg * kh * kw) @ cols
    out = out.reshape(n, o, oh, ow)
    if bias is not None:
        out = out + bias.reshape(1, o, 1, 1)
    return out


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D cross-correlation over ``(N, C_in, H, W)`` (or unbatched ``(C_in, H, W)``) input.

    ``weight`` is ``(C_out, C_in / groups, kh, kw)``; ``padding`` an int, a pair,
    ``'valid'`` or ``'same'`` (stride 1 only), as ``torch.nn.functional.conv2d``.
    """
    x, unbatched = _batched(input, 2, "conv2d")
    _check_conv(x, weight, groups, "conv2d")
    stride, dilation = _pair(stride, "stride"), _pair(dilation, "dilation")
    _check_positive("conv2d", stride, dilation)
    pads = _conv_padding(padding, weight.shape[2:], dilation, stride, "conv2d")
    out = _conv2d_core(x, weight, bias, stride, pads, dilation, groups)
    return out.squeeze(0) if unbatched else out


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0,
           dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D cross-correlation over ``(N, C_in, L)`` (or ``(C_in, L)``): a height-1 ``conv2d``."""
    x, unbatched = _batched(input, 1, "conv1d")
    if weight.ndim != 3:
        raise RuntimeError(f"conv1d: Expected 3-dimensional weight, but got weight of size "
                           f"{list(weight.shape)}")
    w4 = weight.unsqueeze(2)
    _check_conv(x, w4, groups, "conv1d")
    (s,), (d,) = _pair(stride, "stride", 1), _pair(dilation, "dilation", 1)
    _check_positive("conv1d", (s,), (d,))
    if isinstance(padding, str):
        pads = _conv_padding(padding, (1, weight.shape[2]), (1, d), (1, s), "conv1d")
    else:
        (p,) = _pair(padding, "padding", 1)
        pads = ((0, 0), (p, p))
    out = _conv2d_core(x.unsqueeze(2), w4, bias, (1, s), pads, (1, d), groups).squeeze(2)
    return out.squeeze(0) if unbatched else out


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    """The adjoint of ``conv2d`` w.r.t. its input ("deconvolution").

    ``weight`` is ``(C_in, C_out / groups, kh, kw)``; the output size is
    ``(H - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.
    """
    x, unbatched = _batched(input, 2, "conv_transpose2d")
    _check_conv(x, weight, groups, "conv_transpose2d", transposed=True)
    stride, dilation = _pair(stride, "stride"), _pair(dilation, "dilation")
    padding, output_padding = _pair(padding, "padding"), _pair(output_padding, "output_padding")
    for op_, s, d in zip(output_padding, stride, dilation):
        if op_ >= s and op_ >= d:
            raise RuntimeError("output padding must be smaller than either stride or dilation, "
                               f"but got output_padding={output_padding}, stride={stride}, "
                               f"dilation={dilation}")
    n, c_in, h, w = x.shape
    _, og, kh, kw = weight.shape
    size = [(i - 1) * s - 2 * p + d * (k - 1) + op_ + 1
            for i, s, p, d, k, op_ in zip((h, w), stride, padding, dilation, (kh, kw),
                                          output_padding)]
    if size[0] <= 0 or size[1] <= 0:
        raise RuntimeError(f"conv_transpose2d: output size {size} is too small")
    cg, k = c_in // groups, kh * kw
    # (g, og*K, cg) @ (N, g, cg, H*W) -> per-pixel windows of the output, then summed back
    w_t = weight.reshape(groups, cg, og * k).transpose(1, 2)
    cols = w_t @ x.reshape(n, groups, cg, h * w)
    cols = cols.reshape(n, groups * og, k, h, w)
    geom = ((kh, kw), dilation, stride, padding, (h, w))
    out = col2im(cols, tuple(size), geom)
    if bias is not None:
        out = out + bias.reshape(1, groups * og, 1, 1)
    return out.squeeze(0) if unbatched else out


# -- pooling --------------------------------------------------------------------------

def _pool_geom(x: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
               ceil_mode: bool, op: str) -> tuple[Any, ...]:
    kernel = _pair(kernel_size, "kernel_size")
    stride = kernel if stride is None or stride == [] or stride == () else _pair(stride, "stride")
    padding, dilation = _pair(padding, "padding"), _pair(dilation, "dilation")
    if 0 in stride:  # checked first: a zero stride would divide by zero below
        raise RuntimeError(f"{op}: stride should not be zero")
    if min(dilation) <= 0:
        raise RuntimeError(f"{op}: dilation should be greater than zero, but got dilationH: "
                           f"{dilation[0]} dilationW: {dilation[1]}")
    for k, p in zip(kernel, padding):
        if p > k // 2:
            raise RuntimeError(f"{op}: pad should be at most half of effective kernel size, but "
                               f"got pad={p}, kernel_size={k}")
    h, w = x.shape[2:]
    out = tuple(_out_size(size, k, s, p, p, d, ceil_mode)
                for size, k, s, p, d in zip((h, w), kernel, stride, padding, dilation))
    if out[0] <= 0 or out[1] <= 0:
        raise RuntimeError(f"{op}: Given input size ({x.shape[1]}x{h}x{w}). Calculated output "
                           f"size: ({x.shape[1]}x{out[0]}x{out[1]}). Output size is too small")
    return (kernel, dilation, stride, padding, out)


def max_pool2d_with_indices(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
                            dilation: Any = 1,
                            ceil_mode: bool = False) -> tuple[Any, ...]:
    """``(values, indices)`` of 2-D max pooling; indices are flat ``h * W + w`` per plane."""
    x, unbatched = _batched(input, 2, "max_pool2d")
    geom = _pool_geom(x, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d")
    values, arg = im2col(x, geom, pad_value=-math.inf).max(dim=2)
    indices = _window_to_flat(arg, x.shape[3], geom)
    if unbatched:
        return values.squeeze(0), indices.squeeze(0)
    return values, indices


def _window_to_flat(arg: Tensor, width: int, geom: Any) -> Tensor:
    """Window offsets ``k`` -> PyTorch's flat input index ``h * W + w`` (integer arithmetic)."""
    (kh, kw), (dh, dw), (sh, sw), (pt, pl), (oh, ow) = geom
    backend = arg._backend
    xp = backend.xp
    a = arg._data
    rows = xp.reshape(xp.arange(oh, dtype=a.dtype), (oh, 1)) * sh - pt
    cols = xp.reshape(xp.arange(ow, dtype=a.dtype), (1, ow)) * sw - pl
    h = rows + (a // kw) * dh
    w = cols + (a % kw) * dw
    return Tensor._wrap(h * width + w, backend)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1,
               ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """2-D max pooling (``stride`` defaults to ``kernel_size``); padding counts as ``-inf``."""
    values, indices = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation,
                                              ceil_mode)
    return (values, indices) if return_indices else values


def _avg_divisor(in_hw: Any, geom: Any, count_include_pad: bool) -> Any:
    """Per-output-pixel divisor: PyTorch's window sizes, clipped to input (+ padding)."""
    kernel, _, stride, padding, out = geom
    per_axis = []
    for size, k, s, p, n in zip(in_hw, kernel, stride, padding, out):
        counts = []
        for o in range(n):  # one integer per output row/column: not per pixel
            start = o * s - p
            end = min(start + k, size + p)
            full = end - start
            counts.append(full if count_include_pad else min(end, size) - max(start, 0))
        per_axis.append(counts)
    return per_axis


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: Any = None) -> Tensor:
    """2-D average pooling, with PyTorch's divisor rules for padding and ``ceil_mode``."""
    x, unbatched = _batched(input, 2, "avg_pool2d")
    geom = _pool_geom(x, kernel_size, stride, padding, 1, ceil_mode, "avg_pool2d")
    total = im2col(x, geom).sum(dim=2)
    if divisor_override is not None:
        if divisor_override == 0:
            raise RuntimeError("divisor must be not zero")
        out = total / divisor_override
    else:
        rows, cols = _avg_divisor(x.shape[2:], geom, count_include_pad)
        backend = x._backend
        xp = backend.xp
        dt = x._data.dtype
        div = (xp.reshape(backend.from_host(rows, dt), (-1, 1))
               * xp.reshape(backend.from_host(cols, dt), (1, -1)))
        out = total / Tensor._wrap(div, backend)
    return out.squeeze(0) if unbatched else out


def _adaptive_matrix(size: int, out: int, like: Tensor) -> Tensor:
    """``(out, size)`` averaging matrix over PyTorch's adaptive bins ``[floor(i*s/o), ceil((i+1)*s/o))``."""
    rows = []
    for i in range(out):
        start, end = (i * size) // out, -(-((i + 1) * size) // out)
        rows.append([1.0 / (end - start) if start <= j < end else 0.0 for j in range(size)])
    backend = like._backend
    return Tensor._wrap(backend.from_host(rows, like._data.dtype), backend)


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a fixed ``output_size`` (an int, a pair, ``None`` keeps a size).

    The average over a rectangle is separable, so it is two matmuls with
    constant bin-averaging matrices.
    """
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got "
                           f"{list(input.shape)}")
    if not isinstance(output_size, (list, tuple)):
        output_size = (output_size, output_size)
    h, w = input.shape[-2:]
    oh = h if output_size[0] is None else int(output_size[0])
    ow = w if output_size[1] is None else int(output_size[1])
    if oh < 0 or ow < 0:
        raise RuntimeError(f"adaptive_avg_pool2d: elements of output_size must be greater than "
                           f"or equal to 0 but received {{{oh}, {ow}}}")
    ph = _adaptive_matrix(h, oh, input)
    pw = _adaptive_matrix(w, ow, input)
    return ph @ input @ pw.transpose(0, 1)


# -- public im2col / col2im ---------------------------------------------------------------

def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:
    """Sliding local blocks (im2col): ``(N, C, H, W)`` -> ``(N, C*kh*kw, L)``."""
    x, unbatched = _batched(input, 2, "unfold")
    kernel, dilation = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    padding, stride = _pair(padding, "padding"), _pair(stride, "stride")
    n, c, h, w = x.shape
    out = tuple(_out_size(size, k, s, p, p, d)
                for size, k, s, p, d in zip((h, w), kernel, stride, padding, dilation))
    if out[0] <= 0 or out[1] <= 0:
        raise RuntimeError(f"unfold: calculated shape of the array of sliding blocks is "
                           f"{list(out)}, which is too small (non-positive)")
    cols = im2col(x, (kernel, dilation, stride, padding, out))
    cols = cols.reshape(n, c * kernel[0] * kernel[1], out[0] * out[1])
    return cols.squeeze(0) if unbatched else cols


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:
    """Sum sliding local blocks back into an image (col2im): ``(N, C*kh*kw, L)`` -> ``(N, C, H, W)``."""
    unbatched = input.ndim == 2
    x = input.unsqueeze(0) if unbatched else input
    if x.ndim != 3:
        raise RuntimeError(f"fold: Expected 2D or 3D (batch mode) tensor for input with "
                           f"possibly 0 batch size, but got: {list(input.shape)}")
    size, kernel = _pair(output_size, "output_size"), _pair(kernel_size, "kernel_size")
    dilation, padding = _pair(dilation, "dilation"), _pair(padding, "padding")
    stride = _pair(stride, "stride")
    n, ck, length = x.shape
    k = kernel[0] * kernel[1]
    if ck % k:
        raise RuntimeError(f"fold: Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={ck} and "
                           f"kernel_size={kernel}")
    out = tuple(_out_size(s_, kk, st, p, p, d)
                for s_, kk, st, p, d in zip(size, kernel, stride, padding, dilation))
    if out[0] * out[1] != length:
        raise RuntimeError(f"fold: Given output_size = {size}, kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, stride={stride}, expected "
                           f"size of input's dimension 2 to match the calculated number of "
                           f"sliding blocks {out[0]} * {out[1]} = {out[0] * out[1]}, but got "
                           f"input.size(2)={length}.")
    cols = x.reshape(n, ck // k, k, out[0], out[1])
    img = col2im(cols, size, (kernel, dilation, stride, padding, out))
    return img.squeeze(0) if unbatched else img
