"""``NegativeBinomial(total_count, probs=None, logits=None)``: the number of successes before
``total_count`` failures."""

from __future__ import annotations

from typing import Any

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.distributions import constraints
from arraygrad.distributions._discrete import one_of
from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.gamma import Gamma
from arraygrad.distributions.utils import (
    broadcast_all, lazy_property, logits_to_probs, probs_to_logits,
)
from arraygrad.tensor import Size, Tensor

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """Successes of Bernoulli(``probs``) trials before ``total_count`` failures (a real
    ``total_count`` is allowed: the Gamma-Poisson mixture)."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        one_of(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = self._param.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "NegativeBinomial":
        new = self._expanded(NegativeBinomial, batch_shape, _instance,
                             ("total_count", "probs", "logits"))
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    def _new(self, *args: Any) -> Tensor:
        return self._param.new_empty(*args)

    @property
    def mean(self) -> Tensor:
        return self.total_count * ag.exp(self.logits)

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / ag.sigmoid(-self.logits)

    @lazy_property
    def logits(self) -> Tensor:
        """The log-odds of a success."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        """The probability of a success."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        """The shape of the parameter given."""
        return self._param.size()

    @lazy_property
    def _gamma(self) -> Gamma:
        # the mixing distribution: Poisson(Gamma(total_count, exp(-logits)))
        return Gamma(concentration=self.total_count, rate=ag.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        with ag.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return ag.poisson(rate)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * F.logsigmoid(-self.logits)
                                 + value * F.logsigmoid(self.logits))
        log_normalization = (-ag.lgamma(self.total_count + value) + ag.lgamma(1.0 + value)
                             + ag.lgamma(self.total_count))
        # C(n + k - 1, k) is 1 for n = k = 0, where lgamma(0) - lgamma(0) is NaN
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
