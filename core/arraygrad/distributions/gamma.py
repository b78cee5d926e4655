"""``Gamma(concentration, rate)``: the gamma distribution (reparameterised samples through
``_standard_gamma``'s implicit gradient)."""

from __future__ import annotations

from numbers import Number
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.exp_family import ExponentialFamily
from arraygrad.distributions.utils import broadcast_all
from arraygrad.ops.families.random_gamma import _standard_gamma
from arraygrad.tensor import Size, Tensor

__all__ = ["Gamma"]


def _clamp_tiny(value: Tensor) -> Tensor:
    """``value`` at least its dtype's tiny, with an identity gradient (as PyTorch's in-place
    clamp of the detached sample)."""
    tiny = ag.finfo(value.dtype).tiny
    return value + (value.clamp(min=tiny) - value).detach()


class Gamma(ExponentialFamily):
    """The gamma distribution with shape ``concentration`` and inverse scale ``rate``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, Number) and isinstance(rate, Number):
            batch_shape = Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Gamma":
        return self._expanded(Gamma, batch_shape, _instance, ("concentration", "rate"))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(*shape)) / self.rate.expand(*shape)
        return _clamp_tiny(value)

    def log_prob(self, value: Any) -> Tensor:
        value = ag.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (ag.xlogy(self.concentration, self.rate) + ag.xlogy(self.concentration - 1, value)
                - self.rate * value - ag.lgamma(self.concentration))

    def entropy(self) -> Tensor:
        return (self.concentration - ag.log(self.rate) + ag.lgamma(self.concentration)
                + (1.0 - self.concentration) * ag.digamma(self.concentration))

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        x, y = natural_params
        return ag.lgamma(x + 1) + (x + 1) * ag.log(-y.reciprocal())

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ag.special.gammainc(self.concentration, self.rate * value)
