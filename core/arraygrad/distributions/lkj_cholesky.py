"""``LKJCholesky(dim, concentration=1.0)``: the LKJ distribution over Cholesky factors of
correlation matrices (Lewandowski, Kurowicka and Joe, 2009; the onion method)."""

from __future__ import annotations

import math
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions.beta import Beta
from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.utils import broadcast_all
from arraygrad.tensor import Size, Tensor

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Lower Cholesky factors L of ``dim x dim`` correlation matrices with density
    proportional to ``det(L L^T)^(concentration - 1)``."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Any = 1.0,
                 validate_args: bool | None = None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found "
                             f"dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = Size((dim, dim))
        # the Beta draws of the onion method, one per row
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = ag.arange(self.dim - 1, dtype=self.concentration.dtype,
                           device=self.concentration.device)
        offset = ag.cat([ag.zeros(1, dtype=offset.dtype, device=offset.device), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "LKJCholesky":
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(tuple(batch_shape))
        new.dim = self.dim
        new.concentration = self.concentration.expand(*batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Any = Size()) -> Tensor:
        with ag.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = ag.randn(*self._extended_shape(sample_shape), dtype=y.dtype,
                                device=y.device).tril(-1)
            norm = u_normal.norm(dim=-1, keepdim=True)
            # the first row is all zeros: its direction is irrelevant (0 there)
            u_hypersphere = ag.where(norm > 0, u_normal / ag.where(norm > 0, norm, 1.0), 0.0)
            w = ag.sqrt(y) * u_hypersphere
            tiny = ag.finfo(w.dtype).tiny
            diag_elems = ag.clamp(1 - ag.sum(w ** 2, dim=-1), min=tiny).sqrt()
            return w + ag.diag_embed(diag_elems)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = ag.arange(2, self.dim + 1, device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = ag.sum(order * diag_elems.log(), dim=-1)
        # the normaliser (LKJ 2009, p. 1999); multigammaln's pi term is (D-1)(D-2)/4 log(pi),
        # the paper's D(D-1)/4 log(pi): (D-1)/2 log(pi) is added
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = ag.lgamma(alpha) * dm1
        numerator = ag.mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
