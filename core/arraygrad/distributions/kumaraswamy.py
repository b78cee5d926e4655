"""``Kumaraswamy(concentration1, concentration0)``: the Kumaraswamy distribution on [0, 1]."""

from __future__ import annotations

import math
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.transformed_distribution import TransformedDistribution
from arraygrad.distributions.transforms import AffineTransform, PowerTransform
from arraygrad.distributions.uniform import Uniform
from arraygrad.distributions.utils import broadcast_all, euler_constant
from arraygrad.tensor import Tensor

__all__ = ["Kumaraswamy"]


def _moments(a: Tensor, b: Tensor, n: int) -> Tensor:
    """The n-th moment ``b B(1 + n/a, b)`` of Kumaraswamy(a, b)."""
    arg1 = 1 + n / a
    log_value = ag.lgamma(arg1) + ag.lgamma(b) - ag.lgamma(arg1 + b)
    return b * ag.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """``(1 - (1 - U)^(1/b))^(1/a)`` for U uniform, a = ``concentration1``, b =
    ``concentration0``: density ``a b x^(a-1) (1 - x^a)^(b-1)``."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any,
                 validate_args: bool | None = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(ag.full_like(self.concentration0, 0),
                            ag.full_like(self.concentration0, 1), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Kumaraswamy":
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(*batch_shape)
        new.concentration0 = self.concentration0.expand(*batch_shape)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Tensor:
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        # ((a - 1) / (a b - 1))^(1/a), in logs; NaN unless a >= 1 and b >= 1 (PyTorch 2.13's
        # formula gives NaN everywhere)
        a, b = self.concentration1, self.concentration0
        log_mode = (ag.log(a - 1) - ag.log(a * b - 1)) / a
        log_mode = ag.where((b < 1) | (a < 1), math.nan, log_mode)
        return log_mode.exp()

    @property
    def variance(self) -> Tensor:
        return (_moments(self.concentration1, self.concentration0, 2)
                - ag.pow(self.mean, 2))

    def entropy(self) -> Tensor:
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        H0 = ag.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * H0 - ag.log(self.concentration1) - ag.log(self.concentration0)
