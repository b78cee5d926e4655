"""Assorted tensor math PyTorch has by name: ``positive``, ``rsub``, ``dist``, ``renorm``,
``cross`` (the deprecated default ``dim``), ``vander``, ``index_reduce``, ``unravel_index``,
and ``nonzero_static``.

The differentiable ones are composites of core ops (``sub``, ``linalg.vector_norm``,
``where``, ``cumprod``, ``scatter_reduce``...): their gradients and double backward are those
ops' own, and PyTorch's formulas for these ops differentiate the same expressions.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import arraygrad as ag
from arraygrad import dtypes as _dt
from arraygrad.tensor import Tensor, _wrap_dim

__all__ = ["positive", "rsub", "dist", "renorm", "cross", "vander", "index_reduce",
           "unravel_index", "nonzero_static", "FUNCTIONS",
           "METHODS", "INPLACE"]


def _tensor(op: str, value: Any, name: str = "input", position: int = 1) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")
    return value


def positive(input: Tensor) -> Tensor:
    """``+input``: the tensor itself (PyTorch refuses bool tensors)."""
    if _tensor("positive", input).dtype is _dt.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def rsub(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """``other - alpha * input`` (``sub`` with the operands swapped)."""
    return ag.sub(other, _tensor("rsub", input), alpha=alpha)


def dist(input: Tensor, other: Tensor, p: Any = 2) -> Tensor:
    """The ``p``-norm of ``input - other`` (broadcast), floating tensors only."""
    _tensor("dist", input)
    _tensor("dist", other, "other", 2)
    diff = ag.sub(input, other)
    if not diff.dtype.is_floating_point:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. "
                           f"Got {_dt.scalar_type_name(diff.dtype)} instead.")
    return ag.linalg.vector_norm(diff, float(p))


def renorm(input: Tensor, p: Any, dim: int, maxnorm: Any) -> Tensor:
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled down to norm
    ``maxnorm`` (``maxnorm / (norm + 1e-7)``, as PyTorch); the others unchanged."""
    x = _tensor("renorm", input)
    if x.ndim < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {x.ndim} dimensions")
    if not x.dtype.is_floating_point:
        raise RuntimeError(f"renorm: expected a floating point or complex tensor as input. Got "
                           f"{_dt.scalar_type_name(x.dtype)}")
    if not float(p) > 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if float(maxnorm) < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    d = _wrap_dim(dim, x.ndim, "renorm")
    others = tuple(i for i in range(x.ndim) if i != d)
    norm = ag.linalg.vector_norm(x, float(p), others, True)
    factor = ag.where(norm > maxnorm, maxnorm / (norm + 1e-7), ag.ones_like(norm))
    return x * factor


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """The cross product of 3-vectors along ``dim``; without ``dim`` (deprecated, warns), the
    first dimension of size 3."""
    _tensor("cross", input)
    _tensor("cross", other, "other", 2)
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease "
                      "either pass the dim explicitly or simply use torch.linalg.cross.\nThe "
                      "default value of dim will change to agree with that of linalg.cross in a "
                      "future release.", UserWarning, stacklevel=2)
        shape = ag.broadcast_shapes(tuple(input.shape), tuple(other.shape)) \
            if tuple(input.shape) != tuple(other.shape) else tuple(input.shape)
        found = [i for i, n in enumerate(shape) if n == 3]
        if not found:
            raise RuntimeError("no dimension of size 3 in input")
        dim = found[0]
    return ag.linalg.cross(input, other, dim=dim)


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of 1-D ``x``: columns ``x**(N-1), ..., x, 1`` (reversed with
    ``increasing``); integers and bools compute in int64, as PyTorch."""
    _tensor("vander", x, "x")
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if not x.dtype.is_floating_point:
        x = x.to(_dt.int64)
    if n == 0:
        return x.new_zeros((x.shape[0], 0))
    # the powers as a running product, so the gradient is cumprod's
    columns = [ag.ones_like(x).unsqueeze(1)]
    if n > 1:
        columns.append(x.unsqueeze(1).expand(x.shape[0], n - 1))
    powers = ag.cumprod(ag.cat(columns, 1), 1)
    return powers if increasing else ag.flip(powers, 1)


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """``input`` with each slice ``source.select(dim, i)`` reduced (``"prod"``, ``"mean"``,
    ``"amax"``, ``"amin"``) into ``input.select(dim, index[i])``."""
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    x = _tensor("index_reduce", input)
    _tensor("index_reduce", index, "index", 3)
    _tensor("index_reduce", source, "source", 4)
    d = _wrap_dim(dim, x.ndim, "index_reduce")
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if index.dtype not in (_dt.int64, _dt.int32):
        raise IndexError("index_reduce_(): Expected dtype int32/int64 for index")
    if index.numel() != (source.shape[d] if source.ndim else 1):
        raise IndexError(f"index_reduce_(): Number of indices ({index.numel()}) should be equal "
                         f"to source.size(dim) ({source.shape[d] if source.ndim else 1})")
    # scatter_reduce's index: ``index`` along ``dim``, spread over the source's shape
    shape = [1] * max(source.ndim, 1)
    shape[d] = index.numel()
    spread = index.to(_dt.int64).reshape(shape).expand(*source.shape) if source.ndim else index
    return ag.scatter_reduce(x, d, spread, source, reduce, include_self=include_self)


def unravel_index(indices: Any, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates in ``shape`` of flat ``indices`` (a tuple of int64 tensors, one per
    dimension; an index wraps around as Python's ``%`` does)."""
    if not isinstance(indices, Tensor):
        indices = ag.tensor(indices)
    if indices.dtype.is_floating_point or indices.dtype is _dt.bool:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    dims = (int(shape),) if isinstance(shape, int) else tuple(int(n) for n in shape)
    if any(n < 0 for n in dims):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(dims)}")
    rest = indices.to(_dt.int64)
    coords = []
    for n in reversed(dims):
        coords.append(rest.remainder(n) if n else rest * 0)
        rest = rest.floor_divide(n) if n else rest * 0
    return tuple(reversed(coords))


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``nonzero(input)`` cut or padded (with ``fill_value``) to exactly ``size`` rows."""
    x = _tensor("nonzero_static", input)
    if not isinstance(size, int) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = ag.nonzero(x)
    found = found[:size]
    missing = size - found.shape[0]
    if missing:
        pad = ag.full((missing, found.shape[1]), fill_value, dtype=_dt.int64, device=x.device)
        found = ag.cat([found, pad], 0)
    return found


def _index_reduce_inplace(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str,
                          *, include_self: bool = True) -> Tensor:
    return index_reduce(input, dim, index, source, reduce, include_self=include_self)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "positive": positive, "rsub": rsub, "dist": dist, "renorm": renorm, "cross": cross,
    "vander": vander, "index_reduce": index_reduce, "unravel_index": unravel_index,
    "nonzero_static": nonzero_static,
}
METHODS: dict[str, Callable[..., Any]] = {
    name: FUNCTIONS[name] for name in ("positive", "dist", "renorm", "cross", "index_reduce",
                                       "nonzero_static")
}
INPLACE: dict[str, Callable[..., Any]] = {"renorm_": renorm,
                                          "index_reduce_": _index_reduce_inplace}
