"""``set_multithreading_enabled``: PyTorch's switch between running backward on per-device
worker threads (on, the default) and on the calling thread (off).

PyTorch uses worker threads only for accelerator devices; on the CPU its backward runs on
the calling thread either way. arraygrad's engine always runs backward on the calling thread
(its device backends queue their work asynchronously themselves), so the switch is kept, per
thread, and read back by ``is_multithreading_enabled``, and the backward is the same either
way, as on PyTorch's CPU build.
"""

from __future__ import annotations

import threading
from typing import Literal

from arraygrad.autograd.grad_mode import _GradModeContext

__all__ = ["is_multithreading_enabled", "set_multithreading_enabled"]


class _State(threading.local):
    enabled = True


_state = _State()


def is_multithreading_enabled() -> bool:
    """Whether multithreaded backward is enabled (per thread; default True)."""
    return _state.enabled


class set_multithreading_enabled(_GradModeContext):
    """Enable or disable multithreaded backward: a plain call, a context manager or a
    decorator (thread-local). As PyTorch's, making one sets the mode at once (a decorator's
    too), and leaving a ``with`` block restores the previous one. See the module docstring
    for what it changes."""

    def __init__(self, mode: bool) -> None:
        self.prev = _state.enabled
        self.mode = bool(mode)
        _state.enabled = self.mode

    def __enter__(self) -> None:
        _state.enabled = self.mode

    def __exit__(self, *exc: object) -> Literal[False]:
        _state.enabled = self.prev
        return False

    def clone(self) -> set_multithreading_enabled:
        """A fresh context with the same mode."""
        return set_multithreading_enabled(self.mode)
