"""``ExponentialFamily``: distributions whose density is
``exp(<t(x), theta> - F(theta) + k(x))``; their entropy follows from the log normaliser F by
the Bregman divergence (``torch.distributions.ExponentialFamily``)."""

from __future__ import annotations

from typing import Any

import arraygrad as ag
from arraygrad.distributions.distribution import Distribution
from arraygrad.tensor import Tensor

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions: subclasses give the natural parameters
    (``_natural_params``), the log normaliser (``_log_normalizer``) and the carrier measure
    (``_mean_carrier_measure``); ``entropy`` is then generic."""

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        """The natural parameters, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        """The log normalising function of the natural parameters."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> Any:
        """The expected carrier measure (needed by the entropy)."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy, by the Bregman divergence of the log normaliser."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        lg_normal = self._log_normalizer(*nparams)
        gradients = ag.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(*self._batch_shape, -1).sum(-1)
        return result
