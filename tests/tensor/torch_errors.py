"""What the tensor tests' comparisons of refusals with PyTorch share (callers skip without
PyTorch): the torch import, ``needs_torch``, and the same error with the same message."""

from __future__ import annotations

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def same_error_as_torch(call, error=RuntimeError):
    """``call(torch)`` and ``call(arraygrad)`` both raise ``error``, with the same message."""
    with pytest.raises(error) as theirs:
        call(torch)
    with pytest.raises(error) as mine:
        call(ag)
    assert str(mine.value) == str(theirs.value)
