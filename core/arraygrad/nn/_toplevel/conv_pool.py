"""Top-level convolutions, pooling, padding, shuffles and grid sampling (``torch.conv2d``,
``torch.max_pool2d``, ``torch.grid_sampler``...): PyTorch's positional ATen signatures over
``nn.functional``."""

from __future__ import annotations

from typing import Any

from arraygrad.nn._functional import conv as _conv, padding as _padding
from arraygrad.nn._functional import pooling as _pool, sampling as _sampling
from arraygrad.nn._functional.conv_tbc import conv_tbc
from arraygrad.nn._functional.script_helpers import (GRID_SAMPLE_INTERPOLATION_MODES,
                                                     GRID_SAMPLE_PADDING_MODES)
from arraygrad.nn._toplevel._args import stride_or_none
from arraygrad.tensor import Tensor

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "conv_tbc", "convolution", "adaptive_avg_pool1d",
           "adaptive_max_pool1d", "avg_pool1d", "max_pool1d", "max_pool1d_with_indices",
           "max_pool2d", "max_pool3d", "constant_pad_nd", "pixel_shuffle", "pixel_unshuffle",
           "channel_shuffle", "native_channel_shuffle", "affine_grid_generator",
           "grid_sampler", "grid_sampler_2d", "grid_sampler_3d"]

conv1d, conv2d, conv3d = _conv.conv1d, _conv.conv2d, _conv.conv3d
conv_transpose1d = _conv.conv_transpose1d
conv_transpose2d = _conv.conv_transpose2d
conv_transpose3d = _conv.conv_transpose3d
adaptive_avg_pool1d = _pool.adaptive_avg_pool1d
pixel_shuffle, pixel_unshuffle = _sampling.pixel_shuffle, _sampling.pixel_unshuffle
channel_shuffle, native_channel_shuffle = _sampling.channel_shuffle, _sampling.native_channel_shuffle


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
                dilation: Any, transposed: bool, output_padding: Any, groups: int) -> Tensor:
    """The convolution of ``input`` (1-, 2- or 3-D by the weight's rank), transposed when
    ``transposed``: every convolution's common form."""
    n = weight.ndim - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"convolution: expected a 3-D, 4-D or 5-D weight, got "
                           f"{weight.ndim}-D")
    if transposed:
        fn = (conv_transpose1d, conv_transpose2d, conv_transpose3d)[n - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return (conv1d, conv2d, conv3d)[n - 1](input, weight, bias, stride, padding, dilation,
                                           groups)


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """``(output, indices)`` of 1-D adaptive max pooling."""
    return _pool.adaptive_max_pool1d_with_indices(input, output_size)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """1-D average pooling (``stride`` empty: the kernel size)."""
    return _pool.avg_pool1d(input, kernel_size, stride_or_none(stride), padding, ceil_mode,
                            count_include_pad)


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    """1-D max pooling (``stride`` empty: the kernel size)."""
    return _pool.max_pool1d(input, kernel_size, stride_or_none(stride), padding, dilation,
                            ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size: Any, stride: Any = (),
                            padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False) -> tuple[Tensor, Tensor]:
    """``(output, indices)`` of 1-D max pooling."""
    return _pool.max_pool1d_with_indices(input, kernel_size, stride_or_none(stride), padding,
                                         dilation, ceil_mode)


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    """2-D max pooling (``stride`` empty: the kernel size)."""
    return _pool.max_pool2d(input, kernel_size, stride_or_none(stride), padding, dilation,
                            ceil_mode)


def max_pool3d(input: Tensor, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> Tensor:
    """3-D max pooling (``stride`` empty: the kernel size)."""
    return _pool.max_pool3d(input, kernel_size, stride_or_none(stride), padding, dilation,
                            ceil_mode)


def constant_pad_nd(input: Tensor, pad: Any, value: float = 0) -> Tensor:
    """``input`` padded with ``value`` (``pad`` as ``nn.functional.pad``'s, last dim first)."""
    return _padding.pad(input, pad, "constant", value)


def affine_grid_generator(theta: Tensor, size: Any, align_corners: bool) -> Tensor:
    """``nn.functional.affine_grid`` with ``align_corners`` required."""
    return _sampling.affine_grid(theta, size, align_corners)


_MODE_NAMES = {v: k for k, v in GRID_SAMPLE_INTERPOLATION_MODES.items()}
_PADDING_NAMES = {v: k for k, v in GRID_SAMPLE_PADDING_MODES.items()}


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    """``nn.functional.grid_sample`` with the modes as integers (``GRID_SAMPLE_*_MODES``)."""
    if interpolation_mode not in _MODE_NAMES:
        raise RuntimeError(f"grid_sampler(): unknown interpolation mode {interpolation_mode}")
    if padding_mode not in _PADDING_NAMES:
        raise RuntimeError(f"grid_sampler(): unknown padding mode {padding_mode}")
    return _sampling.grid_sample(input, grid, _MODE_NAMES[interpolation_mode],
                                 _PADDING_NAMES[padding_mode], align_corners)


def _grid_sampler_nd(n: int) -> Any:
    def fn(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
           align_corners: bool) -> Tensor:
        if input.ndim != n + 2:
            raise RuntimeError(f"grid_sampler(): expected {n + 2}D input and grid with same "
                               f"number of dimensions, but got input with sizes "
                               f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
        return grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)

    fn.__name__ = fn.__qualname__ = f"grid_sampler_{n}d"
    fn.__doc__ = f"``grid_sampler`` of a {n + 2}-D input."
    return fn


grid_sampler_2d, grid_sampler_3d = _grid_sampler_nd(2), _grid_sampler_nd(3)
