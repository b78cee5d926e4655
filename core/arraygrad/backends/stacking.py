"""Backends stacked on backends: a vmap level's ``BatchingBackend`` wraps the backend below it
(``arraygrad.func._vmap``), and tensors of the two combine in one op.

Kept apart (and import-free) so that the op layer and autograd both ask it without importing
each other or the transforms.
"""

from __future__ import annotations

from typing import Any

__all__ = ["outer_backend"]


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
