"""Which globals a recorded step reads: a guard on those alone.

A compiled function's globals are Python values its program may depend on
(``python_values``). A fingerprint of every global its code names would make a changed value
record the step again even when the step never reads it (a global used only on a branch not
taken). So the step's own function is recorded as a copy whose globals are a
``GlobalReads`` mapping: every read of a global goes through it (CPython reads the globals
of a function through ``__getitem__`` when they are not an exact ``dict``), and only the
names actually read become guards of the program. The copy is made only for a plain
function whose code (nested functions and comprehensions included) never assigns or deletes
a global (those writes would bypass the mapping); otherwise every global the code names is
guarded, as before. The globals of the helper functions it calls are guarded by value.
"""

from __future__ import annotations

import dis
import types
from typing import Any, Callable

from arraygrad.compiler.python_values import value_guard

__all__ = ["GlobalReads", "trackable", "tracked_copy", "checks"]

_WRITES = frozenset({"STORE_GLOBAL", "DELETE_GLOBAL"})
_MISSING = object()


class GlobalReads(dict[str, Any]):
    """A function's globals seen through ``real``: reads pass through, and are noted."""

    def __init__(self, real: dict[str, Any]) -> None:
        # (the function's builtins come from its globals' ``__builtins__``, read at C level)
        super().__init__(__builtins__=real.get("__builtins__", __builtins__))
        self.real = real
        self.reads: dict[str, Any] = {}  # name -> its value's guard when first read

    def __getitem__(self, name: str) -> Any:
        value = self.real[name]  # (a KeyError: CPython looks in the builtins next)
        if name not in self.reads:
            self.reads[name] = value
        return value

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self.real else default

    def __contains__(self, name: object) -> bool:
        return name in self.real


def _writes_globals(code: types.CodeType) -> bool:
    if any(ins.opname in _WRITES for ins in dis.get_instructions(code)):
        return True
    return any(_writes_globals(c) for c in code.co_consts if isinstance(c, types.CodeType))


def trackable(fn: Any) -> bool:
    """Whether ``fn``'s global reads can be tracked: a plain function whose code never
    writes a global."""
    return type(fn) is types.FunctionType and not _writes_globals(fn.__code__)


def tracked_copy(fn: Callable[..., Any]) -> tuple[Callable[..., Any], GlobalReads] | None:
    """A copy of plain function ``fn`` reading its globals through a ``GlobalReads``, or
    None (not ``trackable``)."""
    if not trackable(fn):
        return None
    assert isinstance(fn, types.FunctionType)
    reads = GlobalReads(fn.__globals__)
    copy = types.FunctionType(fn.__code__, reads, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    copy.__dict__.update(fn.__dict__)
    return copy, reads


def checks(reads: GlobalReads, identity_only: Callable[[Any], bool]) -> list[tuple[Any, Any]]:
    """The guards of the globals a recording read (their values, compared as ``fingerprint``
    compares them), leaving out those ``identity_only`` says the state's stamp guards (a
    module, an optimizer, a function)."""
    real = reads.real
    found = []
    for name, value in reads.reads.items():
        if identity_only(value):
            continue
        found.append((_reader(real, name), value_guard(value)))
    reads.reads.clear()
    return found


def _reader(space: dict[str, Any], name: str) -> Callable[[], Any]:
    return lambda: value_guard(space.get(name, _MISSING))
