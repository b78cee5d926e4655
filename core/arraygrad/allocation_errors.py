"""PyTorch's errors for a tensor too large to hold: the array library's ``MemoryError`` (NumPy
raises it at once for an impossible size, before allocating) becomes PyTorch's
``RuntimeError`` ("DefaultCPUAllocator: can't allocate memory: ..."), which programs catch to
shrink their batch; a size whose byte count overflows 64 bits is PyTorch's "Storage size
calculation overflowed" ``RuntimeError``.

``out_of_memory`` is the one translation; ``allocating`` applies it to a function whose
result is a new allocation (the products, copies, repeats and the backward pass).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence, TypeVar

__all__ = ["allocating", "check_storage_size", "out_of_memory"]

F = TypeVar("F", bound=Callable[..., Any])

_INT64_MAX = (1 << 63) - 1


def out_of_memory(exc: MemoryError, op: str, nbytes: int | None = None) -> RuntimeError:
    """PyTorch's CPU allocator error for ``exc`` raised by ``op`` (``nbytes``: the size asked
    for, when the caller knows it; else the array library's own figure when it gives one)."""
    if nbytes is None:
        nbytes = getattr(exc, "_total_size", None)  # NumPy's _ArrayMemoryError has it
    tried = f"you tried to allocate {nbytes} bytes" if nbytes is not None else str(exc)
    return RuntimeError(f"{op}: DefaultCPUAllocator: can't allocate memory: {tried}. "
                        "Error code 12 (Cannot allocate memory)")


def check_storage_size(sizes: Sequence[int], itemsize: int) -> None:
    """PyTorch's error for sizes whose byte count does not fit in a signed 64-bit integer."""
    n = itemsize
    for s in sizes:
        n *= s
    if n > _INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(sizes)}")


def allocating(op: str) -> Callable[[F], F]:
    """Decorate a function that allocates its result: a ``MemoryError`` it raises becomes
    PyTorch's ``RuntimeError`` naming ``op`` (the original kept as its cause)."""
    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except MemoryError as exc:
                raise out_of_memory(exc, op) from exc
        return wrapper  # type: ignore[return-value]
    return decorate
