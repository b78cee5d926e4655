"""``arraygrad.utils.deterministic``: PyTorch's ``torch.utils.deterministic``, the one setting
``fill_uninitialized_memory`` (True by default): while ``use_deterministic_algorithms(True)``
is on, ``empty`` and its kind fill their memory with NaN (integers: their largest value)."""

from __future__ import annotations

import sys
import types

from arraygrad import determinism as _determinism


class _Deterministic(types.ModuleType):
    """The module's class, so that its setting is a property, as PyTorch's."""

    @property
    def fill_uninitialized_memory(self) -> bool:
        """Whether ``empty`` fills its memory under deterministic algorithms."""
        return bool(_determinism._state["fill"])

    @fill_uninitialized_memory.setter
    def fill_uninitialized_memory(self, mode: bool) -> None:
        _determinism.set_fill_uninitialized_memory(mode)


sys.modules[__name__].__class__ = _Deterministic
