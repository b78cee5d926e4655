"""``arraygrad.version``: what this arraygrad was built with (``torch.version``).

``cuda`` is the CUDA runtime's version (``"12.4"``) when a CUDA backend is usable, else None
(a CPU build's answer); arraygrad builds no native code, so ``hip``, ``rocm`` and ``xpu`` are
None and ``debug`` False.
"""

from __future__ import annotations

from typing import Any

from arraygrad.torch_version import __version__

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

debug = False
git_version = "Unknown"
hip: str | None = None
rocm: str | None = None
xpu: str | None = None


def _cuda() -> str | None:
    from arraygrad.cuda import _device

    try:
        if _device.usable() is None:
            return None
        return _device.runtime().runtime_version()
    except Exception:  # a version query must never break an import-time check
        return None


def __getattr__(name: str) -> Any:
    """``cuda``, asked of the CUDA backend when read."""
    if name == "cuda":
        return _cuda()
    raise AttributeError(f"module 'arraygrad.version' has no attribute {name!r}")
