"""The state a compiled call touches: found from its arguments, closure and globals.

As torch.compile's dynamo guards the objects its frame reaches, ``discover`` walks the
roots of a call: Tensors, Modules (their parameters and buffers), Optimizers (their
parameters and per-parameter state), LR schedulers (their optimizer), and shallow lists,
tuples and dicts of these. Each found tensor's ``.grad`` is state too. The result is a
``Found``: the tensors in a fixed order (first occurrence wins), the modules, the
optimizers, and the guard key describing them.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.autograd.grad_mode import _state as _grad_state
from arraygrad.tensor import Tensor

__all__ = ["Found", "discover", "roots_of", "Snapshot"]

_SHALLOW_LIMIT = 256  # containers bigger than this are not walked (datasets)
_SCALARS = (bool, int, float, complex, str, bytes, type(None))


def _module_cls() -> Any:
    from arraygrad.nn.modules.module import Module
    return Module


def _optimizer_cls() -> Any:
    from arraygrad.optim.optimizer import Optimizer
    return Optimizer


def _scheduler_types() -> tuple[type, ...]:
    from arraygrad.optim.lr_scheduler._base import LRScheduler
    types: list[type] = [LRScheduler]
    try:
        from arraygrad.optim.lr_scheduler._plateau import ReduceLROnPlateau
        types.append(ReduceLROnPlateau)
    except ImportError:  # pragma: no cover - the class lives elsewhere in some versions
        pass
    return tuple(types)


class Found:
    """What ``discover`` found: ``tensors`` (ordered, unique), ``modules``, ``optimizers``,
    ``key`` (hashable: the guard key) and ``hyper`` (optimizers' group hyperparameters)."""

    __slots__ = ("tensors", "modules", "optimizers", "schedulers", "key", "hyper", "_ids")

    def __init__(self) -> None:
        self.tensors: list[Tensor] = []
        self.modules: list[Any] = []
        self.optimizers: list[Any] = []
        self.schedulers: list[Any] = []
        self.key: Any = None
        self.hyper: Any = None
        self._ids: dict[int, int] = {}


def roots_of(fn: Callable[..., Any]) -> tuple[list[Any], list[Any]]:
    """``(closure cells, global names)`` of ``fn`` whose values are read at each call (a
    bound method's ``self`` is a root too: returned as a cell-like value)."""
    cells: list[Any] = []
    names: list[str] = []
    fixed = getattr(fn, "__compile_roots__", None)
    if fixed is not None:  # a wrapper naming its roots (``compile(module)``)
        return [_Const(r) for r in fixed], names
    func = getattr(fn, "__func__", fn)
    self_obj = getattr(fn, "__self__", None)
    if self_obj is not None:
        cells.append(_Const(self_obj))
    code = getattr(func, "__code__", None)
    if code is not None:
        cells.extend(func.__closure__ or ())
        names.extend(_names(code))
    elif callable(fn) and not isinstance(fn, type):
        cells.append(_Const(fn))  # a callable object (a Module): itself
    return cells, names


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


def discover(fn: Callable[..., Any], cells: list[Any], names: list[str], args: tuple[Any, ...],
             kwargs: dict[str, Any]) -> Found:
    """Walk the call's roots (args, kwargs, closure cells, globals named by the code) and
    build the guard key."""
    found = Found()
    key: list[Any] = [_grad_state.enabled, getattr(_grad_state, "inference", False)]
    module_cls, optimizer_cls = _module_cls(), _optimizer_cls()
    schedulers = _scheduler_types()
    walk = _Walker(found, key, module_cls, optimizer_cls, schedulers)
    for a in args:
        walk.visit(a, True, 1)
    for name in sorted(kwargs):
        key.append(name)
        walk.visit(kwargs[name], True, 1)
    key.append("|")
    for cell in cells:
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        walk.visit(value, False, 1)
    glob = getattr(getattr(fn, "__func__", fn), "__globals__", {})
    for name in names:
        value = glob.get(name, _MISSING)
        if value is not _MISSING and _interesting(value, module_cls, optimizer_cls, schedulers):
            key.append(name)
            walk.visit(value, False, 1)
    for opt in found.optimizers:
        walk.optimizer_key(opt)
    found.key = tuple(key)
    return found


_MISSING = object()


def _interesting(value: Any, module_cls: Any, optimizer_cls: Any, schedulers: Any) -> bool:
    cls = value.__class__
    if cls in (list, tuple, dict):
        return True
    return isinstance(value, (Tensor, module_cls, optimizer_cls) + schedulers)


class _Walker:
    """One discovery's traversal (see ``discover``)."""

    def __init__(self, found: Found, key: list[Any], module_cls: Any, optimizer_cls: Any,
                 schedulers: tuple[type, ...]) -> None:
        self.found = found
        self.key = key
        self.module_cls = module_cls
        self.optimizer_cls = optimizer_cls
        self.schedulers = schedulers
        self.seen: set[int] = set()

    def tensor(self, t: Tensor, arg: bool) -> None:
        found, key = self.found, self.key
        i = found._ids.get(id(t))
        if i is not None:
            key.append(("dup", i))
            return
        found._ids[id(t)] = len(found.tensors)
        found.tensors.append(t)
        data = t._data
        g = t._grad
        key.append((None if arg else id(t), data.shape, data.dtype, t._backend, t._requires_grad,
                    t._grad_fn is not None, None if g is None else (g._data.shape, g._data.dtype)))
        if g is not None:
            self.tensor(g, True)  # a gradient's identity is not guarded: backward may replace it

    def visit(self, value: Any, arg: bool, depth: int) -> None:
        cls = value.__class__
        if isinstance(value, Tensor):
            self.tensor(value, arg)
            return
        if cls in _SCALARS:
            if arg:
                self.key.append((cls, value))
            return
        if id(value) in self.seen:
            return
        if isinstance(value, self.module_cls):
            self.seen.add(id(value))
            self.found.modules.append(value)
            for m in value.modules():
                if m is not value:
                    self.seen.add(id(m))
                    self.found.modules.append(m)
                self.key.append(m.training)
            for p in value.parameters():
                self.tensor(p, False)
            for b in value.buffers():
                self.tensor(b, False)
            return
        if isinstance(value, self.optimizer_cls):
            self.seen.add(id(value))
            self.found.optimizers.append(value)
            return
        if isinstance(value, self.schedulers):
            self.seen.add(id(value))
            self.found.schedulers.append(value)
            self.visit(getattr(value, "optimizer", None), False, depth)
            return
        if cls in (list, tuple) and depth > 0 and len(value) <= _SHALLOW_LIMIT:
            self.seen.add(id(value))
            self.key.append((cls, len(value)))
            for v in value:
                self.visit(v, arg, depth - 1)
            return
        if cls is dict and depth > 0 and len(value) <= _SHALLOW_LIMIT:
            self.seen.add(id(value))
            for k, v in value.items():
                if isinstance(k, _SCALARS):
                    self.key.append(k)
                    self.visit(v, arg, depth - 1)
            return
        if arg:
            self.key.append((cls, id(value)))  # another object: its identity

    def optimizer_key(self, opt: Any) -> None:
        """An optimizer's part of the key: its groups' parameters (identity and order) and
        each parameter's state (keys, tensors walked); its hyperparameters go to ``hyper``."""
        key = self.key
        hyper: list[Any] = []
        for group in opt.param_groups:
            params = group["params"]
            key.append(tuple(id(p) for p in params))
            for p in params:
                self.tensor(p, False)
            hyper.append(tuple((k, v) for k, v in group.items()
                               if k != "params" and isinstance(v, _SCALARS + (tuple,))))
        for group in opt.param_groups:
            for p in group["params"]:
                st = opt.state.get(p)
                if not st:
                    key.append(None)
                    continue
                key.append(tuple(st))
                for k, v in st.items():
                    if isinstance(v, Tensor):
                        self.tensor(v, False)
                    else:
                        key.append(v if isinstance(v, _SCALARS) else type(v))
        prev = self.found.hyper
        self.found.hyper = (prev or ()) + (tuple(hyper),)


class Snapshot:
    """The touched state before a recording: enough to put everything back when the recording
    must be undone (``fullgraph=True`` raising, a recording that failed and is rerun eagerly).

    Arrays are copied and written back in place (views of them stay views); tensors' slots,
    grads and version counters, optimizers' state dicts and groups, modules' training flags,
    schedulers' attributes and the default generators are restored too.
    """

    def __init__(self, found: Found) -> None:
        from arraygrad.random import _default

        self.tensors = [(t, t._data, t._backend, t._grad, t._requires_grad, t._grad_fn,
                         None if t._vc is None else (t._vc, t._vc[0]),
                         t._backend.xp.asarray(t._data, copy=True))
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
            data[...] = copy
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
