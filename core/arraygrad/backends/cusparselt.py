"""``arraygrad.backends.cusparselt``: NVIDIA's structured-sparsity library, which arraygrad
does not use."""

from __future__ import annotations

__all__ = ["is_available", "version", "get_max_alg_id"]


def is_available() -> bool:
    """False: arraygrad does not use cuSPARSELt."""
    return False


def version() -> None:
    """None: no cuSPARSELt is in use."""
    return None


def get_max_alg_id() -> None:
    """None: no cuSPARSELt is in use."""
    return None
