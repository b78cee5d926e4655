"""The namespace forms of PyTorch's in-place ops: ``torch.abs_(t)`` is ``t.abs_()``,
``torch.clamp_(t, min, max)`` is ``t.clamp_(min, max)``, and so on, with PyTorch's argument
names; plus ``torch.detach``/``detach_``, and ``torch.fill`` (the out-of-place fill).

Each calls the Tensor method, so the in-place machinery (version counters, the leaf and view
checks, rebasing the history) is the methods' own; nothing is computed here.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.ops.inplace import overwritten
from arraygrad.tensor import Tensor

__all__ = ["FUNCTIONS"]


def _tensor(op: str, input: Any) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input


def _unary(name: str) -> Callable[[Tensor], Tensor]:
    """``torch.<name>(input)``: ``input.<name>()``."""
    def fn(input: Tensor) -> Tensor:
        return getattr(_tensor(name, input), name)()

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``input.{name}()``: ``{name[:-1]}`` in place; returns ``input``."
    return fn


_UNARY = (
    "abs_", "acos_", "acosh_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "cos_", "cosh_", "deg2rad_",
    "exp2_", "exp_", "expm1_", "fix_", "floor_", "frac_", "log10_", "log1p_", "log2_", "log_",
    "neg_", "negative_", "rad2deg_", "reciprocal_", "relu_", "rsqrt_", "sigmoid_", "sin_",
    "sinc_", "sinh_", "sqrt_", "square_", "tan_", "tanh_", "trunc_", "zero_", "detach_",
)


def clamp_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """``input.clamp_(min, max)``."""
    return _tensor("clamp_", input).clamp_(min, max)


def clip_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """``input.clip_(min, max)`` (``clamp_``'s alias)."""
    return _tensor("clip_", input).clip_(min, max)


def clamp_min_(input: Tensor, min: Any) -> Tensor:
    """``input.clamp_min_(min)``."""
    return _tensor("clamp_min_", input).clamp_min_(min)


def clamp_max_(input: Tensor, max: Any) -> Tensor:
    """``input.clamp_max_(max)``."""
    return _tensor("clamp_max_", input).clamp_max_(max)


def addmv_(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``input.addmv_(mat, vec, beta=beta, alpha=alpha)``: ``beta*input + alpha*(mat @ vec)``
    in place."""
    return _tensor("addmv_", input).addmv_(mat, vec, beta=beta, alpha=alpha)


def fill_(input: Tensor, value: Any) -> Tensor:
    """``input.fill_(value)``."""
    return _tensor("fill_", input).fill_(value)


def fill(input: Tensor, value: Any) -> Tensor:
    """A new tensor of ``input``'s shape and dtype filled with ``value`` (a number or a 0-d
    tensor), in the graph as ``fill_`` on a copy would be: the gradient reaches a tensor
    ``value``, not ``input``."""
    _tensor("fill", input)
    if isinstance(value, Tensor) and value.ndim != 0:
        raise RuntimeError(f"fill only supports 0-dimension value tensor but got tensor with "
                           f"{value.ndim} dimensions.")
    return overwritten(input, value, "fill")


def index_put_(input: Tensor, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
    """``input.index_put_(indices, values, accumulate)``."""
    return _tensor("index_put_", input).index_put_(indices, values, accumulate)


def nan_to_num_(input: Tensor, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> Tensor:
    """``input.nan_to_num_(nan, posinf, neginf)``."""
    return _tensor("nan_to_num_", input).nan_to_num_(nan, posinf, neginf)


def round_(input: Tensor, *, decimals: int = 0) -> Tensor:
    """``input.round_(decimals=decimals)``."""
    t = _tensor("round_", input)
    return t.round_(decimals=decimals) if decimals else t.round_()


def detach(input: Tensor) -> Tensor:
    """``input.detach()``: the same data outside the graph."""
    return _tensor("detach", input).detach()


def _binary(name: str) -> Callable[[Tensor, Any], Tensor]:
    """``torch.<name>(input, other)``: ``input.<name>(other)``."""
    def fn(input: Tensor, other: Any) -> Tensor:
        return getattr(_tensor(name, input), name)(other)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``input.{name}(other)``: ``{name[:-1]}`` in place; returns ``input``."
    return fn


FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{name: _unary(name) for name in _UNARY},
    **{name: _binary(name) for name in ("gcd_", "lcm_", "ldexp_")},
    "clamp_": clamp_, "clip_": clip_, "clamp_min_": clamp_min_, "clamp_max_": clamp_max_,
    "addmv_": addmv_, "fill_": fill_, "fill": fill, "index_put_": index_put_,
    "nan_to_num_": nan_to_num_, "round_": round_, "detach": detach,
}
