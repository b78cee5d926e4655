"""``Pareto(scale, alpha)``: the Pareto type-I distribution, ``scale exp(X)`` for
``X ~ Exponential(alpha)``."""

from __future__ import annotations

from typing import Any

from arraygrad.distributions import constraints
from arraygrad.distributions.exponential import Exponential
from arraygrad.distributions.transformed_distribution import TransformedDistribution
from arraygrad.distributions.transforms import AffineTransform, ExpTransform
from arraygrad.distributions.utils import broadcast_all
from arraygrad.tensor import Tensor

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """The Pareto distribution of minimum ``scale`` and tail index ``alpha``."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale: Any, alpha: Any, validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base_dist = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Pareto":
        new = self._get_checked_instance(Pareto, _instance)
        new.scale = self.scale.expand(*batch_shape)
        new.alpha = self.alpha.expand(*batch_shape)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Tensor:
        a = self.alpha.clamp(min=1)  # inf for alpha <= 1
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        a = self.alpha.clamp(min=2)  # inf for alpha <= 2
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        return constraints.greater_than_eq(self.scale)

    def entropy(self) -> Tensor:
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
