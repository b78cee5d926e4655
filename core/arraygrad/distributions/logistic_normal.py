"""``LogisticNormal(loc, scale)``: a normal vector mapped to the simplex by stick breaking."""

from __future__ import annotations

from typing import Any

from arraygrad.distributions import constraints
from arraygrad.distributions.independent import Independent
from arraygrad.distributions.normal import Normal
from arraygrad.distributions.transformed_distribution import TransformedDistribution
from arraygrad.distributions.transforms import StickBreakingTransform
from arraygrad.tensor import Tensor

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """``StickBreakingTransform(X)`` for ``X ~ Normal(loc, scale)`` (K-1 dims -> the
    K-simplex)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True
    base_dist: Independent

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base_dist: Any = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LogisticNormal":
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def loc(self) -> Tensor:
        """The normal's mean."""
        normal: Normal = self.base_dist.base_dist  # type: ignore[assignment]
        return normal.loc

    @property
    def scale(self) -> Tensor:
        """The normal's standard deviation."""
        normal: Normal = self.base_dist.base_dist  # type: ignore[assignment]
        return normal.scale
