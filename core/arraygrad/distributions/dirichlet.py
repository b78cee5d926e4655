"""``Dirichlet(concentration)``: the Dirichlet distribution on the simplex, reparameterised by
the exact implicit gradient of each component's Beta marginal (``_dirichlet_grad``)."""

from __future__ import annotations

from typing import Any

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.autograd import Function
from arraygrad.autograd.function import once_differentiable
from arraygrad.distributions import constraints
from arraygrad.distributions.exp_family import ExponentialFamily
from arraygrad.ops.families.random_gamma import _dirichlet_grad, _sample_dirichlet
from arraygrad.tensor import Size, Tensor

__all__ = ["Dirichlet"]


class _Dirichlet(Function):
    """A Dirichlet draw whose backward is the implicit reparameterisation gradient:
    ``d x_j / d a_i = g_i (delta_ij - x_j)`` with ``g_i = _dirichlet_grad`` (as PyTorch's
    ``_Dirichlet``): moving a_i moves x_i along its Beta marginal and scales the other
    components, whose ratios do not depend on a_i."""

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Tensor:  # type: ignore[override]
        (concentration,) = args
        x = _sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        grad = _dirichlet_grad(x, concentration, total)
        return grad * (grad_output - (x * grad_output).sum(-1, True))


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution with concentration vector(s) ``concentration`` (last dim)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Dirichlet":
        return self._expanded(Dirichlet, batch_shape, _instance, ("concentration",))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        concentration = self.concentration.expand(*shape)
        result: Tensor = _Dirichlet.apply(concentration)
        return result

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (ag.xlogy(self.concentration - 1.0, value).sum(-1)
                + ag.lgamma(self.concentration.sum(-1)) - ag.lgamma(self.concentration).sum(-1))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        # every concentration below 1: the mode is the vertex of the largest one
        mask = (self.concentration < 1).all(-1, keepdim=True)
        vertex = F.one_hot(mode.argmax(-1), concentrationm1.shape[-1]).to(mode.dtype)
        return ag.where(mask, vertex, mode)

    @property
    def variance(self) -> Tensor:
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self) -> Tensor:
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (ag.lgamma(self.concentration).sum(-1) - ag.lgamma(a0) - (k - a0) * ag.digamma(a0)
                - ((self.concentration - 1.0) * ag.digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration,)

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        x = natural_params[0]
        return x.lgamma().sum(-1) - ag.lgamma(x.sum(-1))
