"""``HalfNormal(scale)``: ``|X|`` for ``X ~ Normal(0, scale)``."""

from __future__ import annotations

import math
from typing import Any

from arraygrad.distributions._folded import Folded
from arraygrad.distributions.normal import Normal
from arraygrad.distributions.transforms import AbsTransform
from arraygrad.tensor import Tensor

__all__ = ["HalfNormal"]


class HalfNormal(Folded):
    """The half-normal distribution of scale ``scale``."""

    base_dist: Normal

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        base_dist = Normal(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "HalfNormal":
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (1 - 2 / math.pi)

