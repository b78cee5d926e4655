"""``Dropout``: random zeroing in training mode, identity in evaluation mode."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arraygrad.nn import functional as F
from arraygrad.nn.modules.module import Module

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["Dropout"]


class Dropout(Module):
    """Zero each element with probability ``p`` while training, scaling the rest by ``1/(1-p)``."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        """Dropout when ``self.training``, else the input."""
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
