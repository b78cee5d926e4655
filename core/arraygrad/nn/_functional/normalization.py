"""``batch_norm``, ``instance_norm``, ``layer_norm``, ``group_norm``, ``rms_norm`` and
``local_response_norm``.

Each normalises with the biased variance, ``(x - mean) / sqrt(var + eps)``,
written with differentiable Tensor ops so gradients (and double backward)
follow. ``batch_norm`` updates the running statistics in place, outside the
graph, with the unbiased variance, as PyTorch does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.ops.arguments import tensor_arg
from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad import dtypes as _dt
from arraygrad.amp import state as _amp
from arraygrad.autograd.grad_mode import no_grad
from arraygrad.ops import elementwise as ew
from arraygrad.ops.complex_checks import refuse_complex_forward
from arraygrad.nn._functional.batch_norm_rule import batch_norm_one_node, takes_one_node
from arraygrad.nn._functional.layer_norm_rule import layer_norm_one_node

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "rms_norm",
           "local_response_norm"]


def _normalize(x: Tensor, dims: Any, eps: Any) -> tuple[Any, ...]:
    mean = x.mean(dim=dims, keepdim=True)
    var = x.var(dim=dims, unbiased=False, keepdim=True)
    return (x - mean) * ew.rsqrt(var + eps), mean, var


def _channel_shape(ndim: int, channels: int) -> tuple[Any, ...]:
    """The shape ``(1, C, 1, ...)`` a per-channel vector broadcasts with."""
    return (1, channels) + (1,) * (ndim - 2)


def _update_running(running_mean: Any, running_var: Any, mean: Tensor, var: Tensor, count: int,
                    momentum: float) -> None:
    """Move ``running_*`` (when given) towards the per-channel ``mean`` and the biased ``var``
    of ``count`` values each, the variance made unbiased, outside the graph."""
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(running_mean * (1 - momentum) + mean * momentum)
        if running_var is not None:
            unbiased = var * (count / (count - 1))
            running_var.copy_(running_var * (1 - momentum) + unbiased * momentum)


def _normalize_with(input: Tensor, running_mean: Tensor, running_var: Tensor, eps: float,
                    cshape: tuple[Any, ...]) -> Tensor:
    """``input`` normalised per channel by the given statistics."""
    return (input - running_mean.reshape(cshape)) * ew.rsqrt(running_var.reshape(cshape) + eps)


def _affine(out: Tensor, weight: Tensor | None, bias: Tensor | None, cshape: tuple[Any, ...]) -> Tensor:
    """``out * weight + bias`` with per-channel ``weight``/``bias`` (either may be None)."""
    if weight is not None:
        out = out * weight.reshape(cshape)
    if bias is not None:
        out = out + bias.reshape(cshape)
    return out


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
        if takes_one_node(input, weight, bias):
            return batch_norm_one_node(input, running_mean, running_var, weight, bias,
                                       momentum, eps)
        out, mean, var = _normalize(input, dims, eps)
        _update_running(running_mean, running_var, mean.reshape(-1), var.reshape(-1), count,
                        momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var must be defined in "
                               "evaluation mode")
        out = _normalize_with(input, running_mean, running_var, eps, cshape)
    return _affine(out, weight, bias, cshape)


def _trailing_dims(input: Tensor, normalized_shape: Any,
                   params: dict[str, Tensor | None]) -> tuple[int, ...]:
    """The trailing dims ``normalized_shape`` names, after PyTorch's checks of ``input``'s
    shape and of the per-element ``params``' shapes."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    n = len(shape)
    if n == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if input.ndim < n or tuple(input.shape[input.ndim - n:]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape [*, "
            f"{', '.join(str(s) for s in shape)}], but got input of size{input.shape}")
    for name, param in params.items():
        if param is not None and tuple(param.shape) != shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(param.shape)} and normalized_shape = {list(shape)}")
    return tuple(range(input.ndim - n, input.ndim))


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dimensions, then scale and shift."""
    tensor_arg("layer_norm", input)
    check_kernel_dtype("layer_norm", input)
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, weight, bias = _amp.cast("layer_norm", input, weight, bias)
    dims = _trailing_dims(input, normalized_shape, {"weight": weight, "bias": bias})
    refuse_complex_forward("LayerNormKernelImpl", input, message=(
        f"\"LayerNormKernelImpl\" not implemented for '{_dt.scalar_type_name(input.dtype)}'"))
    # float16/bfloat16 in float32, rounded once, as PyTorch's kernel
    return ew.computed_in_float32(
        input, lambda x, w, b: layer_norm_one_node(x, dims, w, b, eps), weight, bias)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise each group of ``C / num_groups`` channels over its channels and spatial dims."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, weight, bias = _amp.cast("group_norm", input, weight, bias)
    if input.ndim < 2:
        raise RuntimeError(f"group_norm: expected at least 2D input (got {input.ndim}D input)")
    n, c = input.shape[0], input.shape[1]
    if c % num_groups != 0:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {input.shape} and num_groups={num_groups}")
    grouped = input.reshape(n, num_groups, -1)
    out, _, _ = _normalize(grouped, (2,), eps)
    return _affine(out.reshape(tuple(input.shape)), weight, bias, _channel_shape(input.ndim, c))


def instance_norm(input: Tensor, running_mean: Tensor | None = None,
                  running_var: Tensor | None = None, weight: Tensor | None = None,
                  bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample over its spatial dims (``torch.instance_norm``).

    With ``use_input_stats`` the statistics are the instance's own, and ``running_*`` (when
    given) move towards their average over the batch (the variance unbiased), as PyTorch does;
    without it the running statistics normalise.
    """
    if input.ndim < 3:
        raise ValueError(f"instance_norm: expected at least 3D input (N, C, *), got "
                         f"{input.ndim}D input of shape {list(input.shape)}")
    n, c = input.shape[0], input.shape[1]
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat is not None and tuple(stat.shape) != (c,):
            raise RuntimeError(f"instance_norm: {name} should contain {c} elements not "
                               f"{stat.numel()}")
    cshape = _channel_shape(input.ndim, c)
    dims = tuple(range(2, input.ndim))
    if use_input_stats:
        count = input.numel() // (n * c)
        if count <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input "
                             f"size {list(input.shape)}")
        out, mean, var = _normalize(input, dims, eps)
        # the running statistics follow the instances' statistics averaged over the batch
        _update_running(running_mean, running_var, mean.reshape(n, c).mean(0),
                        var.reshape(n, c).mean(0), count, momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("instance_norm: Expected running_mean and running_var to be "
                               "defined when use_input_stats is false")
        out = _normalize_with(input, running_mean, running_var, eps, cshape)
    return _affine(out, weight, bias, cshape)


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """``x / sqrt(mean(x**2) + eps) * weight`` over the trailing ``normalized_shape`` dims;
    ``eps`` defaults to the machine epsilon of ``input``'s dtype, as PyTorch's."""
    from arraygrad.ops.families.dtype_queries import finfo

    dims = _trailing_dims(input, normalized_shape, {"weight": weight})
    if eps is None:
        eps = finfo(input.dtype).eps if input.dtype.is_floating_point else 1e-7
    # float16/bfloat16: normalised in float32 and rounded, then scaled (PyTorch's composite)
    out = ew.computed_in_float32(
        input, lambda x: x * ew.rsqrt((x * x).mean(dim=dims, keepdim=True) + eps))
    return out * weight if weight is not None else out


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """Divide each element by ``(k + alpha * mean of squares over size neighbouring
    channels) ** beta`` (channels zero-padded by ``size // 2`` before, ``(size - 1) // 2``
    after), as PyTorch's."""
    from arraygrad.ops.shape import cat

    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} "
                         "dimensions)")
    if input.numel() == 0:
        return input
    sq = input * input
    c = input.shape[1]
    before, after = size // 2, (size - 1) // 2
    pad_shape = list(input.shape)
    parts = []
    if before:
        pad_shape[1] = before
        parts.append(sq.new_zeros(tuple(pad_shape)))
    parts.append(sq)
    if after:
        pad_shape[1] = after
        parts.append(sq.new_zeros(tuple(pad_shape)))
    padded = cat(parts, 1) if len(parts) > 1 else sq
    window = padded.narrow(1, 0, c)
    for offset in range(1, size):
        window = window + padded.narrow(1, offset, c)
    div = (window * (alpha / size) + k) ** beta
    return input / div
