"""``Categorical(probs=None, logits=None)``: the categorical distribution over
``{0, ..., K-1}`` (the last dim of the parameter)."""

from __future__ import annotations

import math
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions._discrete import ProbsOrLogitsParam, one_of
from arraygrad.distributions.utils import _size
from arraygrad.ops.rule import fast_paths
from arraygrad.tensor import Size, Tensor

__all__ = ["Categorical"]


class Categorical(ProbsOrLogitsParam):
    """Category ``i`` with probability ``probs[..., i]`` (normalised) or
    ``softmax(logits)[..., i]``."""

    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True
    _is_binary = False

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            assert logits is not None
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            # normalised: logits - logsumexp
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndim > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Categorical":
        new = self._expanded_param(Categorical, batch_shape, _instance)
        new._num_events = self._num_events
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self) -> Tensor:
        return ag.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype,
                       device=self.probs.device)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        return ag.full(tuple(self._extended_shape()), math.nan, dtype=self.probs.dtype,
                       device=self.probs.device)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        sample_shape = _size(sample_shape)
        count = sample_shape.numel()
        shape = self._extended_shape(sample_shape)
        probs = self.probs
        if count == 0 or probs.numel() == 0:
            return ag.zeros(tuple(shape), dtype=ag.int64, device=probs.device)
        with ag.no_grad():  # (the draws have no gradient: nothing here is recorded)
            # one row as it is (multinomial takes 1-D weights: its draws are the row's)
            rows = probs if probs.ndim == 1 else probs.reshape(-1, self._num_events)
            samples = ag.multinomial(rows, count, True)
            if count > 1 and rows.ndim == 2:  # rows by draws -> draws by rows
                samples = samples.T
            return samples.reshape(*shape)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        if fast_paths.on and value.shape[:-1] == self.logits.shape[:-1]:
            # nothing to broadcast (the common case): the same gather
            return self.logits.gather(-1, value).squeeze(-1)
        value, log_pmf = ag.broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self) -> Tensor:
        min_real = ag.finfo(self.logits.dtype).min
        logits = ag.clamp(self.logits, min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        num_events = self._num_events
        values = ag.arange(num_events, dtype=ag.int64, device=self._param.device)
        values = values.view(-1, *((1,) * len(self._batch_shape)))
        if expand:
            values = values.expand(-1, *self._batch_shape)
        return values
