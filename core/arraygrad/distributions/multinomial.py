"""``Multinomial(total_count=1, probs=None, logits=None)``: counts of ``total_count``
categorical draws."""

from __future__ import annotations

from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.binomial import Binomial
from arraygrad.distributions.categorical import Categorical
from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.utils import _size, broadcast_all
from arraygrad.tensor import Size, Tensor

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """How often each of K categories comes up in ``total_count`` independent draws (an int
    shared by the batch: ``log_prob`` alone accepts any count)."""

    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    total_count: int

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count: int = 1, probs: Tensor | None = None,
                 logits: Tensor | None = None, validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Multinomial":
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(tuple(batch_shape))
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = Binomial(total_count=self.total_count, probs=new._categorical.probs)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any) -> Tensor:
        return self._categorical._new(*args)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> Any:
        return constraints.multinomial(self.total_count)

    @property
    def logits(self) -> Tensor:
        """The normalised log-probabilities."""
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        """The normalised probabilities."""
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        """The shape of the parameter given."""
        return self._categorical.param_shape

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        sample_shape = _size(sample_shape)
        samples = self._categorical.sample(Size((self.total_count,) + tuple(sample_shape)))
        # (total_count, *sample, *batch) -> (*sample, *batch, total_count)
        order = list(range(1, samples.dim())) + [0]
        samples = samples.permute(*order)
        counts = ag.zeros(tuple(self._extended_shape(sample_shape)), dtype=samples.dtype,
                          device=samples.device)
        counts = counts.scatter_add(-1, samples, ag.ones_like(samples))
        return counts.type_as(self.probs)

    def entropy(self) -> Tensor:
        n = ag.tensor(self.total_count, dtype=self.probs.dtype, device=self.probs.device)
        cat_entropy = self._categorical.entropy()
        term1 = n * cat_entropy - ag.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = ag.exp(self._binomial.log_prob(support))
        weights = ag.lgamma(support + 1)
        return term1 + (binomial_probs * weights).sum(0).sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = ag.lgamma(value.sum(-1) + 1)
        log_factorial_xs = ag.lgamma(value + 1).sum(-1)
        # 0 * -inf counts as 0 (a category of probability 0 never drawn)
        logits = ag.where((value == 0) & (logits == -float("inf")), 0.0, logits)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
