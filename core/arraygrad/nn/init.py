"""``arraygrad.nn.init``: in-place initialisers with PyTorch's names, formulas and defaults.

All run under ``no_grad`` and return the tensor they filled.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Callable, ParamSpec, TypeVar

from arraygrad.autograd.grad_mode import no_grad
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.random import Generator

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_", "orthogonal_", "sparse_",
           # deprecated aliases, as PyTorch keeps them (each warns with FutureWarning)
           "uniform", "normal", "constant", "eye", "dirac", "xavier_uniform", "xavier_normal",
           "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse",
           "_calculate_fan_in_and_fan_out"]


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for ``nonlinearity`` (``'relu'``: sqrt(2), ``'tanh'``: 5/3, ...)."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif (not isinstance(param, bool) and isinstance(param, int)) or isinstance(param, float):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)``: dim 1 and dim 0 sizes times the receptive field size."""
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill_from(tensor: Tensor, sample: Tensor) -> Tensor:
    with no_grad():
        tensor.copy_(sample)
    return tensor


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0,
             generator: Generator | None = None) -> Tensor:
    """Fill with samples of U(a, b)."""
    from arraygrad.creation import rand

    u = rand(*tensor.shape, generator=generator, dtype=tensor.dtype, device=tensor.device)
    # Tensor's operators are installed at import by tensor_methods, which mypy cannot see yet
    # (so it also misreads the result as a float); typed after the issue-11 merge.
    return _fill_from(tensor, u * (b - a) + a)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Generator | None = None) -> Tensor:
    """Fill with samples of N(mean, std^2)."""
    from arraygrad.creation import randn

    z = randn(*tensor.shape, generator=generator, dtype=tensor.dtype, device=tensor.device)
    # Tensor's operators are installed at import by tensor_methods, which mypy cannot see yet
    # (so it also misreads the result as a float); typed after the issue-11 merge.
    return _fill_from(tensor, z * std + mean)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    with no_grad():
        tensor.fill_(val)
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with 0."""
    return constant_(tensor, 0.0)


def _normal_sample(tensor: Tensor, mean: float, std: float,
                   generator: Generator | None) -> Tensor:
    """A fresh tensor like ``tensor`` of N(mean, std^2) samples."""
    from arraygrad.creation import randn

    z = randn(*tensor.shape, generator=generator, dtype=tensor.dtype, device=tensor.device)
    return z * std + mean


def _uniform_sample(tensor: Tensor, a: float, b: float, generator: Generator | None) -> Tensor:
    """A fresh tensor like ``tensor`` of U(a, b) samples."""
    from arraygrad.creation import rand

    u = rand(*tensor.shape, generator=generator, dtype=tensor.dtype, device=tensor.device)
    return u * (b - a) + a


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Generator | None = None) -> Tensor:
    """Fill with N(mean, std^2) samples truncated to ``[a, b]`` (values outside are redrawn).

    As PyTorch: when ``[a, b]`` holds more than 30% of the mass, normal samples outside
    are redrawn; otherwise uniform proposals on ``[a, b]`` are accepted with the normal
    density's ratio to its peak. Warns when ``mean`` is more than 2 std outside ``[a, b]``.

    >>> w = trunc_normal_(arraygrad.empty(3, 5), std=0.02)
    """
    from arraygrad.creation import tensor as make_tensor
    from arraygrad.ops.elementwise import where

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    with no_grad():
        mass = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if mass > 0.3:
            # the bounds as the tensor's dtype rounds them, so accepted values stay inside
            lo = make_tensor(a, dtype=tensor.dtype).item()
            hi = make_tensor(b, dtype=tensor.dtype).item()
            result = _normal_sample(tensor, mean, std, generator)
            while True:
                reject = (result < lo) | (result > hi)
                if not bool(reject.any()):
                    break
                result = where(reject, _normal_sample(tensor, mean, std, generator), result)
        else:
            mode = max(a, min(mean, b))
            log_peak = -0.5 * ((mode - mean) / std) ** 2

            def pending_of(candidates: Tensor) -> Tensor:
                log_pdf = ((candidates - mean) / std) ** 2 * -0.5 - log_peak
                return _uniform_sample(tensor, 0.0, 1.0, generator).log() > log_pdf

            result = _uniform_sample(tensor, a, b, generator)
            pending = pending_of(result)
            while bool(pending.any()):
                candidates = _uniform_sample(tensor, a, b, generator)
                result = where(pending, candidates, result)
                pending = where(pending, pending_of(candidates), pending)
        tensor.copy_(result)
    return tensor


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix (ones on the main diagonal).

    >>> eye_(arraygrad.empty(2, 3))
    tensor([[1., 0., 0.],
            [0., 1., 0.]])
    """
    from arraygrad.creation import eye

    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype,
                         device=tensor.device))
    return tensor


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta (identity convolution).

    Output channel ``d`` of each of the ``groups`` gets a 1 at input channel ``d`` and the
    kernel centre, so as many input channels as possible pass through unchanged.
    """
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tuple(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per_group = sizes[0] // groups
    min_dim = min(out_per_group, sizes[1])
    centre = tuple(s // 2 for s in sizes[2:])
    with no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min_dim):
                tensor[(g * out_per_group + d, d) + centre] = 1
    return tensor


def ones_(tensor: Tensor) -> Tensor:
    """Fill with 1."""
    return constant_(tensor, 1.0)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0,
                    generator: Generator | None = None) -> Tensor:
    """Glorot uniform: U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Glorot normal: N(0, std^2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float:
    fan = _calculate_correct_fan(tensor, mode)
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu",
                     generator: Generator | None = None) -> Tensor:
    """He uniform: U(-b, b) with ``b = gain * sqrt(3 / fan)``."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Generator | None = None) -> Tensor:
    """He normal: N(0, std^2) with ``std = gain / sqrt(fan)``."""
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Generator | None = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times ``gain`` (Saxe et al. 2013).

    Dimensions after the first are flattened; the Q of the QR decomposition of a
    standard normal matrix, with signs fixed by R's diagonal so it is uniformly
    distributed.
    """
    from arraygrad.creation import randn
    from arraygrad.linalg import qr
    from arraygrad.ops.elementwise import sign

    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    flattened = randn(rows, cols, generator=generator, dtype=tensor.dtype, device=tensor.device)
    if rows < cols:
        flattened = flattened.t()
    q, r = qr(flattened)
    q = q * sign(r.diagonal())
    if rows < cols:
        q = q.t()
    with no_grad():
        tensor.copy_(q.reshape(tensor.shape) * gain)
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01,
            generator: Generator | None = None) -> Tensor:
    """Fill a 2-D tensor with N(0, std^2) samples, then zero ``ceil(sparsity * rows)``
    random entries of each column (Martens 2010)."""
    from arraygrad.creation import randperm

    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tuple(tensor.shape)
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.copy_(_normal_sample(tensor, 0.0, std, generator))
        for col in range(cols):
            zero_rows = randperm(rows, generator=generator, device=tensor.device)[:num_zeros]
            tensor[zero_rows, col] = 0
    return tensor


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _make_deprecate(meth: Callable[_P, _R]) -> Callable[_P, _R]:
    """``meth`` under its old name without ``_``, warning with FutureWarning, as PyTorch."""
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of "
                      f"`nn.init.{new_name}`.", FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = f"Deprecated alias of ``{new_name}`` (warns with FutureWarning)."
    deprecated_init.__name__ = old_name
    deprecated_init.__qualname__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
eye = _make_deprecate(eye_)
dirac = _make_deprecate(dirac_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
orthogonal = _make_deprecate(orthogonal_)
sparse = _make_deprecate(sparse_)


def default_layer_init_(weight: Tensor, bias: Tensor | None = None) -> None:
    """PyTorch's default initialisation of Linear and Conv layers.

    ``kaiming_uniform_(weight, a=sqrt(5))`` (that is U(-1/sqrt(fan_in), 1/sqrt(fan_in)))
    and the bias uniform in the same bound.
    """
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)
