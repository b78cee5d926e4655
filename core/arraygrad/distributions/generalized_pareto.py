"""``GeneralizedPareto(loc, scale, concentration)``: the generalized Pareto distribution."""

from __future__ import annotations

import math
from numbers import Number, Real
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.utils import broadcast_all
from arraygrad.tensor import Size, Tensor

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Survival function ``(1 + xi z)^(-1/xi)`` (``exp(-z)`` at xi = 0), ``z = (x - loc) /
    scale``, xi = ``concentration``; support ``[loc, loc - scale/xi]`` for xi < 0, else
    ``[loc, inf)``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, concentration: Any,
                 validate_args: bool | None = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if all(isinstance(v, Number) for v in (loc, scale, concentration)):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "GeneralizedPareto":
        return self._expanded(GeneralizedPareto, batch_shape, _instance,
                              ("loc", "scale", "concentration"))

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = ag.rand(*shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def _z(self, x: Tensor) -> Tensor:
        return (x - self.loc) / self.scale

    def _safe(self) -> tuple[Tensor, Tensor]:
        """``(xi == 0 within isclose, xi with 1 where it is 0)``."""
        eq_zero = ag.isclose(self.concentration, ag.zeros_like(self.concentration))
        return eq_zero, ag.where(eq_zero, ag.ones_like(self.concentration), self.concentration)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe()
        y = 1 / safe_conc + ag.ones_like(z)
        where_nonzero = ag.where(y == 0, y, y * ag.log1p(safe_conc * z))
        log_scale = math.log(self.scale) if isinstance(self.scale, Real) else self.scale.log()
        return -log_scale - ag.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value: Tensor) -> Tensor:
        """``log P(X > value)``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, safe_conc = self._safe()
        where_nonzero = -ag.log1p(safe_conc * z) / safe_conc
        return ag.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value: Tensor) -> Tensor:
        """``log P(X <= value)``."""
        return ag.log1p(-ag.exp(self.log_survival_function(value)))

    def cdf(self, value: Tensor) -> Tensor:
        return ag.exp(self.log_cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        eq_zero, safe_conc = self._safe()
        logu = ag.log1p(-value)
        where_nonzero = self.loc + self.scale / safe_conc * ag.expm1(-safe_conc * logu)
        where_zero = self.loc - self.scale * logu
        return ag.where(eq_zero, where_zero, where_nonzero)

    @property
    def mean(self) -> Tensor:
        valid = self.concentration < 1
        safe_conc = ag.where(valid, self.concentration, 0.5)
        result = self.loc + self.scale / (1 - safe_conc)
        return ag.where(valid, result, math.nan)

    @property
    def variance(self) -> Tensor:
        valid = self.concentration < 0.5
        safe_conc = ag.where(valid, self.concentration, 0.25)
        result = self.scale ** 2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return ag.where(valid, result, math.nan)

    def entropy(self) -> Tensor:
        ans = ag.log(self.scale) + self.concentration + 1
        return ag.broadcast_to(ans, tuple(self._batch_shape))

    @property
    def mode(self) -> Tensor:
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> Any:
        lower = self.loc
        negative = self.concentration < 0
        safe = ag.where(negative, self.concentration, -1.0)  # no division by a zero xi
        upper = ag.where(negative, lower - self.scale / safe, math.inf)
        return constraints.interval(lower, upper)
