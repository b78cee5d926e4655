"""What ``RelaxedBernoulli`` and ``RelaxedOneHotCategorical`` share: a transformed relaxed
base distribution whose temperature and parameters they show."""

from __future__ import annotations

from typing import Any

from arraygrad.distributions.transformed_distribution import TransformedDistribution
from arraygrad.tensor import Tensor

__all__ = ["Relaxed"]


class Relaxed(TransformedDistribution):
    """A relaxed distribution: ``base_dist`` (which has ``temperature``, ``logits`` and
    ``probs``) pushed through a transform."""

    base_dist: Any

    @property
    def temperature(self) -> Any:
        """The relaxation temperature."""
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        """The base distribution's logits."""
        logits: Tensor = self.base_dist.logits
        return logits

    @property
    def probs(self) -> Tensor:
        """The base distribution's probabilities."""
        probs: Tensor = self.base_dist.probs
        return probs
