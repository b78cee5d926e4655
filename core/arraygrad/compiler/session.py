"""A recording session: the touched state swapped to traced arrays and back, and what the
call changed, as a replay's bindings.

``Session.start`` gives every state tensor a ``TracedArray`` and a recording view of its
backend; ``stop`` ends the recording; ``bind`` compares the state after the call with the
state before (arrays rebound, ``.grad`` set or cleared, version counters, Python state a
replay cannot redo, the result's structure); ``restore_all`` puts real arrays back in every
tensor reachable from the state and the result.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.compiler import program as _program
from arraygrad.compiler import unit_record as _unit_record  # noqa: F401  (registers units' recorder)
from arraygrad.compiler.recording import instr
from arraygrad.compiler.recording_backend import RecordingBackend, recording_backend
from arraygrad.compiler import hooks as _hooks
from arraygrad.compiler.scalars import recording_flag
from arraygrad.compiler.state import Found
from arraygrad.compiler.traced import Recording, TracedArray, current
from arraygrad.tensor import Tensor

__all__ = ["Session", "used_live", "TRAINING_FORWARD"]

TRAINING_FORWARD = ("training forward: the result's autograd graph is used after the call "
                    "(this guard key runs eagerly)")
"""Why a call whose result's graph stays alive for a later backward is not replayed: the
reason ``bind`` gives first; ``training.record`` then records the backward too, and keeps it
only when that backward cannot be recorded."""


def used_live(rec: Recording) -> bool:
    """Whether the program reads live scalars or makes host calls (then the optimizers'
    hyperparameters are read at replay, not baked in)."""
    return rec.live


class Session:
    """One recording: swapping the state to traced arrays, the flag, and putting it back."""

    def __init__(self, rec: Recording, real: Any, found: Found, before: list[Any]) -> None:
        """``before``: the snapshot's entry of each of ``found.tensors``
        (``Snapshot.tensors``: its grad, requires_grad, grad_fn and version counter before the
        call are what ``bind`` compares with)."""
        self.rec = rec
        self.real = real
        self.found = found
        self.backends: dict[int, RecordingBackend] = {}
        self.inputs: list[tuple[int, int]] = []
        self.traced: dict[int, TracedArray] = {}
        self.before = before
        self.saved_flag: tuple[Any, Any] = (None, None)
        self.saved_hooks: tuple[Any, ...] = ()
        self.host_calls = False  # a host call is in the program
        self.python_state = _python_state(found)
        self.training = [m.training for m in found.modules]  # ``bind`` compares after the call

    def start(self) -> None:
        rec = self.rec
        real, seen = None, None  # the last backend met and its recording view (usually one)
        made, inputs = self.traced, self.inputs
        for i, t in enumerate(self.found.tensors):
            data = t._data
            traced = made.get(id(data))
            if traced is None:
                traced = made[id(data)] = TracedArray(data, rec.new_slot(), rec)
            inputs.append((i, traced._s))
            t._data = traced
            if t._backend is not real:
                real = t._backend
                seen = recording_backend(real, rec, self.backends)
            t._backend = seen  # type: ignore[assignment]
        rec.ninputs = rec.nslots
        self.saved_flag = (recording_flag.host_call, recording_flag.graph_break)
        recording_flag.host_call = self._host_call
        recording_flag.graph_break = self._graph_break
        self.rec.wrap_backend = lambda b: recording_backend(b, rec, self.backends)
        self.saved_hooks = _hooks.install()
        current.rec = rec
        recording_flag.on = True

    def _host_call(self, thunk: Callable[[], Any]) -> None:
        self.rec.instrs.append(instr(thunk, (), {}, None, False, "host"))
        self.host_calls = True
        self.rec.live = True

    def _graph_break(self, reason: str) -> None:
        if recording_flag.on and current.rec is self.rec and self.rec.broken is None:
            self.rec.on_break(reason)

    def stop(self) -> None:
        recording_flag.on = False
        current.rec = None
        _hooks.restore(self.saved_hooks)
        recording_flag.host_call, recording_flag.graph_break = self.saved_flag

    def restore_all(self, after: Found | None, result: Any = None) -> None:
        """Every tensor reachable from the state and the result holds real arrays again
        (``after``: the state after the call; the state found itself when it is the same)."""
        # each tensor is checked once when it joins ``todo`` (the state's are all distinct)
        todo: list[Tensor] = list(self.found.tensors)
        seen: set[int] = set(map(id, todo))
        more: list[Tensor] = []
        if after is not None and after is not self.found:
            more += after.tensors
        _tensors_in(result, more, 0)
        for t in more:
            if id(t) not in seen:
                seen.add(id(t))
                todo.append(t)
        nodes: list[Any] = []
        real = self.real
        array_type = real.array_type  # (``_real`` inlined: one call fewer per tensor)
        for t in todo:  # (grads join it as they are met)
            data = t._data
            if data.__class__ is TracedArray:
                data = data._a
                if array_type is not None and type(data) is not array_type:
                    data = real.coerce(data)
                t._data = data
            backend = t._backend
            if backend.__class__ is RecordingBackend:
                t._backend = backend._real
            g = t._grad
            if g is not None and id(g) not in seen:
                seen.add(id(g))
                todo.append(g)
            fn = t._grad_fn
            if fn is not None:
                nodes.append(fn)
        if nodes:
            self._scrub(nodes, seen)

    def _scrub(self, nodes: list[Any], seen: set[int], limit: int = 100_000) -> None:
        """The autograd graph behind the result (alive when the caller will differentiate it
        after the call): its saved values and arguments hold real arrays and backends again."""
        real = self.real
        done: set[int] = set()
        while nodes and len(done) < limit:
            node = nodes.pop()
            if node is None or id(node) in done:
                continue
            done.add(id(node))
            saved = getattr(node, "_saved", None)
            if saved.__class__ is tuple:
                node._saved = tuple([self._real_value(v, seen) for v in saved])
            args = getattr(node, "args", None)
            if args.__class__ is dict and args:
                node.args = {k: self._real_value(v, seen) for k, v in args.items()}
            for e in getattr(node, "_next", ()) or ():
                nodes.append(e[0] if type(e) is tuple else e)
            variable = getattr(node, "variable", None)
            if isinstance(variable, Tensor) and id(variable) not in seen:
                self._real_value(variable, seen)

    def _real_value(self, v: Any, seen: set[int]) -> Any:
        cls = v.__class__
        if cls is TracedArray:
            return _real(v, self.real)
        if cls is RecordingBackend:
            return v._real
        if isinstance(v, Tensor):
            if id(v) not in seen:
                seen.add(id(v))
                if v._data.__class__ is TracedArray:
                    v._data = _real(v._data, self.real)
                if v._backend.__class__ is RecordingBackend:
                    v._backend = v._backend._real
            return v
        data = getattr(v, "data", None)  # a saved output
        if data.__class__ is TracedArray:
            v.data = _real(data, self.real)
        backend = getattr(v, "backend", None)
        if backend.__class__ is RecordingBackend:
            v.backend = backend._real
        tensor = getattr(v, "tensor", None)  # a saved input
        if isinstance(tensor, Tensor):
            self._real_value(tensor, seen)
        return v

    def bind(self, after: Found, result: Any,
             python_changed: bool = False) -> tuple[_program.Bindings, str]:
        """The replay's bindings, or a reason the call cannot be replayed (``python_changed``:
        the call changed containers or variables the step reaches; ``after`` is
        ``self.found`` itself when the call left the same state tensors, their grads aside)."""
        rec, found = self.rec, self.found
        b = _program.Bindings()
        b.inputs = self.inputs
        index = dict(zip(map(id, found.tensors), range(len(found.tensors))))
        if python_changed:
            return b, ("the call changed Python state it reaches, which a replay would not: a "
                       "container it fills (a list it appends to; optimizer state on a first "
                       "step) or a variable it rebinds")
        if after is not found and \
                set(map(id, after.tensors)) - set(index) - {id(t._grad) for t in found.tensors}:
            return b, "the call created state tensors"
        if self.training != [m.training for m in after.modules]:
            return b, "the call switched a module between train and eval"
        before, now = self.python_state, _python_state(found)
        host_calls = self.host_calls
        if not _same_python_state(before[0], now[0]) and not host_calls:
            return b, "the call changed an LR scheduler's state, which a replay cannot redo"
        if not _same_python_state(before[1], now[1]) and not (host_calls and used_live(rec)):
            # only a host call (a scheduler's step) redoes such a change at replay, and only a
            # program reading the values live sees it
            return b, "the call changed an optimizer's hyperparameters, which a replay cannot redo"
        grad_expr: dict[int, str] = {}
        inputs = self.inputs
        vcs: set[int] = set()  # the version counters met (tensors sharing one: views)
        # one pass over the state: its arrays, grads and version counters
        for i, (t, _, _, g0, rg, fn, vc0, _) in enumerate(self.before):
            counter = t._vc
            if counter is not None and id(counter) not in vcs:
                vc: list[int] = counter
                start = vc0[1] if vc0 is not None and vc0[0] is vc else 0
                vcs.add(id(vc))
                if vc[0] != start:
                    b.versions.append((i, vc[0] - start))
            if t._requires_grad != rg or t._grad_fn is not fn:
                return b, "a state tensor's requires_grad or autograd graph changed"
            data = t._data
            if data.__class__ is not TracedArray or data._r is not rec:
                return b, "a state tensor was given an array the recording did not make"
            k = data._s
            if k != inputs[i][1]:
                b.data.append((i, k))
            g = t._grad
            if g is not g0:
                if g is None:
                    b.grad_none.append(i)
                else:
                    gd = g._data  # (``_slot`` inlined, as below: a call fewer per grad)
                    if gd.__class__ is not TracedArray or gd._r is not rec:
                        return b, "a gradient was given an array the recording did not make"
                    b.grad_new.append((i, gd._s))
                    grad_expr[id(g)] = f"T[{i}]._grad"
        backward_ran = bool(b.grad_new or b.grad_none) or any(
            k in rec.written for i, k in self.inputs
            if any(found.tensors[i] is e[3] for e in self.before if e[3] is not None))
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
    groups = []
    for o in found.optimizers:
        for g in o.param_groups:
            hyper = dict(g)  # (a C-level copy, then the one key left out)
            hyper.pop("params", None)
            groups.append(hyper)
    return [[dict(s.__dict__) for s in found.schedulers], groups]


def _same_python_state(a: list[Any], b: list[Any]) -> bool:
    try:
        return bool(a == b)  # (lists compare item by item, each first by identity)
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


def _output(value: Any, index: dict[int, int], grad_expr: dict[int, str], session: Session,
            backward_ran: bool) -> tuple[Any, str]:
    """The return value's template, or a reason it cannot be replayed."""
    if isinstance(value, Tensor):
        i = index.get(id(value))
        if i is not None:
            return _program.OutState(i), ""
        data = value._data  # (``Session._slot`` inlined)
        if data.__class__ is not TracedArray or data._r is not session.rec:
            return None, "the call returned a tensor the recording did not make"
        fn = value._grad_fn
        released = fn is not None and _released(fn)
        if fn is not None and not backward_ran and not released:
            return None, TRAINING_FORWARD
        return _program.OutTensor(data._s, grad_expr.get(id(value)), released), ""
    cls = value.__class__
    if cls in (tuple, list):
        outs = []
        for v in value:
            out, reason = _output(v, index, grad_expr, session, backward_ran)
            if reason:
                return None, reason
            outs.append(out)
        return (outs if cls is list else tuple(outs)), ""
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
