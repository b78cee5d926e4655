"""What ``HalfNormal`` and ``HalfCauchy`` share: ``|X|`` for ``X`` of a distribution symmetric
about 0, whose density, cdf, quantiles and entropy follow from ``X``'s."""

from __future__ import annotations

import math
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.transformed_distribution import TransformedDistribution
from arraygrad.tensor import Tensor

__all__ = ["Folded"]


class Folded(TransformedDistribution):
    """``|X|`` for ``X ~ base_dist``, symmetric about 0 with a ``scale``: the density doubles
    on [0, inf), ``cdf = 2 F - 1``, ``icdf(p) = F^-1((p + 1) / 2)``, entropy ``H - log 2``."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    base_dist: Any

    @property
    def scale(self) -> Tensor:
        """The scale of the underlying symmetric distribution."""
        scale: Tensor = self.base_dist.scale
        return scale

    @property
    def mode(self) -> Tensor:
        return ag.zeros_like(self.scale)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._folded_log_prob(value)

    def _folded_log_prob(self, value: Tensor) -> Tensor:
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return ag.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        cdf: Tensor = 2 * self.base_dist.cdf(value) - 1
        return cdf

    def icdf(self, prob: Tensor) -> Tensor:
        icdf: Tensor = self.base_dist.icdf((prob + 1) / 2)
        return icdf

    def entropy(self) -> Tensor:
        entropy: Tensor = self.base_dist.entropy() - math.log(2)
        return entropy
