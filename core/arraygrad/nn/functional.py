"""``arraygrad.nn.functional``: the stateless form of every layer and loss (``import ... as F``).

The convolution/pooling family lives in ``arraygrad.nn.functional_conv`` and
is re-exported on first access (``F.conv2d``), so this module imports without it.
"""

from __future__ import annotations

from arraygrad.nn._functional.activation import (
    elu, gelu, leaky_relu, log_softmax, logsigmoid, relu, sigmoid, silu, softmax, softplus, tanh,
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
    "kl_div", "one_hot", "pad",
]


def __getattr__(name: str):
    """Names of the convolution/pooling family come from ``nn.functional_conv`` (written apart)."""
    if name.startswith("__"):
        raise AttributeError(name)
    import importlib

    try:
        conv = importlib.import_module("arraygrad.nn.functional_conv")
    except ImportError:
        conv = None
    if conv is not None and hasattr(conv, name):
        return getattr(conv, name)
    raise AttributeError(f"module 'arraygrad.nn.functional' has no attribute {name!r}")
