"""``Weibull(scale, concentration)``: the two-parameter Weibull distribution."""

from __future__ import annotations

from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.exponential import Exponential
from arraygrad.distributions.transformed_distribution import TransformedDistribution
from arraygrad.distributions.transforms import AffineTransform, PowerTransform
from arraygrad.distributions.utils import broadcast_all, euler_constant
from arraygrad.tensor import Tensor

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """The Weibull distribution: ``scale E^(1/concentration)``, E standard exponential."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(ag.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal),
                      AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Weibull":
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(*batch_shape)
        new.concentration = self.concentration.expand(*batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base_dist = self.base_dist.expand(batch_shape)
        transforms = [PowerTransform(exponent=new.concentration_reciprocal),
                      AffineTransform(loc=0, scale=new.scale)]
        super(Weibull, new).__init__(base_dist, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.scale * ag.exp(ag.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self) -> Tensor:
        return self.scale * ((self.concentration - 1) / self.concentration) ** (
            self.concentration.reciprocal())

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (ag.exp(ag.lgamma(1 + 2 * self.concentration_reciprocal))
                                    - ag.exp(2 * ag.lgamma(1 + self.concentration_reciprocal)))

    def entropy(self) -> Tensor:
        return (euler_constant * (1 - self.concentration_reciprocal)
                + ag.log(self.scale * self.concentration_reciprocal) + 1)
