"""``LayerNorm``, ``GroupNorm``, ``RMSNorm`` and ``LocalResponseNorm``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from arraygrad.nn import functional as F, init
from arraygrad.nn.modules.module import Module
from arraygrad.nn.parameter import optional_parameter

if TYPE_CHECKING:
    from arraygrad.device import DeviceLike
    from arraygrad.dtypes import dtype
    from arraygrad.tensor import Tensor

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm"]



def _affine_parameters(module: Module, affine: bool, bias: bool, shape: tuple[int, ...],
                       dtype: dtype | None, device: DeviceLike | None) -> None:
    """Register ``weight`` (and ``bias`` if asked) of ``shape``, or None for both, then init."""
    optional_parameter(module, "weight", affine, *shape, dtype=dtype, device=device)
    optional_parameter(module, "bias", affine and bias, *shape, dtype=dtype, device=device)
    module.reset_parameters()


def _as_shape(normalized_shape: int | Sequence[int]) -> tuple[int, ...]:
    """``normalized_shape`` as a tuple (an int is one trailing dim)."""
    if isinstance(normalized_shape, int):
        return (normalized_shape,)
    return tuple(normalized_shape)


def _reset_affine(module: Module) -> None:
    """Weight 1 and bias 0, where they exist."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)

class LayerNorm(Module):
    """Normalise over the trailing ``normalized_shape`` dims; affine weight 1 and bias 0."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True,
                 device: DeviceLike | None = None, dtype: dtype | None = None) -> None:
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, elementwise_affine, bias, self.normalized_shape, dtype, device)

    def reset_parameters(self) -> None:
        """Weight 1, bias 0."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        """The layer-normalised input."""
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalise groups of channels; per-channel affine weight 1 and bias 0."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
                 device: DeviceLike | None = None, dtype: dtype | None = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine_parameters(self, affine, bias, (num_channels,), dtype, device)

    def reset_parameters(self) -> None:
        """Weight 1, bias 0."""
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        """The group-normalised input."""
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class RMSNorm(Module):
    """Root-mean-square normalisation over the trailing ``normalized_shape`` dims, with an
    elementwise ``weight`` (initialised to 1); ``eps=None`` uses the dtype's machine epsilon."""

    def __init__(self, normalized_shape: int | Sequence[int], eps: float | None = None,
                 elementwise_affine: bool = True, device: DeviceLike | None = None,
                 dtype: dtype | None = None) -> None:
        super().__init__()
        self.normalized_shape = _as_shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, elementwise_affine, False, self.normalized_shape, dtype, device)

    def reset_parameters(self) -> None:
        """Weight 1."""
        _reset_affine(self)

    def forward(self, x: Tensor) -> Tensor:
        """The RMS-normalised input."""
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """Normalisation across ``size`` neighbouring channels (``F.local_response_norm``)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        """The normalised input."""
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
