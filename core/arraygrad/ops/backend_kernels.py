"""A backend's own kernels for whole rules (convolutions, pooling, recurrent sequences),
taken while fast paths are on: the one seam where a rule's array formula gives way to a
faster one of its backend (``Backend.kernel``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.ops.rule import fast_paths

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = ["dispatch_kernel"]


def dispatch_kernel(name: str, backend: Backend, portable: Any, *args: Any) -> Any:
    """The backend's own kernel ``name`` on ``args`` while fast paths are on, ``portable``
    when it has none or it declines (``NotImplemented``); always ``portable`` in reference
    mode (it is the kernels' reference twin). While ``arraygrad.compile`` records, the
    recording backend's ``kernel`` hands back the kernel wrapped so that its call runs on
    the real arrays and is written down as one instruction (``compiler.recording_backend``):
    a replay calls the very kernel eager calls, so its values are eager's (no compile-aware
    code here)."""
    kernel = backend.kernel(name) if fast_paths.on else None
    if kernel is not None:
        out = kernel(*args)
        if out is not NotImplemented:
            return out
    return portable(*args)
