"""Top-level normalisations (``torch.batch_norm``, ``torch.native_layer_norm``...): PyTorch's
ATen signatures over ``nn.functional``; the ``native_*`` forms also return the saved
statistics (without gradient, as PyTorch's)."""

from __future__ import annotations

from typing import Any

from arraygrad.autograd.grad_mode import no_grad
from arraygrad.nn._functional import normalization as _norm
from arraygrad.nn.utils._norms import norm_except_dim as _norm_except_dim
from arraygrad.tensor import Tensor

__all__ = ["batch_norm", "batch_norm_update_stats", "instance_norm", "layer_norm",
           "group_norm", "rms_norm", "native_batch_norm", "native_layer_norm",
           "native_group_norm", "norm_except_dim"]


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:
    """Batch normalisation (``cudnn_enabled`` chooses no kernel here)."""
    return _norm.batch_norm(input, running_mean, running_var, weight, bias, training,
                            momentum, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                  running_mean: Tensor | None, running_var: Tensor | None,
                  use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:
    """Instance normalisation."""
    return _norm.instance_norm(input, running_mean, running_var, weight, bias,
                               use_input_stats, momentum, eps)


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enable: bool = True) -> Tensor:
    """Layer normalisation over the trailing ``normalized_shape``."""
    return _norm.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5,
               cudnn_enabled: bool = True) -> Tensor:
    """Group normalisation."""
    return _norm.group_norm(input, num_groups, weight, bias, eps)


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """RMS normalisation over the trailing ``normalized_shape``."""
    return _norm.rms_norm(input, normalized_shape, weight, eps)


def _stats(input: Tensor, dims: tuple[int, ...], eps: float,
           keepdim: bool) -> tuple[Tensor, Tensor]:
    """``(mean, 1 / sqrt(biased variance + eps))`` over ``dims``, without gradient."""
    with no_grad():
        x = input.detach()
        mean = x.mean(dims, keepdim=keepdim)
        var = x.var(dims, keepdim=keepdim, correction=0)
        return mean, (var + eps).rsqrt()


def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                      running_mean: Tensor | None, running_var: Tensor | None, training: bool,
                      momentum: float, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``(output, save_mean, save_invstd)``: the batch statistics per channel in training
    (empty in evaluation, as PyTorch's CPU kernel)."""
    dims = (0, *range(2, input.ndim))
    if training:
        save_mean, save_invstd = _stats(input, dims, eps, keepdim=False)
    else:
        save_mean = save_invstd = input.new_empty((0,))
    out = batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                     False)
    return out, save_mean, save_invstd


def native_layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None,
                      bias: Tensor | None, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``(output, mean, rstd)``, the statistics shaped ``input.shape[:axis] + (1, ...)``."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    out = _norm.layer_norm(input, shape, weight, bias, eps)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    mean, rstd = _stats(input, dims, eps, keepdim=True)
    return out, mean, rstd


def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int,
                      C: int, HxW: int, group: int, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """``(output, mean, rstd)`` of group norm; the statistics are ``(N, group)``."""
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expected input.numel() == N * C * HxW to be true, but got "
                           f"input.numel() = {input.numel()}, N = {N}, C = {C}, HxW = {HxW}")
    out = _norm.group_norm(input, group, weight, bias, eps)
    mean, rstd = _stats(input.reshape(N, group, -1), (2,), eps, keepdim=False)
    return out, mean, rstd


def batch_norm_update_stats(input: Tensor, running_mean: Tensor | None,
                            running_var: Tensor | None,
                            momentum: float) -> tuple[Tensor, Tensor]:
    """``(mean, biased variance)`` per channel of ``input``; the running statistics (when
    given) move by ``momentum`` towards the mean and the unbiased variance, in place."""
    dims = (0, *range(2, input.ndim))
    with no_grad():
        x = input.detach()
        mean = x.mean(dims)
        var = x.var(dims, correction=0)
        count = input.numel() // input.shape[1]
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean * momentum)
        if running_var is not None:
            unbiased = var * (count / max(count - 1, 1))
            running_var.mul_(1 - momentum).add_(unbiased * momentum)
    return mean, var


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dim but ``dim`` (size 1 there; ``dim=-1``: the
    norm of everything, 0-d), as weight norm uses it."""
    return _norm_except_dim(v, dim, pow)
