"""``CosineSimilarity`` and ``PairwiseDistance``: modules over the ``nn.functional`` forms."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arraygrad.nn import functional as F
from arraygrad.nn.modules.module import Module

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class CosineSimilarity(Module):
    """``x1 . x2 / (max(|x1|, eps) max(|x2|, eps))`` along ``dim``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """The cosine similarity of ``x1`` and ``x2`` (broadcast) along ``dim``."""
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` over the last dimension (PyTorch keeps ``p`` as ``norm``)."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        """The distance between each pair of rows of ``x1`` and ``x2``."""
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
