"""``batch_norm``, ``layer_norm`` and ``group_norm``.

Each normalises with the biased variance, ``(x - mean) / sqrt(var + eps)``,
written with differentiable Tensor ops so gradients (and double backward)
follow. ``batch_norm`` updates the running statistics in place, outside the
graph, with the unbiased variance, as PyTorch does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.autograd.grad_mode import no_grad
from arraygrad.ops import elementwise as ew

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["batch_norm", "layer_norm", "group_norm"]


def _normalize(x: Tensor, dims: Any, eps: Any) -> tuple[Any, ...]:
    mean = x.mean(dim=dims, keepdim=True)
    var = x.var(dim=dims, unbiased=False, keepdim=True)
    return (x - mean) * ew.rsqrt(var + eps), mean, var


def _channel_shape(ndim: int, channels: int) -> tuple:
    """The shape ``(1, C, 1, ...)`` a per-channel vector broadcasts with."""
    return (1, channels) + (1,) * (ndim - 2)


def batch_norm(input: Tensor, running_mean: Any, running_var: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) over the batch and spatial dims.

    Training uses the batch statistics (and updates ``running_*`` when given);
    evaluation uses ``running_mean``/``running_var``.
    """
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected at least 2D input (got {input.ndim}D input)")
    channels = input.shape[1]
    dims = (0,) + tuple(range(2, input.ndim))
    cshape = _channel_shape(input.ndim, channels)
    if training:
        count = input.numel() // channels
        if count <= 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size {input.shape}")
        out, mean, var = _normalize(input, dims, eps)
        if running_mean is not None or running_var is not None:
            with no_grad():
                if running_mean is not None:
                    new_mean = running_mean * (1 - momentum) + mean.reshape(-1) * momentum
                    running_mean.copy_(new_mean)
                if running_var is not None:
                    unbiased = var.reshape(-1) * (count / (count - 1))
                    running_var.copy_(running_var * (1 - momentum) + unbiased * momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be defined in "
                               "evaluation mode")
        out = (input - running_mean.reshape(cshape)) * ew.rsqrt(running_var.reshape(cshape) + eps)
    if weight is not None:
        out = out * weight.reshape(cshape)
    if bias is not None:
        out = out + bias.reshape(cshape)
    return out


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dimensions, then scale and shift."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    n = len(shape)
    if tuple(input.shape[input.ndim - n:]) != shape or input.ndim < n:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape [*, "
            f"{', '.join(str(s) for s in shape)}], but got input of size{input.shape}")
    for name, param in (("weight", weight), ("bias", bias)):
        if param is not None and tuple(param.shape) != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(param.shape)} and normalized_shape = {list(shape)}")
    dims = tuple(range(input.ndim - n, input.ndim))
    out, _, _ = _normalize(input, dims, eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise each group of ``C / num_groups`` channels over its channels and spatial dims."""
    if input.ndim < 2:
        raise RuntimeError(f"group_norm: expected at least 2D input (got {input.ndim}D input)")
    n, c = input.shape[0], input.shape[1]
    if c % num_groups != 0:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {input.shape} and num_groups={num_groups}")
    grouped = input.reshape(n, num_groups, -1)
    out, _, _ = _normalize(grouped, (2,), eps)
    out = out.reshape(tuple(input.shape))
    cshape = _channel_shape(input.ndim, c)
    if weight is not None:
        out = out * weight.reshape(cshape)
    if bias is not None:
        out = out + bias.reshape(cshape)
    return out
