"""Where arraygrad is installed: ``get_file_path``, and the multiprocessing hook PyTorch keeps
for its internal builds."""

from __future__ import annotations

import os

_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def get_file_path(*path_components: str) -> str:
    """A path under the directory holding the installed ``arraygrad`` package (as
    ``torch.get_file_path`` is under the one holding ``torch``)."""
    return os.path.join(_PARENT, *path_components)


def prepare_multiprocessing_environment(path: str) -> None:
    """Prepare child processes' environment: nothing to do (PyTorch's public build does nothing
    either; its internal builds hook here)."""
