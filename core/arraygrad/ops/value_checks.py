"""Checks that read an op's input values (index ranges, probabilities in [0, 1]), and what
they do on a backend without values (``Backend.holds_data`` False: the meta device): pass,
as PyTorch's meta kernels check no values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.tensor import Tensor

__all__ = ["index_range", "any_true", "require_values"]


def index_range(backend: Backend, data: Any) -> tuple[int, int] | None:
    """``(min, max)`` of the native integer array ``data`` (an index), for a bounds check;
    None when it is empty or the backend holds no values (nothing to check)."""
    if not backend.holds_data or not data.size:
        return None
    xp = backend.xp
    return int(xp.min(data)), int(xp.max(data))


def any_true(backend: Backend, data: Any) -> bool:
    """Whether the native boolean array ``data`` (a check's failures) has a True entry; False
    on a backend without values."""
    return backend.holds_data and bool(backend.xp.any(data))


def require_values(op: str, t: Tensor) -> None:
    """NotImplementedError (PyTorch's class for an op without a meta kernel) when ``t`` holds
    no values: ``op``'s result (its shape, or a Python answer) is made of them."""
    if not t._backend.holds_data:
        raise NotImplementedError(f"{op}: cannot run on {t.device.type} tensors, which hold no "
                                  "values (its result depends on them)")
