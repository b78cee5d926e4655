"""``Laplace(loc, scale)``: the Laplace (double exponential) distribution."""

from __future__ import annotations

from numbers import Number
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.utils import broadcast_all
from arraygrad.tensor import Size, Tensor

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution with location ``loc`` and scale ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return (2 ** 0.5) * self.scale

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, Number) and isinstance(scale, Number):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Laplace":
        return self._expanded(Laplace, batch_shape, _instance, ("loc", "scale"))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        finfo = ag.finfo(self.loc.dtype)
        u = ag.empty(*shape, dtype=self.loc.dtype, device=self.loc.device).uniform_(
            finfo.eps - 1, 1)
        return self.loc - self.scale * u.sign() * ag.log1p(-u.abs())

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -ag.log(2 * self.scale) - ag.abs(value - self.loc) / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * ag.expm1(
            -(value - self.loc).abs() / self.scale)

    def icdf(self, value: Tensor) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * ag.log1p(-2 * term.abs())

    def entropy(self) -> Tensor:
        return 1 + ag.log(2 * self.scale)
