"""``torch.hash_tensor``: the xor of the elements' bits (floats as float64, integers and
bools as int64, read as uint64) over ``dim`` (all by default); no graph."""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.ops.arguments import normalize_dims
from arraygrad.tensor import Tensor, wrap

__all__ = ["hash_tensor", "FUNCTIONS", "METHODS"]


def _xor_reduce_last(xp: Any, a: Any) -> Any:
    """The xor of ``a`` along its last axis, by halving (the Array API has no xor reduction)."""
    while a.shape[-1] > 1:
        n = a.shape[-1]
        if n % 2:  # an odd element carries over: xor with 0 leaves it
            a = xp.concat([a, xp.zeros(tuple(a.shape[:-1]) + (1,), dtype=a.dtype)], axis=-1)
            n += 1
        a = xp.bitwise_xor(a[..., : n // 2], a[..., n // 2:])
    return a[..., 0] if a.shape[-1] == 1 else xp.zeros(tuple(a.shape[:-1]), dtype=a.dtype)


def hash_tensor(input: Tensor, dim: Any = None, *, keepdim: bool = False, mode: int = 0) -> Tensor:
    """The xor of ``input``'s element bits over ``dim`` (uint64), as PyTorch's mode 0."""
    if not isinstance(input, Tensor):
        raise TypeError(f"hash_tensor(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    backend = input._backend
    xp = backend.xp
    wide = _dt.float64 if input.dtype.is_floating_point else _dt.int64
    bits = input.detach().to(wide).contiguous().view(_dt.uint64)._data
    dims = normalize_dims(dim, input.ndim, "hash_tensor")
    axes = tuple(range(input.ndim)) if dims is None else dims
    rest = [a for a in range(input.ndim) if a not in axes]
    moved = xp.permute_dims(bits, tuple(rest) + tuple(axes)) if input.ndim else bits
    kept = tuple(moved.shape[:len(rest)])
    flat = xp.reshape(moved, kept + (-1,)) if input.ndim else xp.reshape(moved, (1,))
    out = _xor_reduce_last(xp, flat)
    if keepdim:
        out = xp.reshape(out, tuple(1 if a in axes else input.shape[a] for a in range(input.ndim)))
    return wrap(out, backend)


FUNCTIONS = {"hash_tensor": hash_tensor}
"""``arraygrad.hash_tensor``."""

METHODS = dict(FUNCTIONS)
"""``Tensor.hash_tensor``."""
