"""What the distributions parameterised by ``probs`` or ``logits`` share: taking exactly one of
them, and computing the other lazily."""

from __future__ import annotations

from typing import Any

__all__ = ["one_of"]


def one_of(probs: Any, logits: Any) -> None:
    """ValueError unless exactly one of ``probs`` and ``logits`` is given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
