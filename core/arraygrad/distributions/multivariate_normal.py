"""``MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None,
scale_tril=None)``: the multivariate normal distribution."""

from __future__ import annotations

import math
from typing import Any

import arraygrad as ag
from arraygrad.distributions import constraints
from arraygrad.distributions._linalg import batch_mahalanobis, batch_mv
from arraygrad.distributions._scale_tril import (
    ScaleTrilMatrices, exactly_one_matrix, scale_tril_of,
)
from arraygrad.distributions.utils import _standard_normal
from arraygrad.tensor import Size, Tensor

__all__ = ["MultivariateNormal"]


class MultivariateNormal(ScaleTrilMatrices):
    """The multivariate normal with mean ``loc`` and a covariance given as exactly one of a
    covariance matrix, a precision matrix or the covariance's lower Cholesky factor (the
    fastest, and the form kept: ``_unbroadcasted_scale_tril``)."""

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None,
                 precision_matrix: Tensor | None = None, scale_tril: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        exactly_one_matrix(covariance_matrix, precision_matrix, scale_tril)
        for name, matrix in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                             ("precision_matrix", precision_matrix)):
            if matrix is not None:
                if matrix.dim() < 2:
                    raise ValueError(f"{name} matrix must be at least two-dimensional, with "
                                     "optional leading batch dimensions")
                batch_shape = Size(ag.broadcast_shapes(tuple(matrix.shape[:-2]),
                                                       tuple(loc.shape[:-1])))
                setattr(self, name, matrix.expand(*batch_shape, -1, -1))
        self.loc = loc.expand(*batch_shape, -1)
        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._unbroadcasted_scale_tril = scale_tril_of(covariance_matrix, precision_matrix,
                                                       scale_tril)

    def expand(self, batch_shape: Any, _instance: Any = None) -> "MultivariateNormal":
        new = self._expanded_matrices(MultivariateNormal, batch_shape, _instance, ("loc",))
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            *self._batch_shape, *self._event_shape)

    def rsample(self, sample_shape: Any = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self) -> Tensor:
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(*self._batch_shape)
