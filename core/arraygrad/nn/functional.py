"""``arraygrad.nn.functional``: the stateless form of every layer and loss (``import ... as F``).

Each family is written in its own file under ``arraygrad.nn._functional``.
"""

from __future__ import annotations

from arraygrad.nn._functional.activation import (
    elu, gelu, leaky_relu, log_softmax, logsigmoid, relu, sigmoid, silu, softmax, softplus, tanh,
)
from arraygrad.nn._functional.conv import (
    adaptive_avg_pool2d, avg_pool2d, conv1d, conv2d, conv_transpose2d, fold, interpolate,
    max_pool2d, max_pool2d_with_indices, pixel_shuffle, pixel_unshuffle, unfold, upsample,
    upsample_nearest,
)
from arraygrad.nn._functional.linear import bilinear, dropout, embedding, linear, one_hot, pad
from arraygrad.nn._functional.loss import (
    binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy, huber_loss, kl_div,
    l1_loss, mse_loss, nll_loss, smooth_l1_loss,
)
from arraygrad.nn._functional.normalization import batch_norm, group_norm, layer_norm

__all__ = [
    "linear", "bilinear", "relu", "leaky_relu", "gelu", "silu", "elu", "softplus", "sigmoid",
    "tanh", "softmax", "log_softmax", "logsigmoid", "dropout", "embedding", "batch_norm",
    "layer_norm", "group_norm", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
    "kl_div", "one_hot", "pad", "conv1d", "conv2d", "conv_transpose2d", "max_pool2d",
    "max_pool2d_with_indices", "avg_pool2d", "adaptive_avg_pool2d", "interpolate", "upsample",
    "upsample_nearest", "pixel_shuffle", "pixel_unshuffle", "unfold", "fold",
]

