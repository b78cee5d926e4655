"""Channel dropout (``dropout1d``/``2d``/``3d``) and the SELU-preserving ``alpha_dropout`` and
``feature_alpha_dropout``.

Each draws one Bernoulli keep-mask (per element, or per channel broadcast over the spatial
dims) and applies it with Tensor ops, so the gradient is the same mask.
"""

from __future__ import annotations

import math
import warnings

from arraygrad.tensor import Tensor

__all__ = ["dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout"]

# SELU's -scale * alpha: where alpha dropout sends the dropped units
_SELU_SATURATION = 1.7580993408473766


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(input: Tensor, p: float, per_channel: bool) -> Tensor:
    """A 0/1 mask in ``input``'s dtype: 1 with probability ``1 - p``; one draw per
    ``(N, C)`` channel (broadcast over the rest) when ``per_channel``."""
    from arraygrad.creation import rand

    shape = tuple(input.shape)
    if per_channel:
        shape = shape[:2] + (1,) * (len(shape) - 2)
    u = rand(*shape, dtype=input.dtype, device=input.device)
    return (u >= p).to(input.dtype)


def _apply(input: Tensor, out: Tensor, inplace: bool) -> Tensor:
    return input.copy_(out) if inplace else out


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _apply(input, input * 0.0, inplace)
    mask = _keep_mask(input, p, per_channel=True) * (1.0 / (1.0 - p))
    return _apply(input, input * mask, inplace)


def _channel_dropout(input: Tensor, p: float, training: bool, inplace: bool,
                     unbatched_ndim: int) -> Tensor:
    """Feature dropout, with a batch dim added for an unbatched input of ``unbatched_ndim``."""
    if input.ndim != unbatched_ndim or not training or p == 0.0:
        return _feature_dropout(input, p, training, inplace)
    out = _feature_dropout(input.unsqueeze(0), p, training, False).squeeze(0)
    return input.copy_(out) if inplace else out


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of a ``(N, C, L)`` or ``(C, L)`` input with probability ``p``,
    scaling the rest by ``1 / (1 - p)``."""
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, "
            "a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _channel_dropout(input, p, training, inplace, unbatched_ndim=2)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of a ``(N, C, H, W)`` or ``(C, H, W)`` input with probability ``p``.

    As PyTorch 2.13, a 3-D input is treated as ``(N, C, L)`` (1-D channel dropout) with a
    warning, and other ranks warn that they are not supported before applying the same rule.
    """
    _check_p(p)
    if input.ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 3D or 4D inputs).", UserWarning, stacklevel=2)
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            UserWarning, stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True,
              inplace: bool = False) -> Tensor:
    """Zero whole channels of a ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input with
    probability ``p``."""
    _check_p(p)
    if input.ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated and "
            "will result in an error in a future release. To retain the behavior and silence "
            "this warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 4D or 5D inputs).", UserWarning, stacklevel=2)
    return _channel_dropout(input, p, training, inplace, unbatched_ndim=4)


def _alpha(input: Tensor, p: float, training: bool, inplace: bool, per_channel: bool) -> Tensor:
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return _apply(input, input * 0.0, inplace)
    if per_channel and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    keep = _keep_mask(input, p, per_channel)
    a = 1.0 / math.sqrt((_SELU_SATURATION ** 2 * p + 1) * (1 - p))
    shift = (keep - 1.0) * (_SELU_SATURATION * a) + _SELU_SATURATION * a * p
    return _apply(input, input * (keep * a) + shift, inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped units take SELU's saturation value and an affine
    correction keeps the mean and variance (``training`` defaults to False, as PyTorch's)."""
    return _alpha(input, p, training, inplace, per_channel=False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """``alpha_dropout`` dropping whole channels."""
    return _alpha(input, p, training, inplace, per_channel=True)
