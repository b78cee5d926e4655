"""``Beta(concentration1, concentration0)``: the beta distribution (a two-component
Dirichlet)."""

from __future__ import annotations

from numbers import Number, Real
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.dirichlet import Dirichlet
from arraygrad.distributions.exp_family import ExponentialFamily
from arraygrad.distributions.utils import broadcast_all
from arraygrad.tensor import Size, Tensor

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """The beta distribution with shapes ``concentration1`` (alpha) and ``concentration0``
    (beta)."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any,
                 validate_args: bool | None = None) -> None:
        if isinstance(concentration1, Real) and isinstance(concentration0, Real):
            concentration1_concentration0 = ag.tensor([float(concentration1),
                                                       float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            concentration1_concentration0 = ag.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(concentration1_concentration0, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Beta":
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = Size(tuple(batch_shape))
        new._dirichlet = self._dirichlet.expand(batch_shape)
        super(Beta, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = ag.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()

    @property
    def concentration1(self) -> Tensor:
        """alpha."""
        result = self._dirichlet.concentration[..., 0]
        return ag.tensor([result]) if isinstance(result, Number) else result

    @property
    def concentration0(self) -> Tensor:
        """beta."""
        result = self._dirichlet.concentration[..., 1]
        return ag.tensor([result]) if isinstance(result, Number) else result

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        x, y = natural_params
        return ag.lgamma(x) + ag.lgamma(y) - ag.lgamma(x + y)
