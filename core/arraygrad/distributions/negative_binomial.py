"""``NegativeBinomial(total_count, probs=None, logits=None)``: the number of successes before
``total_count`` failures."""

from __future__ import annotations

from typing import Any

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.distributions import constraints
from arraygrad.distributions._discrete import ProbsOrLogitsParam
from arraygrad.distributions.gamma import Gamma
from arraygrad.distributions.utils import lazy_property
from arraygrad.tensor import Size, Tensor

__all__ = ["NegativeBinomial"]


class NegativeBinomial(ProbsOrLogitsParam):
    """Successes of Bernoulli(``probs``) trials before ``total_count`` failures (a real
    ``total_count`` is allowed: the Gamma-Poisson mixture)."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        (total_count,) = self._take_param(probs, logits, total_count)
        self.total_count = total_count.type_as(self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "NegativeBinomial":
        return self._expanded_param(NegativeBinomial, batch_shape, _instance, ("total_count",))

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
