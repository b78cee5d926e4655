"""The Python values a compiled step may read, as one hashable fingerprint (a guard).

A recording bakes every Python value the step reads into the program: a plain object's
attribute (``cfg.scale``), a value two containers deep (``cfg[0]["mul"]``), a module's
non-tensor attribute (``Dropout.p``, ``LeakyReLU.negative_slope``, ``BatchNorm.momentum``),
a user optimizer's ``group["lr"]`` or its Python counters, the default dtype. Which of them
the step actually reads is not known (a read of ``cfg.scale`` leaves no trace), so the guard
is a fingerprint of all of them that the step can reach, compared by value:

- the global switches (the default dtype, the default device);
- every module's attributes (scalars by value, other objects walked);
- the roots' (closure cells, globals the code names, default arguments, a bound method's
  ``self``) and the arguments' plain objects and containers, walked to any depth;
- every optimizer's per-parameter state's Python values (a step count kept as an ``int``)
  and its attributes (its groups' hyperparameters are guarded by the reads its step makes:
  ``group_reads``).

A changed value is a guard miss (the call records again); a step that changes one of them
itself (a counter it increments) is seen by comparing the fingerprint after the recording
with the one before, and that recording is not replayed. Walks are bounded (``_BUDGET``
values per call, containers of at most ``_ITEMS`` items walked item by item): past the
bound an object counts by identity only.
"""

from __future__ import annotations

import types
from collections import OrderedDict, defaultdict
from typing import Any

from arraygrad import dtypes as _dtypes
from arraygrad.autograd.hooks import HookDict
from arraygrad.device import explicit_default_device
from arraygrad.tensor import Tensor
from arraygrad.transform_state import compile_epochs

__all__ = ["fingerprint", "trusted", "value_guard", "identity_value"]

# values compared by value (hashable, immutable, no items of their own to walk)
_VALUE = frozenset({bool, int, float, complex, str, bytes, type(None)})
# objects compared by identity and never walked: code, classes, Python modules, builtins
_OPAQUE = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, types.ModuleType,
           type, types.CodeType)
_LIBRARIES = ("arraygrad", "numpy", "array_api_compat", "cupy", "torch", "builtins",
              "functools", "collections", "logging", "threading", "typing")
# containers without attributes of their own: empty, one is fully described by its class
_PLAIN_CONTAINERS = frozenset({tuple, list, set, frozenset, dict, HookDict, OrderedDict,
                               defaultdict})
_BUDGET = 4096  # values one fingerprint walks (beyond it: identities only)
_ITEMS = 256  # a bigger container (a dataset) counts by identity and length
_trusted: dict[type, bool] = {}


def _own(cls: type, name: str) -> bool:
    """Whether ``cls.<name>`` is arraygrad's (defined in ``arraygrad.optim``)."""
    fn = getattr(cls, name, None)
    fn = getattr(fn, "__wrapped__", fn)  # ``step`` is wrapped with the step hooks
    return (getattr(fn, "__module__", None) or "").startswith("arraygrad.optim")


def trusted(optimizer: Any) -> bool:
    """Whether ``optimizer``'s update is arraygrad's own (its ``step`` and ``_update_group``
    are defined in ``arraygrad.optim``): it hands its hyperparameters only to arithmetic and
    ops, so the recorder reads them live (``group_reads``). A user's optimizer (one
    overriding ``step``) is guarded by value."""
    cls = type(optimizer)
    known = _trusted.get(cls)
    if known is None:
        known = _trusted[cls] = all(_own(cls, name) for name in ("step", "_update_group"))
    return known


def _is_state(v: Any) -> bool:
    """A module, an optimizer or a scheduler (by their attributes: the compiler sits below
    ``nn`` and ``optim``)."""
    d = getattr(v, "__dict__", None)
    return d is not None and ("_parameters" in d or "param_groups" in d or "optimizer" in d
                              and "last_epoch" in d)


def _identity_only(cell: Any) -> bool:
    """Whether a root holds what the walk would record by identity alone (a module, an
    optimizer, a function, a Python module): the layout's stamp guards that identity."""
    try:
        v = cell.cell_contents
    except ValueError:
        return False
    return identity_value(v)


def identity_value(v: Any) -> bool:
    """Whether ``v`` is state guarded by identity (a tensor, a module, an optimizer, a
    function, a Python module), not by value."""
    return isinstance(v, (Tensor, _OPAQUE)) or _is_state(v)


class _Walk:
    """One fingerprint: ``out`` collects the values in walk order."""

    __slots__ = ("out", "seen", "budget", "deep")

    def __init__(self) -> None:
        self.out: list[Any] = []
        self.seen: set[int] = set()
        self.budget = _BUDGET
        self.deep = False  # walked a container or an object (it may change in place)

    def value(self, v: Any) -> None:
        cls = v.__class__
        out = self.out
        if cls in _VALUE:
            # with its type: ``2 == 2.0 == True`` in a key, not in an op (and ``-0.0``'s sign)
            out.append((cls, v, str(v)) if cls is float and not v else (cls, v))
            return
        if cls in _PLAIN_CONTAINERS and not v:
            # an empty container (an optimizer's six hook dicts, mostly): its class, nothing
            # else to walk or to alias; one with items is walked below
            out.append((cls, 0))
            return
        if id(v) in self.seen:
            out.append(("seen", id(v)))
            return
        self.seen.add(id(v))
        self.budget -= 1
        if self.budget < 0 or isinstance(v, (Tensor, _OPAQUE)) or _is_state(v):
            # tensors, modules and optimizers are state (``discover``): by identity here
            out.append((cls, id(v)))
            return
        self.deep = True
        if cls is tuple or cls is list or cls is set or cls is frozenset:
            out.append((cls, len(v)))
            if len(v) > _ITEMS:
                out.append(id(v))
                return
            for item in v:
                self.value(item)
            return
        if isinstance(v, dict):
            out.append((cls, len(v)))
            if len(v) > _ITEMS:
                out.append(id(v))
                return
            value = self.value
            for k, item in v.items():
                # plain keys and numbers appended here, as ``value`` would (a hyperparameter
                # dict is all of those: one call for it, not one per item, per compiled call)
                c = k.__class__
                if c is str:
                    out.append((c, k))
                else:
                    value(k)
                c = item.__class__
                if c in _VALUE and (item or c is not float):
                    out.append((c, item))
                else:
                    value(item)
            return
        if isinstance(v, _dtypes.dtype):
            out.append(v)
            return
        attrs = getattr(v, "__dict__", None)
        module = getattr(cls, "__module__", "") or ""
        if attrs is None or module.split(".")[0] in _LIBRARIES:
            out.append((cls, id(v)))  # a library object (a device, a dtype): its identity
            return
        out.append(cls)  # a plain object: its attributes, by name
        self.value(attrs)

    def argument(self, v: Any) -> None:
        """An argument: its tensors, and those of a list, tuple or dict it is, are guarded by
        their metadata (``discover``), not their identity; anything else is walked."""
        if isinstance(v, Tensor):
            return
        cls = v.__class__
        if cls is tuple or cls is list:
            self.out.append((cls, len(v)))
            for item in v:
                if not isinstance(item, Tensor):
                    self.value(item)
        elif cls is dict:
            self.out.append((cls, len(v)))
            for k, item in v.items():
                self.value(k)
                if not isinstance(item, Tensor):
                    self.value(item)
        else:
            self.value(v)

    def module(self, m: Any) -> None:
        """A module's attributes besides its bookkeeping (its ``_parameters``, ``_modules``,
        hook dicts...: private containers, which the key and the hook checks cover)."""
        out = self.out
        value = self.value
        for k, v in m.__dict__.items():
            cls = v.__class__
            if cls in _VALUE:
                value(v)
            elif not (k[:1] == "_" and isinstance(v, (dict, set))) and not isinstance(v, Tensor):
                out.append(k)
                value(v)

    def optimizer(self, o: Any) -> None:
        """An optimizer: its state's Python values and its attributes, by value (tensors by
        identity). Its groups' hyperparameters are guarded by the reads its step makes
        (``group_reads``)."""
        for st in o.state.values():
            for k, v in st.items():
                if not isinstance(v, Tensor):
                    self.value(k)
                    self.value(v)
        for k, v in o.__dict__.items():
            if k not in ("state", "param_groups"):
                self.value(k)
                self.value(v)


def value_guard(v: Any) -> tuple[Any, ...]:
    """One value's fingerprint (a number with its type, a container by its items, an object
    by its attributes or identity), as ``fingerprint`` walks it."""
    walk = _Walk()
    walk.value(v)
    return tuple(walk.out)


def fingerprint(layout: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
                full: bool = False) -> tuple[Any, ...]:
    """The values of the Python state a step may read (see the module docstring): the
    layout's (``state.Layout``: its roots, modules and optimizers) and the arguments'.

    The modules' part is kept on the layout (``module_values``) while no module attribute
    was assigned since (``transform_state.compile_epochs``) and it walked no object that
    could change behind the modules' backs. The compiled function's own globals are left
    out (each program guards those its recording read: ``global_reads``) unless ``full``."""
    walk = _Walk()
    out = walk.out
    out.append(_dtypes.get_default_dtype())
    out.append(explicit_default_device())  # (factories in the step allocate there)
    epoch = compile_epochs.module_attrs
    kept = layout.module_values
    if kept is not None and kept[0] == epoch:
        out.extend(kept[1])
    else:
        start = len(out)
        for m in layout.modules:
            walk.module(m)
        if not walk.deep:
            layout.module_values = (epoch, tuple(out[start:]))
    for o in layout.optimizers:
        walk.optimizer(o)
    roots = layout.value_roots
    if roots is None:  # (once per layout: a root rebound is a new layout)
        # (not the compiled function's own globals: guarded where read, ``global_reads``)
        roots = layout.value_roots = [c for c in layout.cells if not _identity_only(c)
                                      and not getattr(c, "tracked", False)]
    if full:  # every root (whether the step changed one of them)
        roots = [c for c in layout.cells if not _identity_only(c)]
    for cell in roots:
        try:
            v = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        walk.value(v)
    for a in args:
        walk.argument(a)
    if kwargs:
        for k in sorted(kwargs):
            walk.argument(kwargs[k])
    return tuple(out)
