"""``HalfCauchy(scale)``: ``|X|`` for ``X ~ Cauchy(0, scale)``."""

from __future__ import annotations

import math
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.cauchy import Cauchy
from arraygrad.distributions.transformed_distribution import TransformedDistribution
from arraygrad.distributions.transforms import AbsTransform
from arraygrad.tensor import Tensor

__all__ = ["HalfCauchy"]


class HalfCauchy(TransformedDistribution):
    """The half-Cauchy distribution of scale ``scale`` (mean and variance inf)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    base_dist: Cauchy

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "HalfCauchy":
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def scale(self) -> Tensor:
        """The scale of the underlying Cauchy."""
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return ag.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype,
                       device=self.scale.device)

    @property
    def mode(self) -> Tensor:
        return ag.zeros_like(self.scale)

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = ag.as_tensor(value, dtype=self.base_dist.scale.dtype,
                             device=self.base_dist.scale.device)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return ag.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Tensor) -> Tensor:
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)
