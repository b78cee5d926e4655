"""Backends stacked on backends: a vmap level's ``BatchingBackend`` wraps the backend below it
(``arraygrad.func._vmap``), and tensors of the two combine in one op.

Kept apart (and import-free) so that the op layer and autograd both ask it without importing
each other or the transforms.
"""

from __future__ import annotations

from typing import Any

__all__ = ["outer_backend", "gradient_for"]


def outer_backend(a: Any, b: Any) -> Any:
    """Of two distinct backends, the one that wraps the other (a vmap level's
    ``BatchingBackend`` over the backend of tensors captured from outside it, whose arrays it
    takes as unbatched operands), or None when neither does."""
    wraps = getattr(a, "wraps", None)
    if wraps is not None and wraps(b):
        return a
    wraps = getattr(b, "wraps", None)
    if wraps is not None and wraps(a):
        return b
    return None


def gradient_for(g: Any, backend: Any, ended_only: bool = False) -> Any:
    """The gradient ``g`` of a tensor of ``backend`` when ``g`` is of a backend stacked over
    it (computed inside a vmap call the tensor is outside of): the stacked backend's
    reduction of it (``BatchingBackend.leave_levels``: summed over the batch; with
    ``ended_only``, over the batches of the calls that returned only), else ``g``."""
    if g._backend is backend:
        return g
    leave = getattr(g._backend, "leave_levels", None)
    return g if leave is None else leave(g, backend, ended_only)
