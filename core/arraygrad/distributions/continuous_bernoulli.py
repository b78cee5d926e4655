"""``ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501))``: the continuous
Bernoulli distribution on [0, 1] (Loaiza-Ganem and Cunningham, 2019)."""

from __future__ import annotations

import math
from numbers import Number
from typing import Any

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.distributions import constraints
from arraygrad.distributions._discrete import one_of
from arraygrad.distributions.exp_family import ExponentialFamily
from arraygrad.distributions.utils import (
    broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits,
)
from arraygrad.tensor import Size, Tensor

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """Density ``C(p) p^x (1 - p)^(1 - x)`` on [0, 1]. Near p = 1/2 (inside ``lims``) the
    normaliser and moments cancel, so Taylor expansions around 1/2 are used there."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs: Any = None, logits: Any = None, lims: tuple[float, float] = (
            0.499, 0.501), validate_args: bool | None = None) -> None:
        one_of(probs, logits)
        if probs is not None:
            is_scalar = isinstance(probs, Number)
            (self.probs,) = broadcast_all(probs)
            # validated here, before the clamping below would hide invalid values
            if validate_args is not None and not bool(
                    self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = Size() if is_scalar else self._param.size()
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "ContinuousBernoulli":
        new = self._expanded(ContinuousBernoulli, batch_shape, _instance, ("probs", "logits"))
        new._lims = self._lims
        new._param = new.probs if "probs" in self.__dict__ else new.logits
        return new

    def _new(self, *args: Any) -> Tensor:
        return self._param.new_empty(*args)

    def _outside_unstable_region(self) -> Tensor:
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Tensor:
        return ag.where(self._outside_unstable_region(), self.probs,
                        self._lims[0] * ag.ones_like(self.probs))

    def _cont_bern_log_norm(self) -> Tensor:
        """The log normaliser ``log C(p)``, by a Taylor series near p = 1/2."""
        cut_probs = self._cut_probs()
        cut_probs_below_half = ag.where(cut_probs <= 0.5, cut_probs, ag.zeros_like(cut_probs))
        cut_probs_above_half = ag.where(cut_probs >= 0.5, cut_probs, ag.ones_like(cut_probs))
        log_norm = ag.log(ag.abs(ag.log1p(-cut_probs) - ag.log(cut_probs))) - ag.where(
            cut_probs <= 0.5, ag.log1p(-2.0 * cut_probs_below_half),
            ag.log(2.0 * cut_probs_above_half - 1.0))
        x = ag.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return ag.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> Tensor:
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (ag.log1p(-cut_probs)
                                                            - ag.log(cut_probs))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * ag.pow(x, 2)) * x
        return ag.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self) -> Tensor:
        return ag.sqrt(self.variance)

    @property
    def variance(self) -> Tensor:
        cut_probs = self._cut_probs()
        vars_ = cut_probs * (cut_probs - 1.0) / ag.pow(1.0 - 2.0 * cut_probs, 2) + 1.0 / ag.pow(
            ag.log1p(-cut_probs) - ag.log(cut_probs), 2)
        x = ag.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return ag.where(self._outside_unstable_region(), vars_, taylor)

    @lazy_property
    def logits(self) -> Tensor:
        """The natural parameter ``log(p / (1 - p))``."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        """The shape parameter p (clamped inside (0, 1))."""
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        """The shape of the parameter given."""
        return self._param.size()

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = ag.rand(*shape, dtype=self.probs.dtype, device=self.probs.device)
        with ag.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = ag.rand(*shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(
            logits, value, reduction="none") + self._cont_bern_log_norm()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = (ag.pow(cut_probs, value) * ag.pow(1.0 - cut_probs, 1.0 - value) + cut_probs
                - 1.0) / (2.0 * cut_probs - 1.0)
        unbounded_cdfs = ag.where(self._outside_unstable_region(), cdfs, value)
        return ag.where(value <= 0.0, ag.zeros_like(value),
                        ag.where(value >= 1.0, ag.ones_like(value), unbounded_cdfs))

    def icdf(self, value: Tensor) -> Tensor:
        cut_probs = self._cut_probs()
        return ag.where(
            self._outside_unstable_region(),
            (ag.log1p(-cut_probs + value * (2.0 * cut_probs - 1.0)) - ag.log1p(-cut_probs))
            / (ag.log(cut_probs) - ag.log1p(-cut_probs)), value)

    def entropy(self) -> Tensor:
        log_probs0 = ag.log1p(-self.probs)
        log_probs1 = ag.log(self.probs)
        return (self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm()
                - log_probs0)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.logits,)

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        """The log normaliser of the natural parameter (a Taylor series near 0)."""
        x = natural_params[0]
        out_unst_reg = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut_nat_params = ag.where(out_unst_reg, x, (self._lims[0] - 0.5) * ag.ones_like(x))
        log_norm = ag.log(ag.abs(ag.special.expm1(cut_nat_params))) - ag.log(
            ag.abs(cut_nat_params))
        taylor = 0.5 * x + ag.pow(x, 2) / 24.0 - ag.pow(x, 4) / 2880.0
        return ag.where(out_unst_reg, log_norm, taylor)
