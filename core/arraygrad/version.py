"""``arraygrad.version``: PyTorch's ``torch.version`` with arraygrad's values: its own
``__version__``; ``cuda``, ``hip``, ``rocm`` and ``xpu`` are None (arraygrad is built against
no GPU toolkit: a CUDA device comes from the CuPy backend, whose ``cupy.cuda.runtime`` says
which CUDA it has); ``debug`` is False; ``git_version`` is "Unknown" (the package records no
commit)."""

from __future__ import annotations

from arraygrad import __version__

__all__ = ["__version__", "cuda", "debug", "git_version", "hip", "rocm", "xpu"]

cuda: str | None = None
hip: str | None = None
rocm: str | None = None
xpu: str | None = None
debug = False
git_version = "Unknown"
