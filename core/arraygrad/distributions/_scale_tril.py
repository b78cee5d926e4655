"""What ``MultivariateNormal`` and ``Wishart`` share: a matrix given as exactly one of a
covariance (scale) matrix, a precision matrix or a lower Cholesky factor, kept as that factor
(``_unbroadcasted_scale_tril``), the other two forms computed on first use."""

from __future__ import annotations

from typing import Any

import arraygrad as ag
from arraygrad.distributions._linalg import cholesky_solve, precision_to_scale_tril
from arraygrad.distributions.distribution import Distribution
from arraygrad.distributions.utils import lazy_property
from arraygrad.tensor import Tensor

__all__ = ["ScaleTrilMatrices", "exactly_one_matrix", "scale_tril_of"]

_MATRICES = ("covariance_matrix", "precision_matrix", "scale_tril")


def exactly_one_matrix(covariance_matrix: Any, precision_matrix: Any, scale_tril: Any) -> None:
    """ValueError unless exactly one of the three is given."""
    if (covariance_matrix is not None) + (scale_tril is not None) + (
            precision_matrix is not None) != 1:
        raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                         "scale_tril may be specified.")


def scale_tril_of(covariance_matrix: Tensor | None, precision_matrix: Tensor | None,
                  scale_tril: Tensor | None) -> Tensor:
    """The lower Cholesky factor of the covariance, from whichever of the three is given."""
    if scale_tril is not None:
        return scale_tril
    if covariance_matrix is not None:
        return ag.linalg.cholesky(covariance_matrix)
    assert precision_matrix is not None
    return precision_to_scale_tril(precision_matrix)


class ScaleTrilMatrices(Distribution):
    """A distribution whose last event dim n has an n x n covariance (scale) matrix held as
    its lower Cholesky factor ``_unbroadcasted_scale_tril``: ``scale_tril``,
    ``covariance_matrix`` and ``precision_matrix`` expanded over the batch."""

    _unbroadcasted_scale_tril: Tensor

    def _matrix_shape(self) -> tuple[int, ...]:
        n = self._event_shape[-1]
        return tuple(self._batch_shape) + (n, n)

    def _expanded_matrices(self, cls: type, batch_shape: Any, _instance: Any,
                           params: tuple[str, ...]) -> Any:
        """``_expanded`` of ``params`` and of the matrices computed so far."""
        return self._expanded(cls, batch_shape, _instance, (*params, *_MATRICES))

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor of the covariance (scale) matrix."""
        return self._unbroadcasted_scale_tril.expand(*self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """The covariance (scale) matrix ``L L^T``."""
        L = self._unbroadcasted_scale_tril
        return ag.matmul(L, L.mT).expand(*self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """The inverse of the covariance (scale) matrix."""
        L = self._unbroadcasted_scale_tril
        eye = ag.eye(L.shape[-1], dtype=L.dtype, device=L.device)
        return cholesky_solve(eye, L).expand(*self._matrix_shape())
