"""Top-level dropouts, activations and embeddings (``torch.dropout``, ``torch.selu_``,
``torch.embedding``...): PyTorch's ATen signatures over ``nn.functional``."""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import no_grad
from arraygrad.nn._functional import activation as _act, dropout as _drop, linear as _linear
from arraygrad.nn._functional.distance import pdist
from arraygrad.tensor import Tensor

__all__ = ["dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout",
           "feature_alpha_dropout_", "feature_dropout", "feature_dropout_", "native_dropout",
           "celu", "celu_", "selu", "selu_", "threshold", "threshold_", "rrelu", "rrelu_",
           "hardshrink", "prelu", "bilinear", "embedding", "embedding_renorm_", "pdist"]

celu, celu_, selu, selu_ = _act.celu, _act.celu_, _act.selu, _act.selu_
hardshrink, prelu = _act.hardshrink, _act.prelu
bilinear = _linear.bilinear


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Elementwise dropout (only when ``train``)."""
    return _linear.dropout(input, p, train)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place ``dropout``."""
    return _linear.dropout(input, p, train, inplace=True)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """SELU-preserving dropout (only when ``train``)."""
    return _drop.alpha_dropout(input, p, train)


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place ``alpha_dropout``."""
    return _drop.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``alpha_dropout`` of whole channels (dim 1)."""
    return _drop.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place ``feature_alpha_dropout``."""
    return _drop.feature_alpha_dropout(input, p, train, inplace=True)


def _feature(input: Tensor, p: float, train: bool, inplace: bool) -> Tensor:
    _drop._check_p(p)
    if input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _drop._feature_dropout(input, p, train, inplace)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Dropout of whole channels (dim 1) of an input of any rank >= 2."""
    return _feature(input, p, train, False)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place ``feature_dropout``."""
    return _feature(input, p, train, True)


def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:
    """``(output, keep mask)``: dropout with its bool mask; with ``train`` False the input's
    copy and an all-true mask (``train=None`` counts as training, as PyTorch's)."""
    from arraygrad.creation import ones, rand

    if train is False or p == 0.0:
        return input.clone(), ones(*input.shape, dtype=_dt.bool, device=input.device)
    keep = rand(*input.shape, dtype=input.dtype, device=input.device) >= p
    scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
    return input * keep.to(input.dtype) * scale, keep


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """``input`` where above ``threshold``, else ``value``."""
    return _act._threshold(input, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place ``threshold``."""
    return _act._threshold(input, threshold, value, inplace=True)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, generator: Any = None) -> Tensor:
    """Randomized leaky ReLU (slopes drawn from ``generator`` when given)."""
    return _act.rrelu(input, lower, upper, training, generator=generator)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False, generator: Any = None) -> Tensor:
    """In-place ``rrelu``."""
    return _act.rrelu(input, lower, upper, training, inplace=True, generator=generator)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` at ``indices`` (``padding_idx`` negative: none; the row
    ``padding_idx`` gets no gradient)."""
    return _linear.embedding(indices, weight, padding_idx if padding_idx >= 0 else None,
                             scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: float,
                      norm_type: float) -> Tensor:
    """Scale, in place, the rows of ``input`` at ``indices`` whose ``norm_type``-norm exceeds
    ``max_norm`` down to it; returns ``input``."""
    with no_grad():
        _linear._renorm_rows(input, indices, max_norm, norm_type)
    return input
