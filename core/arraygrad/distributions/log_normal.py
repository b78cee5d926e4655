"""``LogNormal(loc, scale)``: ``exp(X)`` for ``X ~ Normal(loc, scale)``."""

from __future__ import annotations

from typing import Any

from arraygrad.distributions import constraints
from arraygrad.distributions.normal import Normal
from arraygrad.distributions.transformed_distribution import TransformedDistribution
from arraygrad.distributions.transforms import ExpTransform
from arraygrad.tensor import Tensor

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """The log-normal distribution: ``exp`` of a normal of mean ``loc`` and standard
    deviation ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True
    base_dist: Normal

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LogNormal":
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def loc(self) -> Tensor:
        """The mean of the log."""
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        """The standard deviation of the log."""
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc
