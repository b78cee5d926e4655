"""``arraygrad.backends.cudnn``: PyTorch's cuDNN flags, accepted so programs run unchanged.

arraygrad does not call cuDNN: ``benchmark``, ``deterministic``, ``enabled`` and
``allow_tf32`` are plain module attributes a program may set and read, and change no
computation (no-ops here). ``is_available()`` is False.
"""

from __future__ import annotations

__all__ = ["enabled", "benchmark", "deterministic", "allow_tf32", "is_available", "version"]

# PyTorch's defaults.
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """Whether cuDNN is used: never by arraygrad."""
    return False


def version() -> None:
    """The cuDNN version in use: ``None`` (none is), as PyTorch without cuDNN."""
    return None
