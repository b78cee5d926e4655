"""``FisherSnedecor(df1, df2)``: the F-distribution."""

from __future__ import annotations

import math
from numbers import Number
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.gamma import Gamma
from arraygrad.distributions.utils import broadcast_all
from arraygrad.tensor import Size, Tensor

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """The F-distribution with ``df1`` and ``df2`` degrees of freedom (reparameterised: the
    ratio of two scaled Gamma draws)."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1: Any, df2: Any, validate_args: bool | None = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        if isinstance(df1, Number) and isinstance(df2, Number):
            batch_shape = Size()
        else:
            batch_shape = self.df1.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "FisherSnedecor":
        new = self._expanded(FisherSnedecor, batch_shape, _instance, ("df1", "df2"))
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        return new

    @property
    def mean(self) -> Tensor:
        df2 = ag.where(self.df2 > 2, self.df2, math.nan)
        return df2 / (df2 - 2)

    @property
    def mode(self) -> Tensor:
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return ag.where(self.df1 > 2, mode, math.nan)

    @property
    def variance(self) -> Tensor:
        df2 = ag.where(self.df2 > 4, self.df2, math.nan)
        return (2 * df2.pow(2) * (self.df1 + df2 - 2)
                / (self.df1 * (df2 - 2).pow(2) * (df2 - 4)))

    def rsample(self, sample_shape: Any = Size(())) -> Tensor:
        shape = self._extended_shape(sample_shape)
        # X1 ~ Gamma(df1 / 2, df1 / 2) = Chi2(df1) / df1 and likewise X2: Y = X1 / X2
        X1 = self._gamma1.rsample(sample_shape).view(*shape)
        X2 = self._gamma2.rsample(sample_shape).view(*shape)
        tiny = ag.finfo(X2.dtype).tiny
        X2 = X2 + (X2.clamp(min=tiny) - X2).detach()
        Y = X1 / X2
        return Y + (Y.clamp(min=tiny) - Y).detach()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        ct1 = self.df1 * 0.5
        ct2 = self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * ag.log(value)
        t3 = (ct1 + ct2) * ag.log1p(ct3 * value)
        return t1 + t2 - t3
