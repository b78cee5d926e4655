"""PyTorch's legacy layers, kept so old programs run: ``Container`` (deprecated),
``NLLLoss2d`` (``NLLLoss`` under its old name) and ``CrossMapLRN2d`` (Lua Torch's
cross-channel response normalisation)."""

from __future__ import annotations

import functools
import warnings
from typing import TYPE_CHECKING, Any

from arraygrad.creation import tensor
from arraygrad.nn.modules.loss import NLLLoss
from arraygrad.nn.modules.module import Module
from arraygrad.ops.linalg import matmul

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["Container", "NLLLoss2d", "CrossMapLRN2d"]


class Container(Module):
    """A module holding the modules given as keywords (deprecated: subclass ``Module``)."""

    def __init__(self, **kwargs: Any) -> None:
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now "
                      "implemented in `nn.Module`. Subclass that instead.", FutureWarning,
                      stacklevel=2)
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)


class NLLLoss2d(NLLLoss):
    """``NLLLoss`` under its old name (for ``(N, C, H, W)`` inputs, which ``NLLLoss`` takes)."""


@functools.cache
def _window(channels: int, size: int) -> tuple[tuple[float, ...], ...]:
    """Which squared channels each channel's scale sums: Lua Torch's running-sum recurrence,
    as PyTorch's ``CrossMapLRN2d`` computes it (a window of ``size`` channels centred on
    ``c``, which keeps channel 0 in the sum at ``c = (size - 1) // 2 + 1``)."""
    pre_pad = int((size - 1) / 2 + 1)
    rows = [[1.0 if j < min(pre_pad, channels) else 0.0 for j in range(channels)]]
    for c in range(1, channels):
        row = list(rows[-1])
        if c < channels - pre_pad + 1:
            row[c + pre_pad - 1] += 1.0
        if c > pre_pad:
            row[c - pre_pad] -= 1.0
        rows.append(row)
    return tuple(tuple(r) for r in rows)


class CrossMapLRN2d(Module):
    """``x / (k + alpha / size * sum of x**2 over neighbouring channels) ** beta`` for
    ``(N, C, H, W)`` inputs (Lua Torch's ``SpatialCrossMapLRN``, PyTorch's numbers)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        """The normalised input (gradients by autograd through the same formula)."""
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        window = tensor(_window(input.shape[1], self.size), dtype=input.dtype,
                        device=input.device)
        squares = (input * input).movedim(1, -1)
        scale = matmul(squares, window.T).movedim(-1, 1)
        return input * (scale * (self.alpha / self.size) + self.k) ** (-self.beta)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
