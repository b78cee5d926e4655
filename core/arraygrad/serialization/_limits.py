"""The limits a load keeps to, over the whole file: what a hostile checkpoint may make
``arraygrad.load`` allocate or compute beyond the bytes it holds.

A checkpoint's storages are its own bytes; what a file can make a loader allocate *beyond*
them is where the resource attacks are: a deflated record that inflates, an expanded
(stride-0) tensor that describes more elements than its storage holds, a strided tensor the
backend cannot view and must copy. Each is charged to one :class:`LoadBudget` per load, and
the load is refused (``RuntimeError`` naming the limit) the moment the total would pass it.
The pickle's hashed keys (dict keys, set members) are bounded too: a memo can make a tuple of
``2**40`` leaves out of 40 small ones, and hashing it would never finish.

Each limit is read when a load starts: from its environment variable if set, else its default
(the module constant). Raise them for a trusted file that needs more::

    ARRAYGRAD_LOAD_MAX_EXPANDED_BYTES=4294967296 python train.py
"""

from __future__ import annotations

import os
from dataclasses import dataclass

__all__ = ["MAX_EXPANDED_BYTES", "MAX_DEFLATE_RATIO", "MAX_KEY_ELEMENTS", "MAX_NESTING",
           "LoadLimits", "load_limits", "LoadBudget"]

MAX_EXPANDED_BYTES = 256 * 1024 * 1024
"""Default of ``ARRAYGRAD_LOAD_MAX_EXPANDED_BYTES``: the bytes one load may allocate beyond its
records, over all its tensors together (expanded tensors, copies of strided tensors a backend
cannot view)."""

MAX_DEFLATE_RATIO = 32
"""Default of ``ARRAYGRAD_LOAD_MAX_DEFLATE_RATIO``: how many times its compressed size a
deflated record may inflate to (PyTorch never compresses records; weights barely compress)."""

MAX_KEY_ELEMENTS = 100_000
"""Default of ``ARRAYGRAD_LOAD_MAX_KEY_ELEMENTS``: the elements (counted with repetition, as
hashing visits them) of one dict key or set member a weights-only load accepts."""

MAX_NESTING = 1_000
"""Default of ``ARRAYGRAD_LOAD_MAX_NESTING``: how deeply tuples may nest inside one dict key or
set member (hashing recurses once per level, in C)."""

_ENV = {"max_expanded_bytes": ("ARRAYGRAD_LOAD_MAX_EXPANDED_BYTES", MAX_EXPANDED_BYTES),
        "max_deflate_ratio": ("ARRAYGRAD_LOAD_MAX_DEFLATE_RATIO", MAX_DEFLATE_RATIO),
        "max_key_elements": ("ARRAYGRAD_LOAD_MAX_KEY_ELEMENTS", MAX_KEY_ELEMENTS),
        "max_nesting": ("ARRAYGRAD_LOAD_MAX_NESTING", MAX_NESTING)}


@dataclass(frozen=True)
class LoadLimits:
    """The limits of one load (see the module docstring)."""

    max_expanded_bytes: int = MAX_EXPANDED_BYTES
    max_deflate_ratio: int = MAX_DEFLATE_RATIO
    max_key_elements: int = MAX_KEY_ELEMENTS
    max_nesting: int = MAX_NESTING


def _from_env(variable: str, default: int) -> int:
    raw = os.environ.get(variable)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{variable} must be a non-negative integer, got {raw!r}") from None
    if value < 0:
        raise ValueError(f"{variable} must be a non-negative integer, got {raw!r}")
    return value


def load_limits() -> LoadLimits:
    """The limits a load starting now keeps to (the environment variables, else defaults)."""
    return LoadLimits(**{field: _from_env(var, default) for field, (var, default) in _ENV.items()})


class LoadBudget:
    """The bytes one load has allocated beyond its records, checked against its limit."""

    def __init__(self, limits: LoadLimits) -> None:
        self.limits = limits
        self.spent = 0

    def charge(self, nbytes: int, what: str) -> None:
        """Count ``nbytes`` more, refusing (before they are allocated) past the limit."""
        limit = self.limits.max_expanded_bytes
        if self.spent + nbytes > limit:
            raise RuntimeError(
                f"arraygrad.load: {what} would take {nbytes} bytes beyond the file's records, "
                f"{self.spent + nbytes} in all for this load, more than "
                f"ARRAYGRAD_LOAD_MAX_EXPANDED_BYTES={limit} (raise it only for a trusted file)")
        self.spent += nbytes
