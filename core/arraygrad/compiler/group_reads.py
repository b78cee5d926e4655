"""Which hyperparameters a user's optimizer step reads into Python: the guards of its program.

An optimizer written as PyTorch's documentation writes one (``p.add_(p.grad,
alpha=-group["lr"])``) reads its hyperparameters as plain Python numbers, which a recording
bakes into the program. arraygrad's own optimizers read theirs live
(``compiler.scalars.live``) and describe their branches in ``_compile_key``; a user's is
not trusted to (``python_values.trusted``). While such an optimizer's step is recorded,
each of its parameter groups is a ``TrackedGroup``: the same items, every write passed on
to the real group, every read made by the step (not by a ``live`` getter, which runs with
the recording flag off and is evaluated again at replay) noted. The program is kept with
those reads as guards (``reads_hold``): a replay needs each value read to be what it was,
and a changed one records again. A hyperparameter the step never reads (``momentum`` of a
step that ignores it) guards nothing.
"""

from __future__ import annotations

from typing import Any, Iterator

from arraygrad.compiler.python_values import value_guard
from arraygrad.compiler.scalars import recording_flag

__all__ = ["TrackedGroup", "track", "untrack", "reads_hold"]

_MISSING = object()
_STRUCTURE = frozenset({"params", "param_names"})  # guarded by identity (``state.discover``)


class TrackedGroup(dict[str, Any]):
    """A parameter group during a recording: reads it through ``real`` (so a ``live``
    getter made now reads the real group at replay) and notes the keys the step read."""

    def __init__(self, real: dict[str, Any]) -> None:
        super().__init__(real)
        self.real = real
        self.reads: dict[str, Any] = {}  # key -> its value when first read

    def _note(self, key: Any) -> None:
        if recording_flag.on and key not in _STRUCTURE and key not in self.reads:
            self.reads[key] = self.real.get(key, _MISSING)

    def __getitem__(self, key: Any) -> Any:
        self._note(key)
        return self.real[key]

    def get(self, key: Any, default: Any = None) -> Any:
        self._note(key)
        return self.real.get(key, default)

    def __contains__(self, key: object) -> bool:
        self._note(key)
        return key in self.real

    def _note_all(self) -> None:
        for key in self.real:
            self._note(key)

    def __iter__(self) -> Iterator[Any]:
        self._note_all()
        return iter(self.real)

    def keys(self) -> Any:
        self._note_all()
        return self.real.keys()

    def values(self) -> Any:
        self._note_all()
        return self.real.values()

    def items(self) -> Any:
        self._note_all()
        return self.real.items()

    def copy(self) -> dict[str, Any]:
        self._note_all()
        return self.real.copy()

    def __setitem__(self, key: Any, value: Any) -> None:
        self.real[key] = value
        super().__setitem__(key, value)

    def __delitem__(self, key: Any) -> None:
        del self.real[key]
        super().__delitem__(key)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        self._note(key)
        super().setdefault(key, default)
        return self.real.setdefault(key, default)

    def pop(self, key: Any, *default: Any) -> Any:
        self._note(key)
        super().pop(key, None)
        return self.real.pop(key, *default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.real.update(*args, **kwargs)
        super().update(self.real)


def track(optimizers: list[Any]) -> list[tuple[Any, list[dict[str, Any]]]]:
    """Put a ``TrackedGroup`` in place of each group of ``optimizers``; returns what
    ``untrack`` puts back."""
    swapped = []
    for o in optimizers:
        groups = o.param_groups
        real = list(groups)
        groups[:] = [TrackedGroup(g) for g in real]
        swapped.append((o, real))
    return swapped


def untrack(swapped: list[tuple[Any, list[dict[str, Any]]]]) -> tuple[Any, ...]:
    """Put the real groups back; the reads, as ``(group, key, guard)`` for ``reads_hold``."""
    reads: list[tuple[dict[str, Any], str, Any]] = []
    for o, real in swapped:
        tracked = o.param_groups
        for t in tracked:
            if isinstance(t, TrackedGroup):
                reads.extend((t.real, k, value_guard(v)) for k, v in t.reads.items())
        # (a group the step added stays, as it is: a change a replay cannot redo, seen by
        # the stamp)
        o.param_groups[:] = real + [t for t in tracked[len(real):]
                                    if not isinstance(t, TrackedGroup)]
    return tuple(reads)


def reads_hold(reads: tuple[Any, ...]) -> bool:
    """Whether every hyperparameter a program read still has the value it read."""
    for group, key, guard in reads:
        if value_guard(group.get(key, _MISSING)) != guard:
            return False
    return True
