"""``CompiledFunction``: guards, the bounded cache, recording, graph breaks and replay.

A call computes the guard key (``state.discover``). A cached program for the key is
replayed; otherwise the call is recorded (it runs eagerly while its array work is
written down) and, when everything it did can be replayed, its program is cached.
"""

from __future__ import annotations

import gc
import logging
import os
import sys
import warnings
from typing import Any, Callable

from arraygrad.compiler import capture as _capture, program as _program
from arraygrad.compiler.recording_backend import RecordingBackend, recording_backend
from arraygrad.compiler.scalars import recording_flag
from arraygrad.compiler.state import Found, Layout, Snapshot, discover, layout_of, roots_of
from arraygrad.compiler.traced import (
    GraphBreak, Recording, TracedArray, Unsupported, current,
)
from arraygrad.tensor import Tensor, wrap

__all__ = ["CompiledFunction", "cache_size_limit", "log"]

cache_size_limit = 8
"""Programs kept per compiled function (``torch._dynamo.config.cache_size_limit``'s 8);
past it the function runs eagerly, with a warning."""

log = logging.getLogger("arraygrad.compile")


def _recompiles_logged() -> bool:
    return "recompiles" in os.environ.get("ARRAYGRAD_LOGS", "").replace(" ", "").split(",")


class _Entry:
    """A cached key: its program (None: this key runs eagerly) and the optimizers'
    hyperparameters it baked in (None: it reads them live)."""

    __slots__ = ("program", "hyper", "source", "reason")

    def __init__(self, program: Callable[..., Any] | None, hyper: Any, source: str = "",
                 reason: str = "") -> None:
        self.program = program
        self.hyper = hyper
        self.source = source
        self.reason = reason


class CompiledFunction:
    """``fn`` recorded once per guard key and replayed (see ``arraygrad.compile``).

    ``stats``: counters (``records``, ``replays``, ``eager``) for tests and tuning.
    """

    def __init__(self, fn: Callable[..., Any], *, fullgraph: bool = False, dynamic: bool | None = False) -> None:
        self._fn = fn
        self._fullgraph = fullgraph
        self._dynamic = dynamic
        self._cells, self._names = roots_of(fn)
        self._layout: Layout | None = None
        self._cache: dict[Any, list[_Entry]] = {}
        self._entries = 0
        self._eager: str | None = None
        self._unreplayable = 0
        self.stats = {"records": 0, "replays": 0, "eager": 0}
        self.__wrapped__ = fn
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)

    def __repr__(self) -> str:
        return f"<compiled {self.__name__}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._eager is not None or current.rec is not None or recording_flag.on:
            # broken, or called inside another recording (its work is recorded there)
            self.stats["eager"] += 1
            return self._fn(*args, **kwargs)
        found = self._discover(args, kwargs)
        entries = self._cache.get(found.key)
        if entries:
            for e in entries:
                if e.hyper is None or e.hyper == found.hyper:
                    if e.program is None:
                        self.stats["eager"] += 1
                        return self._fn(*args, **kwargs)
                    out = e.program(found.tensors)
                    if out is not _program.MISS:
                        self.stats["replays"] += 1
                        return out
        if self._entries >= cache_size_limit:
            self._go_eager(f"cache_size_limit ({cache_size_limit}) reached: a guard changes on "
                           "every call", warn=True)
            return self._fn(*args, **kwargs)
        if self._entries and _recompiles_logged():
            log.debug("Recompiling function %s: %s", self.__name__, self._why(found))
        return self._record(found, args, kwargs)

    # -- guards ---------------------------------------------------------------------
    def _discover(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Found:
        """The call's state and key; the closure's and globals' walk is kept while its stamp
        (the identities it went through) holds."""
        cells = self._cells
        extra = [a for a in args if _root_like(a)]
        if extra:
            cells = cells + [_Cell(a) for a in extra]
        layout = self._layout
        if layout is None or extra or not layout.current(self._fn, cells, self._names):
            layout = layout_of(self._fn, cells, self._names)
            self._layout = None if extra else layout
        return discover(layout, args, kwargs)

    def _why(self, found: Found) -> str:
        """Which guard failed, in words, against the latest cached key."""
        if not self._cache:
            return "first call"
        last = next(reversed(self._cache))
        if last == found.key:
            return "the optimizers' hyperparameters (learning rate...) changed"
        for i, (a, b) in enumerate(zip(last, found.key)):
            if a != b:
                what = {0: "grad mode", 1: "inference mode"}.get(i, "")
                return f"guard {i} {what} changed: {a!r} -> {b!r}".replace("  ", " ")
        return f"the number of guarded values changed ({len(last)} -> {len(found.key)})"

    def _store(self, key: Any, entry: _Entry) -> None:
        self._cache.setdefault(key, []).append(entry)
        self._entries += 1

    def _go_eager(self, reason: str, warn: bool) -> None:
        self._eager = reason
        if warn:
            warnings.warn(f"arraygrad.compile: {self.__name__} runs eagerly from now on: {reason}",
                          UserWarning, stacklevel=3)

    # -- recording ------------------------------------------------------------------
    def _record(self, found: Found, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        # a recording allocates many small objects that all live until it ends: collections
        # while it runs only cost time
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._record_call(found, args, kwargs)
        finally:
            if collecting:
                gc.enable()

    def _record_call(self, found: Found, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        hook = _hooks_of(found)
        if hook:
            return self._break_before(hook, args, kwargs)
        backends = {id(t._backend): t._backend for t in found.tensors}
        real = next(iter(backends.values()), None)
        if real is None:
            from arraygrad.backends.registry import default_backend
            real = default_backend()
        if len(backends) > 1 or not hasattr(real, "xp"):
            return self._break_before("the call touches tensors of several devices", args, kwargs)
        self.stats["records"] += 1
        snapshot = Snapshot(found)
        rec = Recording(real, self._on_break)
        session = _Session(rec, real, found)
        try:
            session.start()
            try:
                result = self._fn(*args, **kwargs)
            finally:
                session.stop()
        except Unsupported:
            session.restore_all(None)
            snapshot.restore()
            raise
        except Exception as exc:
            session.restore_all(None)
            if rec.broken is not None:
                raise  # eager from the break on: this is the user's own error
            snapshot.restore()
            result = self._fn(*args, **kwargs)  # eager; its error, if any, is the user's
            self._go_eager(f"recording failed ({type(exc).__name__}: {exc})", warn=True)
            return result
        self._layout = None  # the call may have created state (optimizer state on a first step)
        after = self._discover(args, kwargs)
        try:
            made = None if rec.broken is not None else session.bind(after, result)
        except Exception as exc:  # the call ran eagerly and is done: only the program is lost
            made = None
            self._go_eager(f"recording failed ({type(exc).__name__}: {exc})", warn=True)
        finally:
            session.restore_all(after, result)
        if made is None and rec.broken is None:
            return result
        if rec.broken is not None:
            return result
        self._finish(found, made, rec, after)
        return result

    def _finish(self, found: Found, made: Any, rec: Recording, after: Found) -> None:
        bindings, reason = made
        hyper = None if session_used_live(rec) else found.hyper
        if reason:
            # not replayable: a state change the program cannot redo (optimizer state being
            # created on a first step is the usual one; the next key records again)
            self._unreplayable += 1
            if _recompiles_logged():
                log.debug("%s: not cached: %s", self.__name__, reason)
            if reason.startswith("training forward"):
                self._store(found.key, _Entry(None, hyper, reason=reason))
            elif self._unreplayable >= 3:
                self._go_eager(reason, warn=True)
            return
        self._unreplayable = 0
        fn, text = _program.build(rec, bindings, wrap, rec.backend)
        capture = getattr(rec.backend, "capture", None)
        if capture is not None and _capture.capturable(rec, bindings):
            fn = _capture.build_captured(rec, bindings, wrap, rec.backend, fn, found.nargs,
                                         capture)
        self._store(found.key, _Entry(fn, hyper, text))

    def _on_break(self, reason: str) -> None:
        where = _user_frame()
        message = f"{reason} (at {where})" if where else reason
        if self._fullgraph:
            raise Unsupported(f"arraygrad.compile(fullgraph=True): graph break: {message}")
        rec = current.rec
        if rec is not None:
            rec.broken = reason  # the rest of the call runs on the real arrays, unrecorded
        self._go_eager(f"graph break: {message}", warn=False)
        _warn_at(f"arraygrad.compile: graph break in {self.__name__}: {message}; it runs "
                 "eagerly from now on")

    def _break_before(self, reason: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self._fullgraph:
            raise Unsupported(f"arraygrad.compile(fullgraph=True): graph break: {reason}")
        self._go_eager(f"graph break: {reason}", warn=False)
        warnings.warn(f"arraygrad.compile: graph break in {self.__name__}: {reason}; it runs "
                      "eagerly from now on", UserWarning, stacklevel=3)
        return self._fn(*args, **kwargs)


class _Cell:
    """A cell-like holder of an argument that is a root (a module, an optimizer)."""

    __slots__ = ("cell_contents",)

    def __init__(self, value: Any) -> None:
        self.cell_contents = value


def _root_like(value: Any) -> bool:
    from arraygrad.compiler.state import _SCALARS
    return not isinstance(value, (Tensor, list, tuple, dict) + _SCALARS) and (
        hasattr(value, "parameters") or hasattr(value, "param_groups")
        or hasattr(value, "optimizer"))


def session_used_live(rec: Recording) -> bool:
    """Whether the program reads live scalars (then hyperparameters need no guard)."""
    from arraygrad.compiler.traced import Live
    for ins in rec.instrs:
        if ins.kind == "host" or any(a.__class__ is Live for a in _flat(ins.args)) or \
                any(a.__class__ is Live for a in _flat(tuple(ins.kwargs.values()))):
            return True
    return False


def _flat(t: Any) -> Any:
    for v in t:
        if v.__class__ in (tuple, list):
            yield from _flat(v)
        elif v.__class__ is dict:
            yield from _flat(tuple(v.values()))
        else:
            yield v


def _hooks_of(found: Found) -> str:
    """A hook on the touched state (its Python side effects cannot be replayed), or ''."""
    for t in found.tensors:
        if t._hooks or t._post_acc_hooks:
            return "a tensor hook (Python side effects cannot be replayed)"
    for m in found.modules:
        for name in ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks",
                     "_backward_hooks"):
            if getattr(m, name, None):
                return f"a module hook ({name[1:-1]} on {type(m).__name__})"
    try:
        from arraygrad.nn.modules._global_hooks import _has_any_global_hook
        if _has_any_global_hook():
            return "a global module hook"
    except ImportError:  # pragma: no cover
        pass
    for o in found.optimizers:
        if o._optimizer_step_pre_hooks or o._optimizer_step_post_hooks:
            return "an optimizer step hook"
    return ""


_PACKAGES = ("arraygrad", "numpy", "array_api_compat", "cupy")


def _user_frame() -> str:
    frame = _first_user_frame()
    return "" if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"


def _first_user_frame() -> Any:
    frame: Any = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if not name.split(".")[0].startswith(_PACKAGES):
            return frame
        frame = frame.f_back
    return None


def _warn_at(message: str) -> None:
    frame = _first_user_frame()
    if frame is None:
        warnings.warn(message, UserWarning, stacklevel=2)
        return
    warnings.warn_explicit(message, UserWarning, frame.f_code.co_filename, frame.f_lineno,
                           module=frame.f_globals.get("__name__"),
                           registry=frame.f_globals.setdefault("__warningregistry__", {}))


class _Session:
    """One recording: swapping the state to traced arrays, the flag, and putting it back."""

    def __init__(self, rec: Recording, real: Any, found: Found) -> None:
        self.rec = rec
        self.real = real
        self.found = found
        self.backends: dict[int, RecordingBackend] = {}
        self.inputs: list[tuple[int, int]] = []
        self.traced: dict[int, TracedArray] = {}
        self.grads = [t._grad for t in found.tensors]
        self.versions = [t._version for t in found.tensors]
        self.vcs = [t._vc for t in found.tensors]
        self.rgs = [t._requires_grad for t in found.tensors]
        self.fns = [t._grad_fn for t in found.tensors]
        self.saved_flag: tuple[Any, Any] = (None, None)
        self.python_state = _python_state(found)

    def start(self) -> None:
        rec = self.rec
        for i, t in enumerate(self.found.tensors):
            data = t._data
            traced = self.traced.get(id(data))
            if traced is None:
                traced = self.traced[id(data)] = TracedArray(data, rec.new_slot(), rec)
            self.inputs.append((i, traced._s))
            rec.ninputs = rec.nslots
            t._data = traced
            t._backend = recording_backend(t._backend, rec, self.backends)  # type: ignore[assignment]
        self.saved_flag = (recording_flag.host_call, recording_flag.graph_break)
        recording_flag.host_call = self._host_call
        recording_flag.graph_break = self._graph_break
        self.rec.wrap_backend = lambda b: recording_backend(b, rec, self.backends)
        current.rec = rec
        recording_flag.on = True

    def _host_call(self, thunk: Callable[[], Any]) -> None:
        from arraygrad.compiler.traced import Instr
        self.rec.instrs.append(Instr(thunk, (), {}, None, False, "host"))

    def _graph_break(self, reason: str) -> None:
        if recording_flag.on and current.rec is self.rec and self.rec.broken is None:
            self.rec.on_break(reason)

    def stop(self) -> None:
        recording_flag.on = False
        current.rec = None
        recording_flag.host_call, recording_flag.graph_break = self.saved_flag

    def restore_all(self, after: Found | None, result: Any = None) -> None:
        """Every tensor reachable from the state and the result holds real arrays again."""
        seen: set[int] = set()
        todo: list[Tensor] = list(self.found.tensors)
        if after is not None:
            todo.extend(after.tensors)
        _tensors_in(result, todo, 0)
        while todo:
            t = todo.pop()
            if id(t) in seen:
                continue
            seen.add(id(t))
            data = t._data
            if data.__class__ is TracedArray:
                t._data = _real(data, self.real)
            backend = t._backend
            if backend.__class__ is RecordingBackend:
                t._backend = backend._real
            if t._grad is not None:
                todo.append(t._grad)

    def bind(self, after: Found, result: Any) -> tuple[_program.Bindings, str]:
        """The replay's bindings, or a reason the call cannot be replayed."""
        rec, found = self.rec, self.found
        b = _program.Bindings()
        b.inputs = self.inputs
        index = {id(t): i for i, t in enumerate(found.tensors)}
        if set(map(id, after.tensors)) - set(index) - {id(t._grad) for t in found.tensors}:
            return b, "the call created state tensors (optimizer state on a first step)"
        if [m.training for m in found.modules] != [m.training for m in after.modules]:
            return b, "the call switched a module between train and eval"
        before, now = self.python_state, _python_state(found)
        if not _same_python_state(before[0], now[0]) and \
                not any(ins.kind == "host" for ins in rec.instrs):
            return b, "the call changed an LR scheduler's state, which a replay cannot redo"
        if not _same_python_state(before[1], now[1]) and not session_used_live(rec):
            return b, ("the call changed an optimizer's hyperparameters, which the program "
                       "uses as constants")
        grad_expr: dict[int, str] = {}
        for i, t in enumerate(found.tensors):
            if t._requires_grad != self.rgs[i] or t._grad_fn is not self.fns[i]:
                return b, "a state tensor's requires_grad or autograd graph changed"
            k = self._slot(t._data)
            if k is None:
                return b, "a state tensor was given an array the recording did not make"
            if k != self.inputs[i][1]:
                b.data.append((i, k))
            g, g0 = t._grad, self.grads[i]
            if g is not g0:
                if g is None:
                    b.grad_none.append(i)
                else:
                    kg = self._slot(g._data)
                    if kg is None:
                        return b, "a gradient was given an array the recording did not make"
                    b.grad_new.append((i, kg))
                    grad_expr[id(g)] = f"T[{i}]._grad"
        vcs: dict[int, int] = {}
        for i, t in enumerate(found.tensors):
            counter = t._vc
            if counter is None or id(counter) in vcs:
                continue
            vc: list[int] = counter
            start = self.versions[i] if self.vcs[i] is vc else 0
            vcs[id(vc)] = i
            if vc[0] != start:
                b.versions.append((i, vc[0] - start))
        backward_ran = bool(b.grad_new or b.grad_none) or any(
            k in rec.written for i, k in self.inputs
            if any(found.tensors[i] is g for g in self.grads if g is not None))
        out, reason = _output(result, index, grad_expr, self, backward_ran)
        b.output = out
        return b, reason

    def _slot(self, data: Any) -> int | None:
        if data.__class__ is TracedArray and data._r is self.rec:
            return data._s
        return None


def _real(data: TracedArray, backend: Any) -> Any:
    real = data._a
    array_type = backend.array_type
    if array_type is not None and type(real) is not array_type:
        real = backend.coerce(real)
    return real


def _python_state(found: Found) -> list[Any]:
    """The Python-level state a step may change besides arrays: schedulers' attributes and
    optimizers' hyperparameters (shallow copies)."""
    groups = [{k: v for k, v in g.items() if k != "params"}
              for o in found.optimizers for g in o.param_groups]
    return [[dict(s.__dict__) for s in found.schedulers], groups]


def _same_python_state(a: list[Any], b: list[Any]) -> bool:
    try:
        return len(a) == len(b) and all(bool(x == y) for x, y in zip(a, b))
    except Exception:  # a value without a plain equality (a tensor): assume it changed
        return False


def _released(node: Any, limit: int = 256) -> bool:
    """Whether a backward without ``retain_graph`` went through ``node``'s graph (some node
    near it had its saved values freed): then the result is a step's report, not a graph
    the caller will differentiate."""
    seen: set[int] = set()
    todo = [node]
    while todo and len(seen) < limit:
        n = todo.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if getattr(n, "_freed", False):
            return True
        for e in getattr(n, "_next", ()) or ():
            todo.append(e[0] if type(e) is tuple else e)
    return False


def _tensors_in(value: Any, out: list[Tensor], depth: int) -> None:
    if isinstance(value, Tensor):
        out.append(value)
    elif value.__class__ in (list, tuple) and depth < 4:
        for v in value:
            _tensors_in(v, out, depth + 1)
    elif value.__class__ is dict and depth < 4:
        for v in value.values():
            _tensors_in(v, out, depth + 1)


def _output(value: Any, index: dict[int, int], grad_expr: dict[int, str], session: _Session,
            backward_ran: bool) -> tuple[Any, str]:
    """The return value's template, or a reason it cannot be replayed."""
    if isinstance(value, Tensor):
        i = index.get(id(value))
        if i is not None:
            return _program.OutState(i), ""
        k = session._slot(value._data)
        if k is None:
            return None, "the call returned a tensor the recording did not make"
        if value._grad_fn is not None and not backward_ran and not _released(value._grad_fn):
            return None, "training forward: the result's autograd graph is used after the call"
        return _program.OutTensor(k, grad_expr.get(id(value))), ""
    cls = value.__class__
    if cls in (tuple, list):
        items = [_output(v, index, grad_expr, session, backward_ran) for v in value]
        for _, reason in items:
            if reason:
                return None, reason
        return cls(t for t, _ in items), ""
    if cls is dict:
        out = {}
        for k, v in value.items():
            t, reason = _output(v, index, grad_expr, session, backward_ran)
            if reason:
                return None, reason
            out[k] = t
        return out, ""
    if value.__class__ is TracedArray:
        return None, "the call returned a raw array"
    return value, ""
