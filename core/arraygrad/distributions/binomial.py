"""``Binomial(total_count=1, probs=None, logits=None)``: the binomial distribution."""

from __future__ import annotations

from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions._discrete import one_of
from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.utils import (
    broadcast_all, lazy_property, logits_to_probs, probs_to_logits,
)
from arraygrad.tensor import Size, Tensor

__all__ = ["Binomial"]


def _clamp_by_zero(x: Tensor) -> Tensor:
    # max(x, 0), with gradient 1/2 at 0 (as PyTorch's)
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """The number of successes in ``total_count`` independent trials of probability ``probs``
    (or ``sigmoid(logits)``)."""

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
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

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Binomial":
        new = self._expanded(Binomial, batch_shape, _instance,
                             ("total_count", "probs", "logits"))
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    def _new(self, *args: Any) -> Tensor:
        return self._param.new_empty(*args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ag.minimum(((self.total_count + 1) * self.probs).floor(), self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

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

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with ag.no_grad():
            count = self.total_count.expand(*shape).to(self.probs.dtype)
            return ag.binomial(count, self.probs.expand(*shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = ag.lgamma(self.total_count + 1)
        log_factorial_k = ag.lgamma(value + 1)
        log_factorial_nmk = ag.lgamma(self.total_count - value + 1)
        # k log p + (n - k) log(1 - p) = k (logits - log(1 + e^logits)) - (n - k) log(1 + e^logits)
        #                              = k logits - n log(1 + e^logits), stably
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * ag.log1p(ag.exp(-ag.abs(self.logits)))
                          - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def _homogeneous_count(self, what: str) -> int:
        total_count = int(self.total_count.max())
        if not bool(self.total_count.min() == total_count):
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total_count

    def entropy(self) -> Tensor:
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(ag.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        total_count = self._homogeneous_count("enumerate_support")
        values = ag.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.view(-1, *((1,) * len(self._batch_shape)))
        if expand:
            values = values.expand(-1, *self._batch_shape)
        return values
