"""State that transforms (``func``'s vmap and forward AD, ``compile``) read from below.

A leaf module: it imports nothing of arraygrad, so any module may read or bump what is
here without importing the transform itself (the transforms register themselves from
above). Each transform keeps its own clearly headed section.
"""

from __future__ import annotations

__all__ = ["compile_epochs"]


# -- compile ------------------------------------------------------------------------------
class _CompileEpochs:
    """Counters ``arraygrad.compile``'s guards read to skip re-reading unchanged state.

    ``module_attrs`` is bumped by every ``nn.Module`` attribute assignment or deletion
    (``Module.__setattr__``/``__delattr__``): while it stands still, no module's plain
    attributes (``Dropout.p``, ``LeakyReLU.negative_slope``...) changed, and a compiled
    function's guard reuses the values it read at the previous call.
    """

    __slots__ = ("module_attrs",)

    def __init__(self) -> None:
        self.module_attrs = 0


compile_epochs = _CompileEpochs()
