"""Convolution as differentiable ops on Array API primitives, for 1, 2 or 3 spatial dims.

Everything rests on one pair of recorded ops over native arrays:

* ``im2col``: gather the ``prod(kernel)`` shifted, strided windows of a padded
  ``(N, C, *spatial)`` array into ``(N, C, prod(kernel), *out)`` (a loop over
  the kernel window only; each step is one strided slice of the whole batch);
* ``col2im``: its adjoint, adding the windows back into ``(N, C, *spatial)``.

Each is the other's backward and both are linear, so gradients of any order
flow through them. Convolution is ``im2col`` followed by one batched
``matmul``; pooling (``arraygrad.nn._functional.pooling``) reduces the window
axis; a transposed convolution is a matmul followed by ``col2im``. The same
code serves every number of spatial dimensions: a geometry is a tuple of
per-axis tuples.

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
that raises is reported, dropped, and the portable path runs. ``conv3d`` and
the transposed convolutions always run the portable path.
"""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any

from arraygrad.ops.arguments import tensor_arg
from arraygrad.amp import state as _amp
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.plugins.registry import dispatch_kernel
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "unfold", "fold",
]


# -- argument normalisation ---------------------------------------------------------

def _pair(value: Any, name: str, n: int = 2) -> tuple[Any, ...]:
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


def _conv_arg(value: Any, name: str, n: int) -> tuple[Any, ...]:
    """A convolution argument as ``n`` ints, with PyTorch's RuntimeError for a wrong length."""
    if isinstance(value, (list, tuple)) and len(value) not in (1, n):
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(value)}")
    return _pair(value, name, n)


def _check_positive(op: str, stride: tuple[Any, ...], dilation: tuple[Any, ...]) -> None:
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


# -- convolution --------------------------------------------------------------------

def _batched(input: Tensor, spatial: int, op: str) -> tuple[Any, ...]:
    """``input`` with a batch dimension, and whether one was added (unbatched input)."""
    tensor_arg(op, input)
    if input.ndim == spatial + 1:
        return input.unsqueeze(0), True
    if input.ndim != spatial + 2:
        raise RuntimeError(
            f"{op}: Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to "
            f"{op}, but got input of size: {list(input.shape)}")
    return input, False


def _conv_padding(padding: Any, kernel: Any, dilation: Any, stride: Any, op: str) -> Any:
    """``padding`` (int, tuple, 'same', 'valid') as one ``(before, after)`` pair per axis."""
    n = len(kernel)
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * n
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: {padding!r}")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        out = []
        for k, d in zip(kernel, dilation):
            total = d * (k - 1)
            out.append((total // 2, total - total // 2))  # PyTorch puts the extra one last
        return tuple(out)
    pads = _conv_arg(padding, "padding", n)
    if min(pads) < 0:
        raise RuntimeError("negative padding is not supported")
    return tuple((p, p) for p in pads)


def _check_conv(input: Tensor, weight: Tensor, bias: Tensor | None, groups: int, op: str,
                spatial: int, transposed: bool = False) -> None:
    """PyTorch's checks of a convolution's weight, groups, channels, bias and dtypes."""
    c_in = input.shape[1]
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.ndim != spatial + 2:
        raise RuntimeError(f"{op}: Expected {spatial + 2}-dimensional weight, but got weight of "
                           f"size {list(weight.shape)}")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size {list(weight.shape)} instead")
    expected = weight.shape[0] if transposed else weight.shape[1] * groups
    kind = "transposed=1" if transposed else f"groups={groups}"
    if c_in != expected:
        raise RuntimeError(
            f"Given {kind}, weight of size {list(weight.shape)}, expected input"
            f"{list(input.shape)} to have {expected} channels, but got {c_in} channels instead")
    c_out = weight.shape[1] * groups if transposed else weight.shape[0]
    if bias is not None and tuple(bias.shape) != (c_out,):
        where = "transposed=1, " if transposed else ""
        raise RuntimeError(f"Given {where}weight of size {list(weight.shape)}, expected bias to "
                           f"be 1-dimensional with {c_out} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"Input type ({input.dtype.name}) and weight type "
                           f"({weight.dtype.name}) should be the same")


def _conv2d_core(x: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, pads: Any,
                 dilation: Any, groups: Any) -> Tensor:
    return dispatch_kernel("conv2d", weight._backend, _convnd_portable,
                           x, weight, bias, stride, pads, dilation, groups)


def _convnd_portable(x: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, pads: Any,
                     dilation: Any, groups: Any) -> Tensor:
    """``im2col`` then one (grouped) matmul: the convolution every backend can run, any N-d."""
    n, c = x.shape[:2]
    o, cg = weight.shape[:2]
    kernel = tuple(weight.shape[2:])
    out = tuple(_out_size(size, k, s, lo, hi, d) for size, k, s, (lo, hi), d
                in zip(x.shape[2:], kernel, stride, pads, dilation))
    if min(out) <= 0:
        raise RuntimeError(
            f"Calculated output size: ({'x'.join(str(v) for v in (o,) + out)}). Output size is "
            f"too small (input {list(x.shape)}, kernel {kernel})")
    geom = (kernel, tuple(dilation), tuple(stride), tuple(p[0] for p in pads), out)
    cols = im2col(x, geom)  # (N, C, K, *out); C-major rows match the weight layout
    k, length = math.prod(kernel), math.prod(out)
    if groups == 1:
        y = weight.reshape(o, cg * k) @ cols.reshape(n, c * k, length)
    else:
        y = weight.reshape(groups, o // groups, cg * k) @ cols.reshape(n, groups, cg * k, length)
    y = y.reshape(n, o, *out)
    if bias is not None:
        y = y + bias.reshape(1, o, *(1,) * len(out))
    return y


_conv2d_portable = _convnd_portable  # the portable fallback of the "conv2d" kernel hook


def _convnd(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
            dilation: Any, groups: int, spatial: int, op: str) -> Tensor:
    """The checks and argument handling every forward convolution shares."""
    x, unbatched = _batched(input, spatial, op)
    _check_conv(x, weight, bias, groups, op, spatial)
    stride = _conv_arg(stride, "stride", spatial)
    dilation = _conv_arg(dilation, "dilation", spatial)
    _check_positive(op, stride, dilation)
    pads = _conv_padding(padding, weight.shape[2:], dilation, stride, op)
    if spatial == 3:
        out = _convnd_portable(x, weight, bias, stride, pads, dilation, groups)
    elif spatial == 2:
        out = _conv2d_core(x, weight, bias, stride, pads, dilation, groups)
    else:  # a height-1 conv2d, so a "conv2d" kernel serves conv1d too
        out = _conv2d_core(x.unsqueeze(2), weight.unsqueeze(2), bias, (1,) + stride,
                           ((0, 0),) + pads, (1,) + dilation, groups).squeeze(2)
    return out.squeeze(0) if unbatched else out


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D cross-correlation over ``(N, C_in, L)`` (or unbatched ``(C_in, L)``).

    ``weight`` is ``(C_out, C_in / groups, k)``; ``padding`` an int, a 1-tuple,
    ``'valid'`` or ``'same'`` (stride 1 only), as ``torch.nn.functional.conv1d``.
    """
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, weight, bias = _amp.cast("conv1d", input, weight, bias)
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D cross-correlation over ``(N, C_in, H, W)`` (or unbatched ``(C_in, H, W)``) input.

    ``weight`` is ``(C_out, C_in / groups, kh, kw)``; ``padding`` an int, a pair,
    ``'valid'`` or ``'same'`` (stride 1 only), as ``torch.nn.functional.conv2d``.
    """
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, weight, bias = _amp.cast("conv2d", input, weight, bias)
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """3-D cross-correlation over ``(N, C_in, D, H, W)`` (or unbatched ``(C_in, D, H, W)``).

    ``weight`` is ``(C_out, C_in / groups, kd, kh, kw)``; ``padding`` an int, a
    triple, ``'valid'`` or ``'same'`` (stride 1 only), as
    ``torch.nn.functional.conv3d``.
    """
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, weight, bias = _amp.cast("conv3d", input, weight, bias)
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def _transposed_size(in_sizes: Any, stride: Any, padding: Any, dilation: Any, kernel: Any,
                     output_padding: Any) -> list[Any]:
    """PyTorch's transposed-convolution output size along each axis."""
    return [(i - 1) * s - 2 * p + d * (k - 1) + op_ + 1
            for i, s, p, d, k, op_ in zip(in_sizes, stride, padding, dilation, kernel,
                                          output_padding)]


def _conv_transposend(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
                      padding: Any, output_padding: Any, groups: int, dilation: Any,
                      spatial: int, op: str) -> Tensor:
    """The transposed convolution for any number of spatial dims: matmul, then ``col2im``."""
    x, unbatched = _batched(input, spatial, op)
    _check_conv(x, weight, bias, groups, op, spatial, transposed=True)
    if isinstance(padding, str):
        raise RuntimeError(f"{op}: string padding ({padding!r}) is not supported for "
                           f"transposed convolutions")
    stride = _conv_arg(stride, "stride", spatial)
    dilation = _conv_arg(dilation, "dilation", spatial)
    padding = _conv_arg(padding, "padding", spatial)
    output_padding = _conv_arg(output_padding, "output_padding", spatial)
    _check_positive(op, stride, dilation)
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    if min(output_padding) < 0:
        raise RuntimeError("negative output_padding is not supported")
    for op_, s, d in zip(output_padding, stride, dilation):
        if op_ >= s and op_ >= d:
            raise RuntimeError("output padding must be smaller than either stride or dilation, "
                               f"but got output_padding={list(output_padding)}, "
                               f"stride={list(stride)}, dilation={list(dilation)}")
    n, c_in = x.shape[:2]
    in_sizes = tuple(x.shape[2:])
    og = weight.shape[1]
    kernel = tuple(weight.shape[2:])
    size = _transposed_size(in_sizes, stride, padding, dilation, kernel, output_padding)
    if min(size) <= 0:
        raise RuntimeError(f"{op}: Given input size {list(x.shape)}, the calculated output size "
                           f"{size} is too small (kernel {kernel}, padding {list(padding)})")
    cg, k, length = c_in // groups, math.prod(kernel), math.prod(in_sizes)
    # (g, og*K, cg) @ (N, g, cg, L) -> per-position windows of the output, then summed back
    w_t = weight.reshape(groups, cg, og * k).transpose(1, 2)
    cols = (w_t @ x.reshape(n, groups, cg, length)).reshape(n, groups * og, k, *in_sizes)
    out = col2im(cols, tuple(size), (kernel, dilation, stride, padding, in_sizes))
    if bias is not None:
        out = out + bias.reshape(1, groups * og, *(1,) * spatial)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    """The adjoint of ``conv1d`` w.r.t. its input, over ``(N, C_in, L)`` or ``(C_in, L)``.

    ``weight`` is ``(C_in, C_out / groups, k)``; the output length is
    ``(L - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.
    """
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, weight, bias = _amp.cast("conv_transpose1d", input, weight, bias)
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 1, "conv_transpose1d")


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    """The adjoint of ``conv2d`` w.r.t. its input ("deconvolution").

    ``weight`` is ``(C_in, C_out / groups, kh, kw)``; the output size is
    ``(H - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.
    """
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, weight, bias = _amp.cast("conv_transpose2d", input, weight, bias)
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 2, "conv_transpose2d")


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    """The adjoint of ``conv3d`` w.r.t. its input, over ``(N, C_in, D, H, W)`` or unbatched.

    ``weight`` is ``(C_in, C_out / groups, kd, kh, kw)``; each output size is
    ``(n - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1``.
    """
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, weight, bias = _amp.cast("conv_transpose3d", input, weight, bias)
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 3, "conv_transpose3d")


# -- public im2col / col2im ---------------------------------------------------------------

def _block_arg(value: Any, name: str) -> tuple[Any, ...]:
    """An ``unfold``/``fold`` argument as a pair, with PyTorch's RuntimeError for a wrong length."""
    if isinstance(value, (list, tuple)) and len(value) != 2:
        raise RuntimeError(f"It is expected {name} equals to 2, but got size {len(value)}")
    return _pair(value, name)


def _block_geometry(kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> tuple[Any, ...]:
    """``unfold``/``fold``'s arguments as pairs, checked as PyTorch does (before any arithmetic)."""
    kernel, dilation = _block_arg(kernel_size, "kernel_size"), _block_arg(dilation, "dilation")
    padding, stride = _block_arg(padding, "padding"), _block_arg(stride, "stride")
    for name, values, ok in (("kernel size", kernel, min(kernel) > 0),
                             ("stride", stride, min(stride) > 0),
                             ("dilation", dilation, min(dilation) > 0),
                             ("padding", padding, min(padding) >= 0)):
        if not ok:
            short = {"kernel size": "kernel", "padding": "pad"}.get(name, name)
            rule = "be non-negative" if name == "padding" else "be greater than zero"
            raise RuntimeError(f"{name} should {rule}, but got {short}_height: {values[0]} "
                               f"{short}_width: {values[1]}")
    return kernel, dilation, padding, stride


def _blocks(size: Any, kernel: Any, dilation: Any, padding: Any, stride: Any) -> tuple[Any, ...]:
    """The number of sliding blocks along each of the two axes."""
    return tuple(_out_size(s_, k, st, p, p, d)
                 for s_, k, st, p, d in zip(size, kernel, stride, padding, dilation))


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:
    """Sliding local blocks (im2col): ``(N, C, H, W)`` -> ``(N, C*kh*kw, L)`` (or unbatched
    ``(C, H, W)`` -> ``(C*kh*kw, L)``)."""
    if input.ndim not in (3, 4) or 0 in tuple(input.shape[-3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    x, unbatched = _batched(input, 2, "unfold")
    kernel, dilation, padding, stride = _block_geometry(kernel_size, dilation, padding, stride)
    n, c, h, w = x.shape
    out = _blocks((h, w), kernel, dilation, padding, stride)
    if min(out) < 1:
        raise RuntimeError(f"Given input with spatial size ({h}, {w}), kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, calculated shape of the "
                           f"array of sliding blocks as {out}, but its components must be at "
                           f"least one.")
    cols = im2col(x, (kernel, dilation, stride, padding, out))
    cols = cols.reshape(n, c * kernel[0] * kernel[1], out[0] * out[1])
    return cols.squeeze(0) if unbatched else cols


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
         stride: Any = 1) -> Tensor:
    """Sum sliding local blocks back into an image (col2im): ``(N, C*kh*kw, L)`` ->
    ``(N, C, H, W)`` (or unbatched ``(C*kh*kw, L)`` -> ``(C, H, W)``)."""
    if input.ndim not in (2, 3) or 0 in tuple(input.shape[-2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           f"batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    size = _block_arg(output_size, "output_size")
    kernel, dilation, padding, stride = _block_geometry(kernel_size, dilation, padding, stride)
    unbatched = input.ndim == 2
    x = input.unsqueeze(0) if unbatched else input
    n, ck, length = x.shape
    k = kernel[0] * kernel[1]
    if ck % k:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the "
                           f"product of kernel_size, but got input.size(1)={ck} and "
                           f"kernel_size={kernel}.")
    out = _blocks(size, kernel, dilation, padding, stride)
    if min(out) < 1 or out[0] * out[1] != length:
        raise RuntimeError(f"Given output_size={size}, kernel_size={kernel}, "
                           f"dilation={dilation}, padding={padding}, stride={stride}, expected "
                           f"size of input's dimension 2 to match the calculated number of "
                           f"sliding blocks {max(out[0], 0)} * {max(out[1], 0)} = "
                           f"{max(out[0], 0) * max(out[1], 0)}, but got input.size(2)={length}.")
    cols = x.reshape(n, ck // k, k, out[0], out[1])
    img = col2im(cols, size, (kernel, dilation, stride, padding, out))
    return img.squeeze(0) if unbatched else img
