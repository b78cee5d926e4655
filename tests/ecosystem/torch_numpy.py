"""PyTorch for the handshake tests' comparisons (they skip without it), and the NumPy 2
warnings PyTorch's own ``__array__``/``__array_wrap__`` (NumPy 1's signatures) raise on every
conversion, silenced for the modules that compare with it."""

from __future__ import annotations

import pytest

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
QUIET_PYTORCH_ARRAY_PROTOCOL = [
    pytest.mark.filterwarnings("ignore:__array__ implementation:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:__array_wrap__ must accept:DeprecationWarning")]

__all__ = ["torch", "needs_torch", "QUIET_PYTORCH_ARRAY_PROTOCOL"]
