"""``Dropout`` and its channel (``Dropout1d``/``2d``/``3d``) and SELU (``AlphaDropout``,
``FeatureAlphaDropout``) kinds: random in training mode, the identity in evaluation mode."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arraygrad.nn import functional as F
from arraygrad.nn.modules.module import Module

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """Holds ``p`` and ``inplace`` (checked) for every dropout layer."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability ``p`` while training, scaling the rest by ``1/(1-p)``."""

    def forward(self, input: Tensor) -> Tensor:
        """Dropout when ``self.training``, else the input."""
        return F.dropout(input, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    """Zero whole channels of ``(N, C, L)``/``(C, L)`` inputs while training."""

    def forward(self, input: Tensor) -> Tensor:
        """Channel dropout when ``self.training``, else the input."""
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels of ``(N, C, H, W)``/``(C, H, W)`` inputs while training."""

    def forward(self, input: Tensor) -> Tensor:
        """Channel dropout when ``self.training``, else the input."""
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zero whole channels of ``(N, C, D, H, W)``/``(C, D, H, W)`` inputs while training."""

    def forward(self, input: Tensor) -> Tensor:
        """Channel dropout when ``self.training``, else the input."""
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Alpha dropout (keeps SELU's self-normalisation) while training."""

    def forward(self, input: Tensor) -> Tensor:
        """Alpha dropout when ``self.training``, else the input."""
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels while training."""

    def forward(self, input: Tensor) -> Tensor:
        """Channel alpha dropout when ``self.training``, else the input."""
        return F.feature_alpha_dropout(input, self.p, self.training)
