"""``CompiledFunction``: guards, the bounded cache, recording, graph breaks and replay.

A call computes the guard key (``state.discover``). A cached program for the key is
replayed; otherwise the call is recorded (it runs eagerly while its array work is
written down) and, when everything it did can be replayed, its program is cached.
"""

from __future__ import annotations

import logging
import os
import sys
import warnings
from typing import Any, Callable

from arraygrad.compiler import (capture as _capture, controls as _controls, program as _program,
                                training as _training, unit_expand as _unit_expand)
from arraygrad.compiler import scalars as _scalars
from arraygrad.compiler import global_reads as _global_reads
from arraygrad.compiler.group_reads import read_live, track, untrack
from arraygrad.compiler.schedulers import replay_steps, restore_steps
from arraygrad.compiler.python_values import fingerprint, identity_value
from arraygrad.compiler.scalars import recording_flag
from arraygrad.compiler.state import (
    Found, Layout, Snapshot, discover, layout_of, roots_of, state_after,
)
from arraygrad.compiler.session import TRAINING_FORWARD, Session
from arraygrad.compiler.traced import Recording, Unsupported, current
from arraygrad.tensor import Tensor, wrap

__all__ = ["CompiledFunction", "cache_size_limit", "log"]

cache_size_limit = 8
"""Programs kept per compiled function (``torch._dynamo.config.cache_size_limit``'s 8);
past it the function runs eagerly, with a warning."""

log = logging.getLogger("arraygrad.compile")


def _recompiles_logged() -> bool:
    return "recompiles" in os.environ.get("ARRAYGRAD_LOGS", "").replace(" ", "").split(",")


class _Entry:
    """A cached key: its program (None: this key runs eagerly) and the guards the recorded
    step's Python reads left (``compiler.scalars.Guards``)."""

    __slots__ = ("program", "source", "reason", "reads", "pre")

    def __init__(self, program: Callable[..., Any] | None, source: str = "",
                 reason: str = "", reads: tuple[Any, ...] = (),
                 pre: tuple[Any, ...] = ()) -> None:
        self.program = program
        self.source = source
        self.reason = reason
        self.reads = reads
        self.pre = pre  # the live scalars read from the state before the step (``fill``)


class _Pending:
    """An entry's program until its first replay: it generates and compiles the replay
    function then, and puts it in the entry in its own place. The recording call so pays
    only for recording (a key recorded but never replayed never pays the code generation),
    and a replay calls the compiled function directly from the second one on."""

    __slots__ = ("entry", "rec", "bindings", "nargs")

    def __init__(self, entry: _Entry, rec: Recording, bindings: Any, nargs: int) -> None:
        self.entry = entry
        self.rec = rec
        self.bindings = bindings
        self.nargs = nargs

    def __call__(self, tensors: Any) -> Any:
        return _program.without_gc(self._build)(tensors)

    def _build(self) -> Callable[..., Any]:
        rec, bindings = self.rec, self.bindings
        _unit_expand.expand_units(rec)  # a flat replay: no unit function's frame per call
        fn, text = _program.build(rec, bindings, wrap, rec.backend)
        if rec.hints is not None:  # the backend may capture (``capture.may_capture``)
            captured = _capture.build_captured(rec, bindings, wrap, rec.backend, fn,
                                               self.nargs, rec.backend.capture)
            if captured is not None:
                fn = captured
        self.entry.program = fn
        self.entry.source = text
        return fn


class CompiledFunction:
    """``fn`` recorded once per guard key and replayed (see ``arraygrad.compile``).

    ``stats``: counters (``records``, ``replays``, ``eager``) for tests and tuning.
    """

    def __init__(self, fn: Callable[..., Any], *, fullgraph: bool = False, dynamic: bool | None = False,
                 name: str | None = None, recompile_limit: int | None = None) -> None:
        if recompile_limit is not None and (isinstance(recompile_limit, bool)
                                            or not isinstance(recompile_limit, int)
                                            or recompile_limit < 0):
            raise ValueError(f"compile(): recompile_limit must be a non-negative int or None, "
                             f"got {recompile_limit!r}")
        self._fn = fn
        # a copy of ``fn`` noting the globals it reads, for recordings (``global_reads``)
        self._tracked = _global_reads.tracked_copy(fn)
        self._limit = recompile_limit  # None: the module's ``cache_size_limit``
        self._fullgraph = fullgraph
        self._dynamic = dynamic
        self._cells = roots_of(fn)
        self._layout: Layout | None = None
        self._cache: dict[Any, list[_Entry]] = {}
        self._entries = 0
        self._eager: str | None = None
        self._unreplayable = 0
        self.stats = {"records": 0, "replays": 0, "eager": 0}
        self.__wrapped__ = fn
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)
        self._region = name if name is not None else self.__name__  # ``compile(name=)``
        # a module's bound ``forward`` (``Module.compile`` compiles it) never runs that
        # module's own hooks: ``Module.__call__`` runs them, around the call, so they are
        # no graph break
        self._hooks_outside: Any = (getattr(fn, "__self__", None)
                                    if getattr(fn, "__name__", None) == "forward" else None)
        _controls.register(self)

    def _reset(self) -> None:
        """Forget every program and the decision to run eagerly (``compiler.reset``)."""
        self._cache.clear()
        self._entries = 0
        self._eager = None
        self._unreplayable = 0
        self._layout = None

    def __repr__(self) -> str:
        return f"<compiled {self._region}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._eager is not None or current.rec is not None or recording_flag.on:
            # broken, or called inside another recording (its work is recorded there)
            self.stats["eager"] += 1
            return self._fn(*args, **kwargs)
        found = self._discover(args, kwargs)
        # (a first call's cache is empty: no hashing of the key for nothing)
        entries = self._cache.get(found.key) if self._cache else None
        if entries:
            for e in entries:
                if (not e.pre or _scalars.fill(e.pre)) and \
                        (not e.reads or _scalars.holds(e.reads)):
                    if e.program is None:
                        self.stats["eager"] += 1
                        return self._fn(*args, **kwargs)
                    out = e.program(found.tensors)
                    if out is not _program.MISS:
                        self.stats["replays"] += 1
                        return out
        limit = cache_size_limit if self._limit is None else self._limit
        if self._entries >= limit:
            self._go_eager(f"cache_size_limit ({limit}) reached: a guard changes on "
                           "every call", warn=True)
            return self._fn(*args, **kwargs)
        if self._entries and _recompiles_logged():
            log.debug("Recompiling function %s: %s", self._region, self._why(found))
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
        if layout is None or extra or not layout.current(cells):
            if layout is not None:  # something was rebound: a helper function may be new
                self._cells = cells = roots_of(self._fn) + [_Cell(a) for a in extra]
            # a recording usually follows: the walk and the key allocate many small objects
            found = _program.without_gc(_walk_and_discover, cells, args, kwargs)
            self._layout = None if extra else found.layout
            return found
        return discover(layout, args, kwargs)

    def _why(self, found: Found) -> str:
        """Which guard failed, in words, against the latest cached key."""
        if not self._cache:
            return "first call"
        last = next(reversed(self._cache))
        if found.key in self._cache:
            return ("a value guard failed (a value an op read into Python changed, or a "
                    "hyperparameter, or the outcome of a branch on one)")
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
        if warn:  # (at the user's line: this is reached from several depths)
            _warn_at(f"arraygrad.compile: {self._region} runs eagerly from now on: {reason}")

    # -- recording ------------------------------------------------------------------
    def _record(self, found: Found, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return _program.without_gc(self._record_call, found, args, kwargs)

    def _record_call(self, found: Found, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        real, reason = _backend_of(found)
        reason = reason or _hooks_of(found, self._hooks_outside) or (
            "" if real is not None else "the call touches tensors of several devices")
        if reason:
            return self._break_before(reason, args, kwargs)
        try:
            snapshot = Snapshot(found)
        except Exception as exc:  # (a third-party generator that cannot be copied...)
            # without a snapshot a failed recording could not be undone: eager, never a raise
            return self._break_before(f"its state cannot be snapshotted before recording "
                                      f"({type(exc).__name__}: {exc})", args, kwargs)
        self.stats["records"] += 1
        seq0 = _training.mark()  # the call's own autograd nodes are made after this
        rec = Recording(real, self._on_break)
        if _capture.may_capture(real):
            rec.hints = []  # live scalars learn what a captured replay needs of them
        session = Session(rec, real, found, snapshot.tensors)
        tracked = track(found.optimizers)
        stepped = replay_steps(found.schedulers)
        guards = _scalars.guards = _scalars.Guards()
        layout = found.layout
        # every Python value the step may change, its own globals included
        values_before = fingerprint(layout, args, kwargs, full=True) \
            if layout is not None and self._tracked is not None else found.values
        fn = self._fn if self._tracked is None else self._tracked[0]
        try:
            session.start()
            recording_flag.read_live = read_live
            try:
                result = fn(*args, **kwargs)
            finally:
                recording_flag.read_live = None
                session.stop()
                untrack(tracked)
                restore_steps(stepped)
                _scalars.guards = None
                if self._tracked is not None:
                    guards.checks.extend(_global_reads.checks(self._tracked[1], identity_value))
                rec.group_reads = tuple(guards.checks)
                rec.pre_reads = tuple(guards.reads)
        except Unsupported:
            session.restore_all(None)
            snapshot.restore()
            raise
        except BaseException as exc:
            session.restore_all(None)
            if not isinstance(exc, Exception):
                raise  # KeyboardInterrupt, SystemExit: the state as eager would leave it

            if rec.broken is not None or not _recorder_failed(exc):
                # eager from the break on, or the user's own error, which the recording call
                # (running eager's operations on the real arrays) raised as eager raises it:
                # the body ran once, as eager's did
                raise
            snapshot.restore()
            result = self._fn(*args, **kwargs)  # eager; its error, if any, is the user's
            self._go_eager(f"recording failed ({type(exc).__name__}: {exc})", warn=True)
            return result
        if rec.broken is not None and self._fullgraph:  # the call swallowed ``Unsupported``
            session.restore_all(None, result)
            snapshot.restore()
            raise Unsupported(f"arraygrad.compile(fullgraph=True): graph break: {rec.broken}")
        # containers and variables the step reaches, changed by it (a list it appends to, a
        # counter it rebinds, optimizer state it creates): a replay would not change them
        python_changed = layout is not None and (
            not layout.current(layout.cells)
            # a Python value the step may read, changed by it (a counter on a plain object)
            or fingerprint(layout, args, kwargs, full=self._tracked is not None)
            != values_before)
        if layout is not None and not python_changed and layout.unwatched_same():
            # the walk would find the same objects: with no container among the arguments
            # (one the call may have filled), the state after the call is the state found,
            # each tensor's ``.grad`` read anew (``bind`` and ``restore_all`` follow them)
            after = found if _flat(args, kwargs) else state_after(layout, args, kwargs)
        else:
            self._layout = None
            after = self._discover(args, kwargs)
        try:
            made = None if rec.broken is not None else session.bind(after, result,
                                                                    python_changed)
            if made is not None and made[1] == TRAINING_FORWARD:  # record its backward too
                made = _training.record(session, result, made[0], seq0)
            if made is not None and not made[1] and guards.unguardable:
                made = (made[0], guards.unguardable)  # (the next call records again)
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
        if reason:
            if _recompiles_logged():
                log.debug("%s: not cached: %s", self._region, reason)
            if reason == TRAINING_FORWARD:  # this key runs eagerly from now on, silently
                self._store(found.key, _Entry(None, reason=reason, reads=rec.group_reads, pre=rec.pre_reads))
                return
            # not replayable: a state change the program cannot redo (optimizer state being
            # created on a first step is the usual one; the next key records again)
            self._unreplayable += 1
            if self._unreplayable >= 3:
                self._go_eager(reason, warn=True)
            return
        self._unreplayable = 0
        entry = _Entry(None, reads=rec.group_reads, pre=rec.pre_reads)
        if isinstance(bindings, _training.TrainingProgram):
            bindings.entry = entry
            entry.program = bindings
        else:
            entry.program = _Pending(entry, rec, bindings, found.nargs)
        self._store(found.key, entry)

    def _on_break(self, reason: str) -> None:
        where = _user_frame()
        message = f"{reason} (at {where})" if where else reason
        rec = current.rec
        if rec is not None:
            rec.broken = message  # the rest of the call runs on the real arrays, unrecorded
        if self._fullgraph:
            raise Unsupported(f"arraygrad.compile(fullgraph=True): graph break: {message}")
        self._go_eager(f"graph break: {message}", warn=False)
        _warn_at(f"arraygrad.compile: graph break in {self._region}: {message}; it runs "
                 "eagerly from now on")

    def _break_before(self, reason: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self._fullgraph:
            raise Unsupported(f"arraygrad.compile(fullgraph=True): graph break: {reason}")
        self._go_eager(f"graph break: {reason}", warn=False)
        warnings.warn(f"arraygrad.compile: graph break in {self._region}: {reason}; it runs "
                      "eagerly from now on", UserWarning, stacklevel=3)
        return self._fn(*args, **kwargs)


_COMPILER_DIR = os.path.dirname(os.path.abspath(__file__))


def _recorder_failed(exc: BaseException) -> bool:
    """Whether ``exc`` may come from the recorder rather than from the step. Only an error
    the step's own Python raised (the innermost frame is the user's, and no frame of
    ``arraygrad.compiler`` is on its way) is surely eager's: eager would raise it too, the
    body having run once. One raised inside arraygrad or a library it calls may be the
    recorder's doing (a traced array, a recording backend, surfacing in an op's code)."""
    tb = exc.__traceback__
    tb = None if tb is None else tb.tb_next  # (the recording call's own frame)
    last = None
    while tb is not None:
        frame = tb.tb_frame
        if os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == _COMPILER_DIR:
            return True
        last = frame
        tb = tb.tb_next
    if last is None:
        return True
    name = last.f_globals.get("__name__", "") or ""
    return name.split(".")[0].startswith(_PACKAGES)


def _walk_and_discover(cells: list[Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Found:
    """``discover`` over a fresh walk of ``cells``."""
    return discover(layout_of(cells), args, kwargs)


class _Cell:
    """A cell-like holder of an argument that is a root (a module, an optimizer)."""

    __slots__ = ("cell_contents",)

    def __init__(self, value: Any) -> None:
        self.cell_contents = value


def _flat(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """Whether no argument is a list or dict (the containers ``discover`` walks that a call
    can fill; a tuple's items are fixed)."""
    for a in args:
        if a.__class__ in (list, dict):
            return False
    if kwargs:
        for a in kwargs.values():
            if a.__class__ in (list, dict):
                return False
    return True


def _root_like(value: Any) -> bool:
    from arraygrad.compiler.state import _SCALARS
    return not isinstance(value, (Tensor, list, tuple, dict) + _SCALARS) and (
        hasattr(value, "parameters") or hasattr(value, "param_groups")
        or hasattr(value, "optimizer"))


def _backend_of(found: Found) -> tuple[Any, str]:
    """The state tensors' one backend (the default one when there are none; None when they
    are on several devices) and a tensor hook on them, in words, or ''. (One pass over the
    tensors for both: ``_hooks_of`` sees to the modules and optimizers.)"""
    real = None
    several = False
    for t in found.tensors:
        if t._hooks or t._post_acc_hooks:
            return None, "a tensor hook (Python side effects cannot be replayed)"
        if t.is_sparse:
            return None, "a sparse tensor (arraygrad.sparse): compiled steps record dense ones"
        backend = t._backend
        if backend is not real:
            if real is not None:
                several = True
            real = backend
    if several:
        return None, ""
    if real is None:
        from arraygrad.backends.registry import default_backend
        real = default_backend()
    return (real if hasattr(real, "xp") else None), ""


def _hooks_of(found: Found, outside: Any = None) -> str:
    """A hook on the touched modules or optimizers (its Python side effects cannot be
    replayed), or ''. ``outside``: a module whose own hooks run around the compiled call, not
    in it. (The tensors' hooks: ``_backend_of``.)"""
    for m in found.modules:
        if m is outside:
            continue
        try:  # (plain attribute reads: most modules have no hook)
            hooked = (m._forward_pre_hooks or m._forward_hooks or m._backward_pre_hooks
                      or m._backward_hooks)
        except AttributeError:  # a module without some of them: ask name by name
            hooked = True
        if hooked:
            for name in ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks",
                         "_backward_hooks"):
                if getattr(m, name, None):
                    return f"a module hook ({name[1:-1]} on {type(m).__name__})"
    if _global_hooks.module is None:
        from arraygrad.nn.modules import _global_hooks as module
        _global_hooks.module = module
    if _global_hooks.module._has_any_global_hook():
        return "a global module hook"
    for o in found.optimizers:
        if o._optimizer_step_pre_hooks or o._optimizer_step_post_hooks:
            return "an optimizer step hook"
    return ""


class _global_hooks:
    """``arraygrad.nn.modules._global_hooks``, imported at the first recording (``nn``
    loads after the compiler)."""

    module: Any = None


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
