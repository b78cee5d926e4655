"""``Cauchy(loc, scale)``: the Cauchy (Lorentz) distribution."""

from __future__ import annotations

import math
from numbers import Number
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.utils import broadcast_all
from arraygrad.tensor import Size, Tensor

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """The Cauchy distribution with median ``loc`` and half width at half maximum ``scale``
    (mean NaN, variance inf, as PyTorch)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, Number) and isinstance(scale, Number):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Cauchy":
        return self._expanded(Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Tensor:
        return ag.full(tuple(self._extended_shape()), math.nan, dtype=self.loc.dtype,
                       device=self.loc.device)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return ag.full(tuple(self._extended_shape()), math.inf, dtype=self.loc.dtype,
                       device=self.loc.device)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = ag.rand(*shape, dtype=self.loc.dtype, device=self.loc.device)
        eps = ag.tan(math.pi * (u - 0.5))  # a standard Cauchy draw
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (-math.log(math.pi) - self.scale.log()
                - (((value - self.loc) / self.scale) ** 2).log1p())

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ag.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value: Tensor) -> Tensor:
        return ag.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()
