"""``Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None)``: the
Wishart distribution over positive definite matrices."""

from __future__ import annotations

import math
import warnings
from numbers import Number
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions._linalg import cholesky_solve, precision_to_scale_tril
from arraygrad.distributions.chi2 import Chi2
from arraygrad.distributions.exp_family import ExponentialFamily
from arraygrad.distributions.utils import _size, lazy_property
from arraygrad.tensor import Size, Tensor

__all__ = ["Wishart"]

_log_2 = math.log(2)


def _mvdigamma(x: Tensor, p: int) -> Tensor:
    """The multivariate digamma ``sum_{j<p} digamma(x - j/2)``."""
    offsets = ag.arange(p, dtype=x.dtype, device=x.device) / 2
    return ag.digamma(x.unsqueeze(-1) - offsets.expand(*x.shape, p)).sum(-1)


def _clamp_above_eps(x: Tensor) -> Tensor:
    return x.clamp(min=ag.finfo(x.dtype).eps)


class Wishart(ExponentialFamily):
    """The Wishart distribution of ``df`` degrees of freedom and scale matrix given as one of
    a covariance matrix, a precision matrix or the covariance's lower Cholesky factor;
    ``rsample`` is the Bartlett decomposition (reparameterised through the chi-squared
    draws)."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                # df must exceed p - 1, p this instance's dimension
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df: Any, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if (covariance_matrix is not None) + (scale_tril is not None) + (
                precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril)
                     if p is not None)
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, Number):
            batch_shape = param.shape[:-2]
            self.df = ag.tensor(df, dtype=param.dtype, device=param.device)
        else:
            batch_shape = Size(ag.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(*batch_shape)
        event_shape = param.shape[-2:]
        if bool(self.df.le(event_shape[-1] - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = "
                             f"{event_shape[-1] - 1}.")
        if scale_tril is not None:
            self.scale_tril = param.expand(*batch_shape, -1, -1)
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(*batch_shape, -1, -1)
        else:
            self.precision_matrix = param.expand(*batch_shape, -1, -1)
        if bool(self.df.lt(event_shape[-1]).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur "
                          "for ndim - 1 < df < ndim.")
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = ag.linalg.cholesky(covariance_matrix)
        else:
            assert precision_matrix is not None
            self._unbroadcasted_scale_tril = precision_to_scale_tril(precision_matrix)
        # the chi-squared draws of the Bartlett decomposition
        p = self._event_shape[-1]
        offsets = ag.arange(p, dtype=self._unbroadcasted_scale_tril.dtype,
                            device=self._unbroadcasted_scale_tril.device)
        self._dist_chi2 = Chi2(df=self.df.unsqueeze(-1) - offsets.expand(*batch_shape, p))

    def expand(self, batch_shape: Any, _instance: Any = None) -> "Wishart":
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = _size(batch_shape)
        cov_shape = tuple(batch_shape) + tuple(self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(*cov_shape)
        new.df = self.df.expand(*batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(*cov_shape))
        p = self._event_shape[-1]
        offsets = ag.arange(p, dtype=new._unbroadcasted_scale_tril.dtype,
                            device=new._unbroadcasted_scale_tril.device)
        new._dist_chi2 = Chi2(df=new.df.unsqueeze(-1) - offsets.expand(*batch_shape, p))
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple[int, ...]:
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor of the scale matrix."""
        return self._unbroadcasted_scale_tril.expand(*self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """The scale matrix."""
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(*self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """The inverse of the scale matrix."""
        L = self._unbroadcasted_scale_tril
        eye = ag.eye(self._event_shape[-1], device=L.device, dtype=L.dtype)
        return cholesky_solve(eye, L).expand(*self._matrix_shape())

    def _df_matrix(self) -> Tensor:
        return self.df.view(*self._batch_shape, 1, 1)

    @property
    def mean(self) -> Tensor:
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self) -> Tensor:
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = ag.where(factor <= 0, math.nan, factor)
        return factor.view(*self._batch_shape, 1, 1) * self.covariance_matrix

    @property
    def variance(self) -> Tensor:
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + diag_V.unsqueeze(-1) * diag_V.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape: Any = Size()) -> Tensor:
        p = self._event_shape[-1]
        sample_shape = _size(sample_shape)
        diagonal = _clamp_above_eps(self._dist_chi2.rsample(sample_shape).sqrt())
        lower = ag.randn(*sample_shape, *self._batch_shape, p, p, dtype=diagonal.dtype,
                         device=diagonal.device).tril(-1)
        noise = ag.diag_embed(diagonal) + lower
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.mT

    def rsample(self, sample_shape: Any = Size(), max_try_correction: int | None = None) -> Tensor:
        """Samples by the Bartlett decomposition; a sample that is numerically singular is
        redrawn, up to ``max_try_correction`` times (10)."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = _size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        # a numerically singular draw (df close to p - 1) is redrawn, element by element
        is_singular = ~self.support.check(sample)
        tries = 0
        while bool(is_singular.any()) and tries < max_try_correction:
            tries += 1
            sample_new = self._bartlett_sampling(sample_shape)
            replace = is_singular & self.support.check(sample_new)
            sample = ag.where(replace.unsqueeze(-1).unsqueeze(-1), sample_new, sample)
            is_singular = is_singular & ~replace
        if bool(is_singular.any()):
            warnings.warn(f"Singular sample detected after {max_try_correction} tries.")
        return sample

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return (-nu * (p * _log_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
                - ag.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * ag.linalg.slogdet(value).logabsdet
                - cholesky_solve(value, L).diagonal(dim1=-2, dim2=-1).sum(dim=-1) / 2)

    def entropy(self) -> Tensor:
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return ((p + 1) * (p * _log_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
                + ag.mvlgamma(nu / 2, p=p) - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p)
                + nu * p / 2)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        nu = self.df
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        x, y = natural_params
        p = self._event_shape[-1]
        return ((y + (p + 1) / 2) * (-ag.linalg.slogdet(-2 * x).logabsdet + _log_2 * p)
                + ag.mvlgamma(y + (p + 1) / 2, p=p))
