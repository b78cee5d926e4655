"""``HalfCauchy(scale)``: ``|X|`` for ``X ~ Cauchy(0, scale)``."""

from __future__ import annotations

import math
from typing import Any

import arraygrad as ag
from arraygrad.distributions._folded import Folded
from arraygrad.distributions.cauchy import Cauchy
from arraygrad.distributions.transforms import AbsTransform
from arraygrad.tensor import Tensor

__all__ = ["HalfCauchy"]


class HalfCauchy(Folded):
    """The half-Cauchy distribution of scale ``scale`` (mean and variance inf)."""

    base_dist: Cauchy

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        base_dist = Cauchy(0, scale, validate_args=False)
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "HalfCauchy":
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Tensor:
        return ag.full(tuple(self._extended_shape()), math.inf, dtype=self.scale.dtype,
                       device=self.scale.device)

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        # PyTorch's HalfCauchy (not HalfNormal) takes numbers too
        return self._folded_log_prob(ag.as_tensor(value, dtype=self.base_dist.scale.dtype,
                                                  device=self.base_dist.scale.device))
