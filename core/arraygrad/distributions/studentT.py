"""``StudentT(df, loc=0.0, scale=1.0)``: Student's t-distribution."""

from __future__ import annotations

import math
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.chi2 import Chi2
from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.utils import _standard_normal, broadcast_all
from arraygrad.tensor import Size, Tensor

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``
    (reparameterised: a normal over the root of a scaled chi-squared)."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self) -> Tensor:
        return ag.where(self.df > 1, self.loc, math.nan)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        safe = ag.where(self.df > 2, self.df, 3.0)
        finite = self.scale.pow(2) * safe / (safe - 2)
        return ag.where(self.df > 2, finite, ag.where(self.df > 1, math.inf, math.nan))

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0,
                 validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        batch_shape = self.df.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "StudentT":
        new = self._expanded(StudentT, batch_shape, _instance, ("df", "loc", "scale"))
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        # X ~ Normal(0, 1), Z ~ Chi2(df): Y = X / sqrt(Z / df) ~ StudentT(df)
        shape = self._extended_shape(sample_shape)
        X = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        Z = self._chi2.rsample(sample_shape)
        Y = X * ag.rsqrt(Z / self.df)
        return self.loc + self.scale * Y

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + ag.lgamma(0.5 * self.df) - ag.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * ag.log1p(y ** 2.0 / self.df) - Z

    def entropy(self) -> Tensor:
        lbeta = ag.lgamma(0.5 * self.df) + math.lgamma(0.5) - ag.lgamma(0.5 * (self.df + 1))
        return (self.scale.log() + 0.5 * (self.df + 1)
                * (ag.digamma(0.5 * (self.df + 1)) - ag.digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
