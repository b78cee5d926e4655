"""What an optimizer's step reads of its parameter groups and state while it is recorded: live
scalars and guards, so that any optimizer written as PyTorch's are replays exactly.

While a step is recorded, each parameter group of each optimizer it reaches is a
``TrackedGroup``: the same items, every write passed on to the real group (and made again
at every replay: a host call), every read made by the step turned into what a replay needs:

- for arraygrad's own optimizers (``python_values.trusted``), a float hyperparameter comes
  back as a ``LiveScalar`` that reads the group again at replay (a tuple of floats, such as
  ``betas``, item by item, its length guarded). Arithmetic keeps it live; a branch on it
  (``if momentum != 0``) is a guard on the branch's outcome (``compiler.scalars``);
- every other read (a flag, a name, a user optimizer's number) is a guard on the value read:
  a changed value records the step again. A user's update may hand a number to code that
  reads it without a trace (``math.sqrt(lr)``): only a value guard keeps that exact.

A hyperparameter the step never reads guards nothing. ``read_live`` is the recorder's side
of ``optim.optimizer._get_value`` (a state tensor's one number, a step count, read live).
"""

from __future__ import annotations

from typing import Any, Iterator

from arraygrad.compiler import scalars
from arraygrad.compiler.pre_reads import pre_getter
from arraygrad.compiler.python_values import trusted, value_guard
from arraygrad.compiler.scalars import LiveScalar, recording_flag
from arraygrad.compiler.traced import TracedArray, current

__all__ = ["TrackedGroup", "track", "untrack", "read_live"]

_MISSING = object()
_STRUCTURE = frozenset({"params", "param_names"})  # guarded by identity (``state.discover``)


def _value_check(group: dict[str, Any], key: Any) -> Any:
    return lambda: value_guard(group.get(key, _MISSING))


def _item_getter(group: dict[str, Any], key: Any, i: int) -> Any:
    return lambda: group[key][i]


def _key_getter(group: dict[str, Any], key: Any) -> Any:
    return lambda: group[key]


class TrackedGroup(dict[str, Any]):
    """A parameter group during a recording (see the module docstring). ``live``: its floats
    are read live (an arraygrad optimizer's group)."""

    def __init__(self, real: dict[str, Any], live: bool) -> None:
        super().__init__(real)
        self.real = real
        self.live = live

    def _guard_value(self, key: Any) -> None:
        sink = scalars.guards
        if sink is None or key in _STRUCTURE:
            return
        if key in sink.effect_keys:  # a host call may change it: not checkable up front
            if not sink.unguardable:
                sink.unguardable = (f"a Python read of param_groups[...][{key!r}] after a host "
                                    "call (a scheduler's step) that writes it, in the same step")
            return
        sink.add((id(self.real), key), _value_check(self.real, key),
                 value_guard(self.real.get(key, _MISSING)))

    def _read(self, key: Any, value: Any) -> Any:
        if not recording_flag.on or key in _STRUCTURE or current.live is None:
            return value  # (after a graph break the rest of the step runs eagerly)
        sink = scalars.guards
        if sink is not None and (id(self.real), key) in sink.written:
            return dict.__getitem__(self, key)  # what the step wrote (a replay writes it too)
        if self.live and sink is not None:
            cls = value.__class__
            pre = key not in sink.effect_keys
            if cls is float:
                return _live(value, _key_getter(self.real, key), pre)
            if (cls is tuple or cls is list) and value and all(v.__class__ is float
                                                                for v in value):
                sink.add((id(self.real), key, len), _length(self.real, key), len(value))
                return cls(_live(v, _item_getter(self.real, key, i), pre)
                           for i, v in enumerate(value))
        self._guard_value(key)
        return value

    def __getitem__(self, key: Any) -> Any:
        return self._read(key, self.real[key])

    def get(self, key: Any, default: Any = None) -> Any:
        if key not in self.real:
            self._guard_value(key)
            return default
        return self._read(key, self.real[key])

    def __contains__(self, key: object) -> bool:
        if recording_flag.on:
            self._guard_value(key)
        return key in self.real

    def _guard_all(self) -> None:
        if recording_flag.on:
            for key in self.real:
                self._guard_value(key)

    def __iter__(self) -> Iterator[Any]:
        self._guard_all()
        return iter(self.real)

    def keys(self) -> Any:
        self._guard_all()
        return self.real.keys()

    def values(self) -> Any:
        self._guard_all()
        return self.real.values()

    def items(self) -> Any:
        self._guard_all()
        return self.real.items()

    def copy(self) -> dict[str, Any]:
        self._guard_all()
        return self.real.copy()

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        sink = scalars.guards
        if sink is not None and sink.in_effect:
            sink.effect_keys.add(key)  # a scheduler's write: made again by its host call
        elif recording_flag.on and recording_flag.host_call is not None:
            # a write inside the step: made again at every replay, with the value a live one
            # has then
            self._replayed_write(key, value)
        self.real[key] = scalars.plain(value)

    def _replayed_write(self, key: Any, value: Any) -> None:
        real = self.real
        getter = value.getter if value.__class__ is LiveScalar else (lambda: value)

        def write() -> None:
            real[key] = getter()

        if scalars.guards is not None:
            scalars.guards.written.add((id(real), key))  # its reads from now on: this value
        assert recording_flag.host_call is not None
        recording_flag.host_call(write)

    def __delitem__(self, key: Any) -> None:
        if recording_flag.on and recording_flag.graph_break is not None:
            recording_flag.graph_break(f"the step deletes param_groups[...][{key!r}]")
        del self.real[key]
        super().__delitem__(key)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self.real:
            self[key] = default
        return self[key]

    def pop(self, key: Any, *default: Any) -> Any:
        if recording_flag.on and recording_flag.graph_break is not None:
            recording_flag.graph_break(f"the step pops param_groups[...][{key!r}]")
        super().pop(key, None)
        return self.real.pop(key, *default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        for k, v in dict(*args, **kwargs).items():
            self[k] = v


def _live(value: float, getter: Any, pre: bool) -> LiveScalar:
    return scalars.pre_read(value, getter) if pre else LiveScalar(value, getter)


def _length(group: dict[str, Any], key: Any) -> Any:
    return lambda: len(group[key])


def track(optimizers: list[Any]) -> list[tuple[Any, list[dict[str, Any]]]]:
    """Put a ``TrackedGroup`` in place of each group of ``optimizers``; returns what
    ``untrack`` puts back."""
    swapped = []
    for o in optimizers:
        groups = o.param_groups
        real = list(groups)
        live = trusted(o)
        groups[:] = [TrackedGroup(g, live) for g in real]
        swapped.append((o, real))
    return swapped


def untrack(swapped: list[tuple[Any, list[dict[str, Any]]]]) -> None:
    """Put the real groups back (a group the step added stays, as it is: a change a replay
    cannot redo, seen by the stamp)."""
    for o, real in swapped:
        tracked = o.param_groups
        o.param_groups[:] = real + [t for t in tracked[len(real):]
                                    if not isinstance(t, TrackedGroup)]


def read_live(t: Any) -> Any:
    """``t.item()`` for ``optim.optimizer._get_value`` while recording: a ``LiveScalar`` that
    reads the tensor again at replay. It is ``pre`` (evaluated at the start of a replay, and
    fit to guard a branch) when its value now is known from the state before the step: the
    step has not written ``t`` yet, or only by in-place arithmetic (``pre_reads``)."""
    was, recording_flag.on = recording_flag.on, False
    try:
        value = t.item()
    finally:
        recording_flag.on = was
    if value.__class__ is not float or current.live is None:
        return t.item()  # an integer count, a bool: read into Python (a guard, or a break)
    data = t._data
    rec = current.rec
    sink = scalars.guards
    if sink is not None and not sink.effects:
        if data.__class__ is not TracedArray or rec is None or data._r is not rec:
            return scalars.pre_read(value, t.item)  # no array of the program: never written
        k = data._s
        getter = t.item if k < rec.ninputs and k not in rec.written else pre_getter(rec, t, k)
        if getter is not None:
            return scalars.pre_read(value, getter)
    return LiveScalar(value, t.item)
