"""Argument normalisation shared by op families: dims to axes, values to tensors."""

from __future__ import annotations

import functools
from numbers import Number
from typing import Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.tensor import Tensor


__all__ = ["normalize_dims", "as_tensor_like", "renamed_keywords", "tensor_arg"]


def tensor_arg(op: str, value: Any, name: str = "input", position: int | None = 1) -> Tensor:
    """``value``; PyTorch's TypeError naming ``op``'s argument ``name`` (at ``position``,
    when given) unless it is a Tensor."""
    if not isinstance(value, Tensor):
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"{op}(): argument '{name}'{where} must be Tensor, not "
                        f"{type(value).__name__}")
    return value


def as_tensor_like(value: Any, like: Tensor, op: str) -> Tensor:
    """``value`` (Tensor, Python scalar or nested list) as a tensor on ``like``'s backend."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (Number, bool)):
        d = _dt.result_type(like, value)
        backend = like._backend
        return Tensor._wrap(backend.xp.asarray(value, dtype=backend.native_dtype(d)), backend)
    if isinstance(value, (list, tuple)):
        from arraygrad.creation import tensor

        return tensor(value, device=like.device)
    raise TypeError(f"{op}: expected a Tensor or a number, got {type(value).__name__}")


def normalize_dims(dim: Any, ndim: int, op: str) -> Any:
    """``dim`` (int, sequence or None) as a sorted tuple of non-negative axes, or None for all."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        dims = dim
    else:
        dims = (dim,)
    n = max(ndim, 1)
    out = []
    for d in dims:
        d = int(d)
        if not -n <= d < n:
            raise IndexError(
                f"{op}: Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        d = d % n if ndim else 0
        if d in out:
            raise RuntimeError(f"{op}: dim {d} appears multiple times in the list of dims")
        out.append(d)
    if ndim == 0:
        return ()  # a 0-dim tensor accepts dim 0 / -1 and has no axis to reduce
    return tuple(sorted(out))


def renamed_keywords(fn: Callable[..., Any], **aliases: str) -> Callable[..., Any]:
    """``fn`` also taking each keyword ``alias=`` of ``aliases`` as its parameter
    ``aliases[alias]``: the names PyTorch's argument parser accepts where its documentation
    (and arraygrad's signature) uses another (``torch.linalg.norm(input=...)`` for ``A``)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for alias, name in aliases.items():
            if alias in kwargs:
                if name in kwargs:
                    raise TypeError(f"{fn.__name__}() got both {name!r} and {alias!r}")
                kwargs[name] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    return wrapper
