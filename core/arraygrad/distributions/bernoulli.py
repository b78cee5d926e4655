"""``Bernoulli(probs=None, logits=None)``: the Bernoulli distribution on {0, 1}."""

from __future__ import annotations

import math
from typing import Any

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.distributions import constraints
from arraygrad.distributions._discrete import ProbsOrLogitsParam
from arraygrad.distributions.exp_family import ExponentialFamily
from arraygrad.distributions.utils import broadcast_all
from arraygrad.tensor import Size, Tensor

__all__ = ["Bernoulli"]


class Bernoulli(ProbsOrLogitsParam, ExponentialFamily):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self._take_param(probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Bernoulli":
        return self._expanded_param(Bernoulli, batch_shape, _instance)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return ag.where(self.probs == 0.5, math.nan, mode)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with ag.no_grad():
            return ag.bernoulli(self.probs.expand(*shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = ag.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view(-1, *((1,) * len(self._batch_shape)))
        if expand:
            values = values.expand(-1, *self._batch_shape)
        return values

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (ag.logit(self.probs),)

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        return ag.log1p(ag.exp(natural_params[0]))
