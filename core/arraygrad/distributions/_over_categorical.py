"""What the distributions built on a ``Categorical`` of their own share (``OneHotCategorical``,
``Multinomial``, ``ExpRelaxedCategorical``): its parameters, shapes and expansion."""

from __future__ import annotations

from typing import Any

from arraygrad.distributions.categorical import Categorical
from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.utils import _size
from arraygrad.tensor import Size, Tensor

__all__ = ["OverCategorical"]


class OverCategorical(Distribution):
    """A distribution over the K categories of ``_categorical`` (``Categorical(probs,
    logits)``): its batch shape, an event of size K, and its ``probs``, ``logits`` and
    ``param_shape``."""

    _categorical: Categorical

    def _set_categorical(self, probs: Tensor | None, logits: Tensor | None) -> tuple[Size, Size]:
        """Builds ``_categorical``; returns the batch and event shapes it gives."""
        self._categorical = Categorical(probs, logits)
        return self._categorical.batch_shape, _size(self._categorical.param_shape[-1:])

    def _expanded_categorical(self, cls: type, batch_shape: Any, _instance: Any) -> Any:
        """``_expanded`` with ``_categorical`` expanded to ``batch_shape``."""
        new = self._expanded(cls, batch_shape, _instance, ())
        new._categorical = self._categorical.expand(batch_shape)
        return new

    def _new(self, *args: Any) -> Tensor:
        return self._categorical._new(*args)

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
