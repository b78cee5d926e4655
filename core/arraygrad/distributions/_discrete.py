"""What the distributions parameterised by ``probs`` or ``logits`` share: taking exactly one of
them, and computing the other lazily."""

from __future__ import annotations

from typing import Any

from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.utils import broadcast_all, lazy_property, logits_to_probs, \
    probs_to_logits
from arraygrad.tensor import Size, Tensor

__all__ = ["ProbsOrLogits", "ProbsOrLogitsParam", "one_of"]


def one_of(probs: Any, logits: Any) -> None:
    """ValueError unless exactly one of ``probs`` and ``logits`` is given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class ProbsOrLogits(Distribution):
    """A distribution given by ``probs`` or by ``logits`` (exactly one): the one given is kept
    as ``_param`` and the other is computed on first use (``sigmoid``/``logit`` when
    ``_is_binary``, else ``softmax``/``log``)."""

    _is_binary = True
    _param: Tensor

    def _take_param(self, probs: Any, logits: Any, *others: Any) -> tuple[Tensor, ...]:
        """Stores whichever of ``probs`` and ``logits`` is given (ValueError unless exactly
        one is), broadcast with ``others`` (tensors or numbers, broadcast first), as that
        attribute and as ``_param``; returns ``others`` broadcast."""
        one_of(probs, logits)
        name, value = ("probs", probs) if probs is not None else ("logits", logits)
        *rest, param = broadcast_all(*others, value)
        setattr(self, name, param)
        self._param = param
        return tuple(rest)

    def _expanded_param(self, cls: type, batch_shape: Any, _instance: Any,
                        params: tuple[str, ...] = ()) -> Any:
        """``_expanded`` of ``params``, ``probs`` and ``logits`` (those computed so far),
        ``_param`` following the one given."""
        new = self._expanded(cls, batch_shape, _instance, (*params, "probs", "logits"))
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    @lazy_property
    def logits(self) -> Tensor:
        """The log-odds (binary) or normalised log-probabilities (categorical)."""
        return probs_to_logits(self.probs, is_binary=self._is_binary)

    @lazy_property
    def probs(self) -> Tensor:
        """The probability of a success (binary) or the normalised probabilities
        (categorical)."""
        return logits_to_probs(self.logits, is_binary=self._is_binary)


class ProbsOrLogitsParam(ProbsOrLogits):
    """``ProbsOrLogits`` that also shows the parameter given: ``param_shape`` and ``_new``
    (an empty tensor of its dtype and device)."""

    def _new(self, *args: Any) -> Tensor:
        return self._param.new_empty(*args)

    @property
    def param_shape(self) -> Size:
        """The shape of the parameter given."""
        return self._param.size()
