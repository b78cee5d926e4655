"""The lazy layers: ``LazyLinear``, ``LazyConv1d/2d/3d``, ``LazyConvTranspose1d/2d/3d``,
``LazyBatchNorm1d/2d/3d`` and ``LazyInstanceNorm1d/2d/3d``: their input size (``in_features``,
``in_channels``, ``num_features``) is read from the first input (see ``lazy.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import no_grad
from arraygrad.creation import tensor
from arraygrad.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from arraygrad.nn.modules.conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,
                                       ConvTranspose3d)
from arraygrad.nn.modules.instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from arraygrad.nn.modules.lazy import LazyModuleMixin
from arraygrad.nn.modules.linear import Linear
from arraygrad.nn.parameter import UninitializedBuffer, UninitializedParameter

if TYPE_CHECKING:
    from arraygrad.device import DeviceLike
    from arraygrad.dtypes import dtype
    from arraygrad.tensor import Tensor

__all__ = ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
           "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _LazyLayer(LazyModuleMixin):
    """What the lazy layers share: uninitialised parameters until the first input, and the
    layer's own initialisation only once ``_inferred`` (the size read from that input) is
    known."""

    _inferred: str
    weight: Any
    bias: Any

    def _uninitialized(self, bias: bool, device: Any, dtype: Any) -> None:
        """An uninitialised ``weight`` (and ``bias``, when ``bias``)."""
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        """The layer's initialisation, once the parameters have their shapes."""
        if not self.has_uninitialized_params() and getattr(self, self._inferred) != 0:
            super().reset_parameters()  # type: ignore[misc]


class LazyLinear(_LazyLayer, Linear):
    """A ``Linear`` whose ``in_features`` is the last dimension of its first input."""

    cls_to_become = Linear
    _inferred = "in_features"

    def __init__(self, out_features: int, bias: bool = True, device: DeviceLike | None = None,
                 dtype: dtype | None = None) -> None:
        super().__init__(0, 0, False)  # no bias yet: it would be drawn only to be replaced
        self.out_features = out_features
        self._uninitialized(bias, device, dtype)

    def initialize_parameters(self, input: Tensor) -> None:
        """``in_features = input.shape[-1]``; materialise and draw the parameters."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # loaded from a checkpoint: check the input against it
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(
                    f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                    f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class _LazyConvXdMixin(_LazyLayer):
    """``in_channels`` from the first input's channel dimension (batched or not)."""

    _inferred = "in_channels"
    _n: int
    transposed: bool
    groups: int
    in_channels: int
    out_channels: int
    kernel_size: tuple[int, ...]

    def _lazy_init(self, out_channels: int, bias: bool, device: Any, dtype: Any) -> None:
        self.out_channels = out_channels
        self._uninitialized(bias, device, dtype)

    def initialize_parameters(self, input: Tensor, *args: Any,
                              **kwargs: Any) -> None:
        """Read ``in_channels``, materialise the weight (and bias) and draw them."""
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups)
            else:
                shape = (self.out_channels, self.in_channels // self.groups)
            with no_grad():
                self.weight.materialize((*shape, *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()

    def _get_in_channels(self, input: Tensor) -> int:
        unbatched = self._n + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise RuntimeError(
                f"Expected {unbatched}D (unbatched) or {unbatched + 1}D (batched) input to "
                f"{type(self).__name__}, but got input of size: {input.shape}")
        return int(input.shape[1] if input.dim() == unbatched + 1 else input.shape[0])


class _LazyConv(_LazyConvXdMixin):
    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: DeviceLike | None = None,
                 dtype: dtype | None = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                         padding_mode, device=device, dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(self, out_channels: int, kernel_size: Any, stride: Any = 1, padding: Any = 0,
                 output_padding: Any = 0, groups: int = 1, bias: bool = True, dilation: Any = 1,
                 padding_mode: str = "zeros", device: DeviceLike | None = None,
                 dtype: dtype | None = None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                         dilation, padding_mode, device=device, dtype=dtype)
        self._lazy_init(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    """A ``Conv1d`` whose ``in_channels`` is read from its first input."""

    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    """A ``Conv2d`` whose ``in_channels`` is read from its first input."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    """A ``Conv3d`` whose ``in_channels`` is read from its first input."""

    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    """A ``ConvTranspose1d`` whose ``in_channels`` is read from its first input."""

    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    """A ``ConvTranspose2d`` whose ``in_channels`` is read from its first input."""

    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    """A ``ConvTranspose3d`` whose ``in_channels`` is read from its first input."""

    cls_to_become = ConvTranspose3d


class _LazyNormBase(_LazyLayer):
    """``num_features`` from the first input's dimension 1; weight, bias and running
    statistics materialised then."""

    _inferred = "num_features"
    num_features: int
    affine: bool
    track_running_stats: bool
    running_mean: Any
    running_var: Any

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: DeviceLike | None = None,
                 dtype: dtype | None = None, *, bias: bool = True) -> None:
        super().__init__(0, eps, momentum, False, False, device=device, dtype=dtype,
                         bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self._uninitialized(bias, device, dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = tensor(0, dtype=_dt.int64, device=device)

    def initialize_parameters(self, input: Tensor) -> None:
        """``num_features = input.shape[1]`` (``shape[0]`` unbatched, for instance norm)."""
        if self.has_uninitialized_params():
            self.num_features = int(input.shape[self._feature_dim(input)])
            with no_grad():
                for t in (self.weight, self.bias, self.running_mean, self.running_var):
                    if t is not None:
                        t.materialize((self.num_features,))
                self.reset_parameters()

    def _feature_dim(self, input: Tensor) -> int:
        return 1


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    """A ``BatchNorm1d`` whose ``num_features`` is read from its first input."""

    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    """A ``BatchNorm2d`` whose ``num_features`` is read from its first input."""

    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    """A ``BatchNorm3d`` whose ``num_features`` is read from its first input."""

    cls_to_become = BatchNorm3d


class _LazyInstanceNorm(_LazyNormBase):
    _spatial: int

    def _feature_dim(self, input: Tensor) -> int:
        return 0 if input.dim() == self._spatial + 1 else 1


class LazyInstanceNorm1d(_LazyInstanceNorm, InstanceNorm1d):
    """An ``InstanceNorm1d`` whose ``num_features`` is read from its first input."""

    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyInstanceNorm, InstanceNorm2d):
    """An ``InstanceNorm2d`` whose ``num_features`` is read from its first input."""

    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyInstanceNorm, InstanceNorm3d):
    """An ``InstanceNorm3d`` whose ``num_features`` is read from its first input."""

    cls_to_become = InstanceNorm3d
