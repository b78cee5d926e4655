"""``VonMises(loc, concentration)``: the von Mises distribution on the circle."""

from __future__ import annotations

import math
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.utils import broadcast_all, lazy_property
from arraygrad.tensor import Size, Tensor

__all__ = ["VonMises"]


def _log_i0(x: Tensor) -> Tensor:
    """``log I0(x)``, without overflow (``log i0e(x) + x``)."""
    return ag.log(ag.special.i0e(x)) + x


def _rejection_sample(loc: Tensor, concentration: Tensor, proposal_r: Tensor,
                      x: Tensor) -> Tensor:
    """Best and Fisher's rejection sampler (1979), every lane until accepted."""
    done = ag.zeros(tuple(x.shape), dtype=ag.bool, device=loc.device)
    while not bool(done.all()):
        u = ag.rand(3, *x.shape, dtype=loc.dtype, device=loc.device)
        u1, u2, u3 = u.unbind()
        z = ag.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if bool(accept.any()):
            x = ag.where(accept & ~done, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """The von Mises distribution: angles around ``loc`` with concentration
    ``concentration`` (values are angles modulo 2 pi; samples lie in [-pi, pi))."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        batch_shape = self.loc.shape
        super().__init__(batch_shape, Size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "VonMises":
        return self._expanded(VonMises, batch_shape, _instance, ("loc", "concentration"))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * ag.cos(value - self.loc)
        return log_prob - math.log(2 * math.pi) - _log_i0(self.concentration)

    @lazy_property
    def _loc(self) -> Tensor:
        return self.loc.to(ag.float64)

    @lazy_property
    def _concentration(self) -> Tensor:
        return self.concentration.to(ag.float64)

    @lazy_property
    def _proposal_r(self) -> Tensor:
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho ** 2) / (2 * rho)
        proposal_r_taylor = 1 / kappa + kappa  # second order around 0, for tiny kappa
        return ag.where(kappa < 1e-5, proposal_r_taylor, proposal_r)

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        """Samples in [-pi, pi), drawn in float64 (small concentrations would make the
        rejection loop crawl in float32)."""
        shape = self._extended_shape(sample_shape)
        with ag.no_grad():
            x = ag.zeros(tuple(shape), dtype=ag.float64, device=self.loc.device)
            return _rejection_sample(self._loc, self._concentration, self._proposal_r,
                                     x).to(self.loc.dtype)

    @property
    def mean(self) -> Tensor:
        """The circular mean (``loc``)."""
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @lazy_property
    def variance(self) -> Tensor:
        """The circular variance ``1 - I1(k) / I0(k)``."""
        k = self.concentration
        return 1 - ag.special.i1e(k) / ag.special.i0e(k)
