"""``RelaxedOneHotCategorical(temperature, probs=None, logits=None)``: the Concrete /
Gumbel-softmax relaxation of the one-hot categorical (and its log form
``ExpRelaxedCategorical``)."""

from __future__ import annotations

from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions._over_categorical import OverCategorical
from arraygrad.distributions._relaxed import Relaxed
from arraygrad.distributions.transforms import ExpTransform
from arraygrad.distributions.utils import clamp_probs
from arraygrad.tensor import Size, Tensor

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(OverCategorical):
    """The log of a RelaxedOneHotCategorical sample: ``log_softmax((logits + G) / T)``, G
    Gumbel noise."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Any, probs: Tensor | None = None,
                 logits: Tensor | None = None, validate_args: bool | None = None) -> None:
        shapes = self._set_categorical(probs, logits)
        self.temperature = temperature
        super().__init__(*shapes, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "ExpRelaxedCategorical":
        new = self._expanded_categorical(ExpRelaxedCategorical, batch_shape, _instance)
        new.temperature = self.temperature
        return new

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(ag.rand(*shape, dtype=self.logits.dtype,
                                       device=self.logits.device))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Tensor) -> Tensor:
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        temperature = ag.as_tensor(self.temperature, dtype=self.logits.dtype,
                                   device=self.logits.device)
        log_scale = ag.full_like(temperature, float(K)).lgamma() - temperature.log().mul(
            -(K - 1))
        score = self.logits - value.mul(temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(Relaxed):
    """A point of the simplex that tends to a one-hot categorical sample as ``temperature``
    goes to 0 (reparameterised)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True
    base_dist: ExpRelaxedCategorical

    def __init__(self, temperature: Any, probs: Tensor | None = None,
                 logits: Tensor | None = None, validate_args: bool | None = None) -> None:
        base_dist = ExpRelaxedCategorical(temperature, probs, logits,
                                          validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "RelaxedOneHotCategorical":
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]
