"""The state a compiled call touches: found from its arguments, closure and globals.

As torch.compile's dynamo guards the objects its frame reaches, ``discover`` walks the
roots of a call: Tensors, Modules (their parameters and buffers), Optimizers (their
parameters and per-parameter state), LR schedulers (their optimizer), and shallow lists,
tuples and dicts of these. Each found tensor's ``.grad`` is state too. The result is a
``Found``: the tensors in a fixed order (first occurrence wins), the modules, the
optimizers, and the guard key describing them.
"""

from __future__ import annotations

import types
from typing import Any, Callable

from arraygrad.autograd.grad_mode import _state as _grad_state
from arraygrad.compiler.global_reads import trackable
from arraygrad.compiler.python_values import fingerprint
from arraygrad.tensor import Tensor

__all__ = ["Found", "Layout", "discover", "layout_of", "roots_of", "Snapshot", "state_after"]

_SHALLOW_LIMIT = 256  # containers bigger than this are not walked (datasets)
_SCALARS = (bool, int, float, complex, str, bytes, type(None))
# ``isinstance(v, Tensor)`` as a builtin: ``filter`` runs it over a module's ``__dict__`` (some
# twenty values per module, on every walk) without a Python-level call per value
_is_tensor = Tensor.__instancecheck__


class Found:
    """What ``discover`` found: ``tensors`` (ordered, unique, each followed by its ``.grad``),
    ``modules``, ``optimizers``, ``schedulers`` and ``key`` (hashable: the guard key)."""

    __slots__ = ("tensors", "modules", "optimizers", "schedulers", "key", "nargs",
                 "layout", "values", "_ids")

    def __init__(self) -> None:
        self.tensors: list[Tensor] = []
        self.modules: list[Any] = []
        self.optimizers: list[Any] = []
        self.schedulers: list[Any] = []
        self.key: Any = None
        self.nargs = 0  # the first ``nargs`` tensors come from the call's arguments
        self.layout: Layout | None = None
        self.values: Any = None  # the Python values the step may read (``python_values``)
        self._ids: dict[int, int] = {}  # the arguments' tensors' places in ``tensors``


def roots_of(fn: Callable[..., Any]) -> list[Any]:
    """The cell-like roots of ``fn`` (each with a ``cell_contents`` read at every call): its
    closure cells, the globals its code names, a bound method's ``self``; and, through the
    functions found there (helpers, other compiled functions), theirs, a few levels deep."""
    cells: list[Any] = []
    _collect(fn, cells, set(), 3, trackable(fn))
    return cells


def _collect(fn: Any, cells: list[Any], seen: set[int], depth: int,
             tracked: bool = False) -> None:
    if id(fn) in seen or depth < 0:
        return
    seen.add(id(fn))
    fixed = getattr(fn, "__compile_roots__", None)
    if fixed is not None:  # a wrapper naming its roots (``compile(module)``)
        cells.extend(_Const(r) for r in fixed)
        return
    inner = getattr(fn, "__wrapped__", None)  # a compiled function, a functools.wraps wrapper
    if inner is not None and inner is not fn:
        _collect(inner, cells, seen, depth)  # (its reads are not the tracked copy's)
        if getattr(getattr(fn, "__func__", fn), "__code__", None) is None:
            return  # (a compiled function: nothing of its own)
        # a wrapper function's own code reads its own globals and cells too
    func = getattr(fn, "__func__", fn)
    self_obj = getattr(fn, "__self__", None)
    if self_obj is not None and not isinstance(self_obj, types.ModuleType):
        cells.append(_Const(self_obj))
    code = getattr(func, "__code__", None)
    if code is None:
        if callable(fn) and not isinstance(fn, type):
            cells.append(_Const(fn))  # a callable object (a Module): itself
        return
    new: list[Any] = list(func.__closure__ or ())
    # default arguments are state the body reads as its own (``def step(x, model=model)``)
    new.extend(_Const(v) for v in (func.__defaults__ or ()))
    new.extend(_Const(v) for v in (getattr(func, "__kwdefaults__", None) or {}).values())
    glob = getattr(func, "__globals__", {})
    # the names the code reads that are globals (the others are attributes and builtins)
    new.extend(_Global(glob, n, tracked) for n in _names(code) if n in glob)
    cells.extend(new)
    for cell in new:
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if callable(value) and (hasattr(value, "__code__") or hasattr(value, "__wrapped__")) \
                and not _library(value):
            _collect(value, cells, seen, depth - 1)


_LIBRARIES = ("arraygrad", "numpy", "array_api_compat", "cupy", "torch", "builtins")


def _library(fn: Any) -> bool:
    """A library's function: its globals are no state of the user's step."""
    module = getattr(fn, "__module__", None) or ""
    if module.startswith("arraygrad.compiler"):
        # a compiled function: the user's function it wraps is walked; the compiler's own
        # functions (``scalars.live``...) are a library's
        return getattr(fn, "__wrapped__", None) is None
    return module.split(".")[0] in _LIBRARIES


class _Global:
    """A global variable as a cell-like root: ``cell_contents`` reads it now. ``tracked``:
    a global of the compiled function itself, whose reads a recording notes
    (``global_reads``): its value guards a program only where the step read it."""

    __slots__ = ("space", "name", "tracked")

    def __init__(self, space: dict[str, Any], name: str, tracked: bool = False) -> None:
        self.space = space
        self.name = name
        self.tracked = tracked

    @property
    def cell_contents(self) -> Any:
        """The variable's value (None once deleted)."""
        return self.space.get(self.name)


def _names(code: Any) -> list[str]:
    found = list(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):  # nested functions and comprehensions read globals too
            found.extend(_names(const))
    return list(dict.fromkeys(found))


class _Const:
    """A cell-like holder of a fixed root."""

    __slots__ = ("cell_contents",)

    def __init__(self, value: Any) -> None:
        self.cell_contents = value


class _Classes:
    """The classes discovery recognizes, imported once (``nn`` and ``optim`` load late)."""

    module: Any = None
    optimizer: Any = None
    schedulers: tuple[type, ...] = ()

    @classmethod
    def load(cls) -> None:
        from arraygrad.nn.modules.module import Module
        from arraygrad.optim.lr_scheduler._base import LRScheduler
        from arraygrad.optim.optimizer import Optimizer
        found: list[type] = [LRScheduler]
        try:
            from arraygrad.optim.lr_scheduler._plateau import ReduceLROnPlateau
            found.append(ReduceLROnPlateau)
        except ImportError:  # pragma: no cover - the class lives elsewhere in some versions
            pass
        cls.module, cls.optimizer, cls.schedulers = Module, Optimizer, tuple(found)


class Layout:
    """The state reachable from a function's closure and globals: its tensors in order
    (``base``), modules, optimizers and schedulers, and the ``stamp`` (identities of
    everything the walk went through) that says when it must be walked again."""

    __slots__ = ("base", "modules", "optimizers", "schedulers", "roots", "stamp", "watch",
                 "empty", "cells", "unwatched", "optimizer_ids", "module_values", "value_roots")

    def __init__(self) -> None:
        self.base: list[Tensor] = []
        self.modules: list[Any] = []
        self.optimizers: list[Any] = []
        self.schedulers: list[Any] = []
        self.roots: list[Any] = []
        self.stamp: Any = None
        # the containers the walk went through: the non-empty ones with their contents'
        # identities then, and the empty ones (most of a model's modules' dicts)
        self.watch: list[Any] = []
        self.empty: list[Any] = []
        self.cells: list[Any] = []  # the roots it was walked from
        # what the walk read that the stamp does not watch: the identities of the modules'
        # plain tensor attributes and of the schedulers' optimizers, in walk order
        self.unwatched: list[int] = []
        self.optimizer_ids: list[int] = []
        # the modules' part of ``python_values.fingerprint`` and the epoch it was read at
        self.module_values: Any = None
        self.value_roots: list[Any] | None = None  # the roots that fingerprint walks

    def current(self, cells: list[Any]) -> bool:
        """Whether the walk would find the same objects now (the roots, and the contents of
        every container it went through, by identity)."""
        try:
            values = [c.cell_contents for c in cells]
        except ValueError:  # an empty cell (None for it)
            values = _root_values(cells)
        if _root_ids(values) != self.roots:
            return False
        if any(self.empty):  # (one C-level pass over the empty ones)
            return False
        for c, known in self.watch:
            if len(c) != len(known):
                return False
            if tuple(map(id, c if c.__class__ is list else c.values())) != known:
                return False
        return True

    def unwatched_same(self) -> bool:
        """Whether what the stamp does not watch is as the walk found it: the modules' plain
        tensor attributes and the schedulers' optimizers (between calls a rebound attribute
        waits for the next walk, but a recording must see what its call rebound). With
        ``current``: a walk now would give this very layout."""
        return (_attribute_ids(self.modules) == self.unwatched
                and _optimizer_ids(self.schedulers) == self.optimizer_ids)


def _root_ids(values: list[Any]) -> list[int]:
    """The roots' identities, -2 for a number, a string or None: no state is in it, and its
    value is guarded where it is read (``python_values``, ``global_reads``), so a rebinding
    to another number is no new layout."""
    return [-2 if v.__class__ in _SCALARS else id(v) for v in values]


def _root_values(cells: list[Any]) -> list[Any]:
    values: list[Any] = []
    for cell in cells:
        try:
            values.append(cell.cell_contents)
        except ValueError:  # an empty cell
            values.append(None)
    return values


def _watch(layout: Layout, roots: list[Any]) -> None:
    """The containers the walk went through, their contents' identities, and the stamp
    (the roots' identities, then each container's contents' and a -1)."""
    watch: list[Any] = [v for v in roots if v.__class__ in (list, dict)
                        and len(v) <= _SHALLOW_LIMIT]
    for m in layout.modules:
        watch += (m._parameters, m._buffers, m._modules)
    for o in layout.optimizers:
        # ``load_state_dict`` rebinds ``state`` and ``param_groups``; a user's step may
        # rebind an attribute of its own
        watch.append(o.__dict__)
        watch.append(o.param_groups)  # groups added or replaced
        watch.extend(group["params"] for group in o.param_groups)
        watch.append(o.state)
        watch.extend(o.state.values())
    layout.roots = _root_ids(roots)
    ids = list(layout.roots)
    full = layout.watch
    empty = layout.empty
    for c in watch:
        if c:
            known = tuple(map(id, c if c.__class__ is list else c.values()))
            full.append((c, known))
            ids.extend(known)
        else:
            empty.append(c)
        ids.append(-1)
    layout.stamp = tuple(ids)


def layout_of(cells: list[Any]) -> Layout:
    """Walk the roots (``roots_of``): the state reachable from them."""
    if _Classes.module is None:
        _Classes.load()
    layout = Layout()
    layout.cells = cells
    walk = _Walker(layout)
    roots = _root_values(cells)
    for value in roots:
        if value is not None:
            walk.visit(value, 1)  # (anything else a root holds, a function, is passed over)
    for opt in layout.optimizers:
        for group in opt.param_groups:
            for p in group["params"]:
                walk.tensor(p)
            for p in group["params"]:
                for v in (opt.state.get(p) or {}).values():
                    if isinstance(v, Tensor):
                        walk.tensor(v)
    _watch(layout, roots)
    layout.unwatched = walk.attrs
    layout.optimizer_ids = _optimizer_ids(layout.schedulers)
    return layout


def _attribute_ids(modules: list[Any]) -> list[int]:
    """The identities of the modules' plain tensor attributes, in order."""
    return [id(v) for m in modules for v in filter(_is_tensor, m.__dict__.values())]


def _optimizer_ids(schedulers: list[Any]) -> list[int]:
    """The identities of the schedulers' optimizers."""
    return [id(getattr(s, "optimizer", None)) for s in schedulers] if schedulers else []


class _Walker:
    """One layout walk (see ``layout_of``)."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.seen: set[int] = set()
        self.attrs: list[int] = []  # the plain tensor attributes' identities, in walk order

    def tensor(self, t: Tensor) -> None:
        if id(t) not in self.seen:
            self.seen.add(id(t))
            self.layout.base.append(t)

    def visit(self, value: Any, depth: int) -> None:
        if isinstance(value, Tensor):
            self.tensor(value)
            return
        if id(value) in self.seen or value.__class__ in _SCALARS:
            return
        layout = self.layout
        if isinstance(value, _Classes.module):
            modules = _modules_of(value)  # one walk serves both loops
            new = [m for m in modules if id(m) not in self.seen]
            for m in new:
                self.seen.add(id(m))
                layout.modules.append(m)
            cls = type(value)
            if cls.parameters is _Classes.module.parameters and \
                    cls.buffers is _Classes.module.buffers:
                # what ``parameters()`` and ``buffers()`` list, without walking the modules
                # twice more (``tensor`` drops a shared one, as they do)
                for m in modules:
                    for p in m._parameters.values():
                        if p is not None:
                            self.tensor(p)
                for m in modules:
                    for b in m._buffers.values():
                        if b is not None:
                            self.tensor(b)
            else:  # a module listing its own
                for p in value.parameters():
                    self.tensor(p)
                for b in value.buffers():
                    self.tensor(b)
            # plain tensor attributes (an RNN's kept hidden state; a module met before had
            # its own listed then)
            for m in new:
                for v in filter(_is_tensor, m.__dict__.values()):
                    self.attrs.append(id(v))
                    self.tensor(v)
        elif isinstance(value, _Classes.optimizer):
            self.seen.add(id(value))
            layout.optimizers.append(value)
        elif isinstance(value, _Classes.schedulers):
            self.seen.add(id(value))
            layout.schedulers.append(value)
            self.visit(getattr(value, "optimizer", None), depth)
        elif value.__class__ in (list, tuple) and depth > 0 and len(value) <= _SHALLOW_LIMIT:
            self.seen.add(id(value))
            for v in value:
                if isinstance(v, Tensor):  # (most items: no call to ``visit`` for them)
                    self.tensor(v)
                else:
                    self.visit(v, depth - 1)
        elif value.__class__ is dict and depth > 0 and len(value) <= _SHALLOW_LIMIT:
            self.seen.add(id(value))
            for v in value.values():
                self.visit(v, depth - 1)


def _modules_of(root: Any) -> list[Any]:
    """``list(root.modules())``: the module and every sub-module, depth first, each once.
    Walked here with a stack (``named_modules`` is a recursive generator that builds a
    dotted name per module); a module class with its own ``modules`` or ``named_modules``
    is asked itself."""
    base = _Classes.module
    found: list[Any] = []
    seen: set[int] = set()
    todo = [root]
    while todo:
        m = todo.pop()
        if id(m) in seen:
            continue
        cls = type(m)
        if cls.named_modules is not base.named_modules or cls.modules is not base.modules:
            return list(root.modules())
        seen.add(id(m))
        found.append(m)
        children = m._modules
        if children:
            todo.extend(c for c in reversed(children.values()) if c is not None)
    return found


def discover(layout: Layout, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Found:
    """The call's state and guard key: the arguments' tensors (metadata guarded, identity
    not) and the layout's (identity guarded through the stamp), each with its ``.grad``;
    grad mode, modules' ``training``, which state optimizers hold."""
    found = Found()
    key: list[Any] = [_grad_state.enabled, _grad_state.inference, layout.stamp]
    for a in args:
        _arg(a, found, key, 1)
    if kwargs:
        for name in sorted(kwargs):
            key.append(name)
            _arg(kwargs[name], found, key, 1)
    key.append("|")
    found.nargs = len(found.tensors)
    ids = found._ids  # the arguments' tensors (the layout's are distinct already)
    tensors = found.tensors
    for t in layout.base:
        if ids:
            i = ids.get(id(t))
            if i is not None:  # passed as an argument too: keyed by its place there
                key.append(i)
                continue
        tensors.append(t)
        data = t._data
        g = t._grad
        if g is None:
            key.append((data.shape, data.dtype, t._requires_grad, t._grad_fn is not None))
        else:
            tensors.append(g)
            gd = g._data
            key.append((data.shape, data.dtype, t._requires_grad, t._grad_fn is not None,
                        gd.shape, gd.dtype))
    for m in layout.modules:
        key.append(m.training)
    for opt in layout.optimizers:
        # which state each parameter holds (a first step creates it); the hyperparameters
        # and the state's numbers the step reads guard its program (``group_reads``)
        get = opt.state.get
        for group in opt.param_groups:
            for p in group["params"]:
                st = get(p)
                key.append(None if st is None else tuple(st))
    found.values = fingerprint(layout, args, kwargs)
    key.append(found.values)
    found.layout = layout
    found.modules = layout.modules
    found.optimizers = layout.optimizers
    found.schedulers = layout.schedulers
    found.key = tuple(key)
    return found


def state_after(layout: Layout, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Found:
    """``discover``'s state without its guard key (``key`` stays None): the state
    a recorded call left, which ``Session.bind`` compares with the state before and no guard
    looks up. (The key's entries are most of ``discover``'s work; ``discover`` itself, run
    at every replay, keeps no flag to test.)"""
    found = Found()
    scratch: list[Any] = []  # the arguments' key entries, dropped
    for a in args:
        _arg(a, found, scratch, 1)
    for name in sorted(kwargs):
        _arg(kwargs[name], found, scratch, 1)
    found.nargs = len(found.tensors)
    ids = found._ids  # the arguments' tensors (the layout's are distinct already)
    tensors = found.tensors
    for t in layout.base:
        if not ids or id(t) not in ids:
            tensors.append(t)
            if t._grad is not None:
                tensors.append(t._grad)
    found.layout = layout
    found.modules = layout.modules
    found.optimizers = layout.optimizers
    found.schedulers = layout.schedulers
    return found


def _arg(value: Any, found: Found, key: list[Any], depth: int) -> None:
    if isinstance(value, Tensor):
        i = found._ids.get(id(value))
        if i is not None:
            key.append(("dup", i))
            return
        found._ids[id(value)] = len(found.tensors)
        found.tensors.append(value)
        data = value._data
        g = value._grad
        key.append((data.shape, data.dtype, value._backend, value._requires_grad,
                    value._grad_fn is not None,
                    None if g is None else (g._data.shape, g._data.dtype)))
        if g is not None:
            found.tensors.append(g)
        return
    cls = value.__class__
    if cls in _SCALARS:
        key.append((cls, value))
    elif cls in (list, tuple) and depth > 0:
        key.append((cls, len(value)))
        for v in value:
            _arg(v, found, key, depth - 1)
    elif cls is dict and depth > 0:
        for k, v in value.items():
            key.append(k)
            _arg(v, found, key, depth - 1)
    else:
        key.append((cls, id(value)))  # another object (a module...): its identity


class Snapshot:
    """The touched state before a recording: enough to put everything back when the recording
    must be undone (``fullgraph=True`` raising, a recording that failed and is rerun eagerly).

    Arrays are copied and written back in place (views of them stay views); tensors' slots,
    grads and version counters, optimizers' state dicts and groups, modules' training flags,
    schedulers' attributes and the default generators are restored too.
    """

    def __init__(self, found: Found) -> None:
        from arraygrad.random import _default

        # (``astype(copy=True)``: the standard's copy, one wrapper fewer than ``asarray``'s on
        # the NumPy backend)
        self.tensors = [(t, t._data, t._backend, t._grad, t._requires_grad, t._grad_fn,
                         None if t._vc is None else (t._vc, t._vc[0]),
                         t._backend.xp.astype(t._data, t._data.dtype, copy=True))
                        for t in found.tensors]
        self.optimizers = [(o, {p: dict(s) for p, s in o.state.items()},
                            [dict(g) for g in o.param_groups], dict(o.__dict__))
                           for o in found.optimizers]
        self.schedulers = [(s, dict(s.__dict__)) for s in found.schedulers]
        self.modules = [(m, m.training) for m in found.modules]
        self.generators = [(g, g._snapshot()) for g in list(_default.values())]

    def restore(self) -> None:
        """Put the state back as it was when the snapshot was taken."""
        for t, data, backend, grad, rg, fn, vc, copy in self.tensors:
            data = backend.write(data, Ellipsis, copy)  # (a new array where immutable)
            t._data, t._backend, t._grad, t._requires_grad, t._grad_fn = data, backend, grad, rg, fn
            if vc is not None:
                t._vc = vc[0]
                vc[0][0] = vc[1]
        for o, state, groups, attrs in self.optimizers:
            o.state.clear()
            o.state.update(state)
            for g, saved in zip(o.param_groups, groups):
                g.clear()
                g.update(saved)
            o.__dict__.update(attrs)
        for s, attrs in self.schedulers:
            s.__dict__.clear()
            s.__dict__.update(attrs)
        for m, training in self.modules:
            m.training = training
        for g, snap in self.generators:
            g._restore(snap)
