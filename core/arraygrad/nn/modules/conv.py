"""Convolution layers: ``Conv1d/2d/3d`` and ``ConvTranspose1d/2d/3d``.

Weights use PyTorch's default initialisation: ``kaiming_uniform_(a=sqrt(5))``
(that is U(-1/sqrt(fan_in), 1/sqrt(fan_in))) and the bias
U(-1/sqrt(fan_in), 1/sqrt(fan_in)), so a seeded model starts at the same
scale as its PyTorch twin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence


from arraygrad.creation import empty
from arraygrad.nn import init
from arraygrad.nn._functional import conv as C
from arraygrad.nn.modules.module import Module
from arraygrad.nn.parameter import Parameter, optional_parameter

if TYPE_CHECKING:
    from arraygrad.device import DeviceLike
    from arraygrad.dtypes import dtype
    from arraygrad.tensor import Tensor

    _IntOrTuple = int | tuple[int, ...]

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}


def _ntuple(value: Any, n: int) -> tuple[Any, ...]:
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


class _ConvNd(Module):
    """Shared construction, initialisation and ``repr`` of the convolution layers."""

    _n = 2
    _transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _IntOrTuple,
                 stride: _IntOrTuple, padding: _IntOrTuple | str, dilation: _IntOrTuple,
                 groups: int, bias: bool, padding_mode: str, output_padding: _IntOrTuple = 0,
                 device: DeviceLike | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        n = self._n
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in {"same", "valid"}:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding: tuple[int, ...] | str = (padding if isinstance(padding, str)
                                               else _ntuple(padding, n))
        self.dilation = _ntuple(dilation, n)
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        shape = ((in_channels, out_channels // groups) if self._transposed
                 else (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(empty(*shape, dtype=dtype, device=device))
        optional_parameter(self, "bias", bias, out_channels, dtype=dtype, device=device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Re-draw the weights with PyTorch's default initialisation."""
        init.default_layer_init_(self.weight, self.bias)

    def _padded(self, input: Tensor) -> Tensor:
        """``input`` padded by ``padding_mode`` (non-zero modes pad explicitly, as PyTorch)."""
        from arraygrad.nn._functional.padding import pad

        amounts = []
        if self.padding == "valid":
            amounts = [0, 0] * self._n
        elif isinstance(self.padding, str):  # 'same': the extra element goes last
            for k, d in reversed(list(zip(self.kernel_size, self.dilation))):
                total = d * (k - 1)
                amounts += [total // 2, total - total // 2]
        else:
            for p in reversed(self.padding):
                amounts += [p, p]
        return pad(input, amounts, mode=self.padding_mode)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * self._n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    """A forward convolution: ``padding_mode`` pads explicitly, then the functional op runs."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _IntOrTuple,
                 stride: _IntOrTuple = 1, padding: _IntOrTuple | str = 0,
                 dilation: _IntOrTuple = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: DeviceLike | None = None,
                 dtype: dtype | None = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device=device, dtype=dtype)

    def forward(self, input: Tensor) -> Tensor:
        """The functional convolution with this layer's settings."""
        if self.padding_mode != "zeros":
            return self._conv(self._padded(input), self.weight, self.bias, self.stride, 0,
                              self.dilation, self.groups)
        return self._conv(input, self.weight, self.bias, self.stride, self.padding,
                          self.dilation, self.groups)


class Conv1d(_Conv):
    """1-D convolution over ``(N, C_in, L)``; weight ``(C_out, C_in / groups, k)``."""

    _n = 1
    _conv = staticmethod(C.conv1d)


class Conv2d(_Conv):
    """2-D convolution over ``(N, C_in, H, W)``; weight ``(C_out, C_in / groups, kh, kw)``."""

    _conv = staticmethod(C.conv2d)


class Conv3d(_Conv):
    """3-D convolution over ``(N, C_in, D, H, W)``; weight ``(C_out, C_in / groups, kd, kh,
    kw)``."""

    _n = 3
    _conv = staticmethod(C.conv3d)


class _ConvTransposeNd(_ConvNd):
    """A transposed convolution; weight ``(C_in, C_out / groups, *kernel_size)``.

    ``forward(input, output_size=None)``: an explicit ``output_size`` picks the
    ``output_padding`` that reaches it, as in PyTorch.
    """

    _transposed = True
    _conv_t: Any

    def __init__(self, in_channels: int, out_channels: int, kernel_size: _IntOrTuple,
                 stride: _IntOrTuple = 1, padding: _IntOrTuple = 0,
                 output_padding: _IntOrTuple = 0, groups: int = 1, bias: bool = True,
                 dilation: _IntOrTuple = 1, padding_mode: str = "zeros",
                 device: DeviceLike | None = None, dtype: dtype | None = None) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if isinstance(padding, str):
            raise ValueError(f"{type(self).__name__} does not support string padding")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, output_padding, device=device, dtype=dtype)

    def _output_padding(self, input: Tensor,
                        output_size: Sequence[int] | None) -> tuple[int, ...]:
        n = self._n
        if output_size is None:
            return self.output_padding
        non_spatial = 2 if input.ndim == n + 2 else 1
        output_size = tuple(int(v) for v in output_size)
        if len(output_size) == non_spatial + n:
            output_size = output_size[non_spatial:]
        if len(output_size) != n:
            raise ValueError(f"ConvTranspose{n}D: for {input.ndim}D input, output_size must have "
                             f"{n} or {non_spatial + n} elements (got {len(output_size)})")
        padding: tuple[int, ...] = tuple(int(p) for p in self.padding)  # never a string here
        lo, hi = [], []
        for d in range(n):
            size = ((input.shape[d + non_spatial] - 1) * self.stride[d] - 2 * padding[d]
                    + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            lo.append(size)
            hi.append(size + self.stride[d] - 1)
        for d in range(n):
            if not lo[d] <= output_size[d] <= hi[d]:
                raise ValueError(f"requested an output size of {list(output_size)}, but valid "
                                 f"sizes range from {lo} to {hi} (for an input of "
                                 f"{list(input.shape[non_spatial:])})")
        return tuple(output_size[d] - lo[d] for d in range(n))

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        """The functional transposed convolution with this layer's settings."""
        output_padding = self._output_padding(input, output_size)
        return type(self)._conv_t(input, self.weight, self.bias, self.stride, self.padding,
                                  output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution; weight ``(C_in, C_out / groups, k)``."""

    _n = 1
    _conv_t = staticmethod(C.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution; weight ``(C_in, C_out / groups, kh, kw)``."""

    _n = 2
    _conv_t = staticmethod(C.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution; weight ``(C_in, C_out / groups, kd, kh, kw)``."""

    _n = 3
    _conv_t = staticmethod(C.conv_transpose3d)
