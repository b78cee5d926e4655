"""``Tensor.hardshrink`` and ``Tensor.prelu``: the methods PyTorch gives two of its
``nn.functional`` activations, calling ``arraygrad.nn.functional`` (imported on first use, so
loading the op families does not load ``nn``)."""

from __future__ import annotations

from typing import Any


def _hardshrink(self: Any, lambd: float = 0.5) -> Any:
    """``self`` where ``|self| > lambd``, else 0 (``nn.functional.hardshrink``)."""
    from arraygrad.nn._functional.activation import hardshrink

    return hardshrink(self, lambd)


def _prelu(self: Any, weight: Any) -> Any:
    """``self`` where positive, else ``weight * self`` (``nn.functional.prelu``)."""
    from arraygrad.nn._functional.activation import prelu

    return prelu(self, weight)


_hardshrink.__name__ = _hardshrink.__qualname__ = "hardshrink"
_prelu.__name__ = _prelu.__qualname__ = "prelu"

METHODS = {"hardshrink": _hardshrink, "prelu": _prelu}
