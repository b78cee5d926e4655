"""Training forwards: a forward program and a backward program (AOT-autograd style).

A *training forward* is a call whose result keeps its autograd graph for a backward after
the call (``compile(model)`` called in a training loop). Its recording call runs eagerly
(the result keeps its real graph: the user's backward on it is eager); ``record`` then also
records a *backward program*: inside the recording, the engine computes the gradient of
the differentiable outputs with respect to the leaves the call's graph reaches (the state
tensors and inputs that require grad), with the output gradients as program inputs
(placeholder arrays of the outputs' shapes and dtypes), ``retain_graph`` and no ``.grad``
touched. The forward program returns, besides the result, the forward arrays the backward
program reads.

A replay (``TrainingProgram.__call__``) runs the forward program and gives the
differentiable outputs one ``CompiledFunctionBackward`` node whose backward runs the
backward program; the engine accumulates its gradients into ``.grad`` as eager's would.

Whatever the backward would do in Python that a replay cannot (hooks or ``retain_grad`` on
the graph, a custom ``autograd.Function``, saved-tensor hooks, a value read into Python,
reaching a tensor the discovery did not find) keeps the key eager, as before.
"""

from __future__ import annotations

import copy
import logging
from typing import Any, Callable

from arraygrad.autograd import engine as _engine
from arraygrad.autograd.anomaly_mode import state as _anomaly
from arraygrad.autograd.function import BackwardCFunction
from arraygrad.autograd.graph import AccumulateGrad, PackedSavedOutput, PackedSavedTensor, _sequence
from arraygrad.autograd.saved_hooks import _open as _hooks_open
from arraygrad.compiler import program as _program
from arraygrad.compiler.capture_plan import has_live
from arraygrad.compiler.compiled_backward import CompiledFunctionBackward
from arraygrad.compiler import hooks as _hooks
from arraygrad.compiler.scalars import recording_flag
from arraygrad.compiler.session import TRAINING_FORWARD, Session, _output
from arraygrad.compiler.traced import Recording, TracedArray, current
from arraygrad.tensor import Tensor, wrap

__all__ = ["TrainingProgram", "mark", "record"]

log = logging.getLogger("arraygrad.compile")

_PACKED = (PackedSavedTensor, PackedSavedOutput)


def mark() -> int:
    """A node sequence number below every node made from now on (taken before a recording:
    the nodes of the call's own graph are those above it)."""
    return next(_sequence)


class _Outside(Exception):
    """Internal: the recorded backward ran a node made before the call."""


class TrainingProgram:
    """A training forward's replay: ``program(T)`` returns the result, whose differentiable
    outputs share one ``CompiledFunctionBackward`` node (or ``MISS``).

    The forward and backward functions are generated at their first use (as a plain
    program's replay function is).
    """

    def __init__(self, rec: Recording, nfwd: int, bindings: _program.Bindings,
                 targets: list[int], saved: list[int], placeholders: list[tuple[int, Any, Any]],
                 grads: list[int | None]) -> None:
        self.rec = rec
        self.nfwd = nfwd  # rec.instrs[:nfwd] are the forward's, the rest the backward's
        self.bindings = bindings
        self.targets = targets  # indexes (into the state tensors) of the node's edges
        self.saved = saved  # forward slots the backward reads
        self.placeholders = placeholders  # (slot, shape, dtype) of each output gradient
        self.grads = grads  # per target: the slot of its gradient (None: no gradient)
        self.nout = len(placeholders)
        self.paths: list[tuple[Any, ...]] = []  # where each differentiable output sits
        # per target: the outputs whose graph reaches it (no gradient arrived at any of
        # them: eager's backward leaves its .grad alone, and so does the node)
        self.needs: list[frozenset[int]] = []
        self.frees = False  # eager's graph saved values: a backward releases the node
        # the state tensors and outputs whose arrays (or arrays they view) the backward reads:
        # their version counters are checked before it runs, as eager's saved tensors are
        self.watch_inputs: list[int] = []
        self.watch_outputs: list[int] = []
        self.backend = rec.backend
        self.forward: Callable[..., Any] | None = None
        self.backward: Callable[..., Any] | None = None
        self.entry: Any = None  # the cache entry (its ``source`` is filled at the build)

    def __call__(self, tensors: list[Tensor]) -> Any:
        if _hooks_open.hooks:  # saved-tensor hooks would pack the values: record (eagerly)
            return _program.MISS
        forward = self.forward or self._build_forward()
        out = forward(tensors)
        if out is _program.MISS:
            return out
        result, arrays = out
        edges = []
        for i in self.targets:
            edge = tensors[i]._gradient_edge()
            edges.append(edge[0] if edge[1] == 0 else edge)  # type: ignore[index]
        node = CompiledFunctionBackward(self, arrays, tuple(edges))
        watched: list[tuple[Tensor | None, list[int], int, Any]] = []
        for i in self.watch_inputs:
            t = tensors[i]
            vc = t._version_counter()
            watched.append((t, vc, vc[0], None))
        watch_outputs = self.watch_outputs
        for nr, path in enumerate(self.paths):
            t = result
            for p in path:
                t = t[p]
            t._requires_grad = True
            t._grad_fn = node
            t._output_nr = nr
            if watch_outputs and nr in watch_outputs:
                watched.append((None, t._version_counter(), 0, self.placeholders[nr][1]))
        if watched:
            node._watched = watched
        return result

    def run_backward(self, arrays: tuple[Any, ...], grads: list[Any]) -> list[Any]:
        """The targets' gradient arrays from the outputs' gradients (None where the graph
        gives none). An output gradient that did not arrive is zeros; a target only such
        outputs reach gets None."""
        backward = self.backward or self._build_backward()
        n = len(grads)
        if n == self.nout and None not in grads:
            return backward(arrays, [g._data for g in grads])
        given = []
        arrived = set()
        for i, (_, shape, dtype) in enumerate(self.placeholders):
            g = grads[i] if i < n else None
            if g is None:
                given.append(self.backend.xp.zeros(shape, dtype=dtype))
            else:
                given.append(g._data)
                arrived.add(i)
        out = backward(arrays, given)
        return [a if self.needs[j] & arrived else None for j, a in enumerate(out)]

    def _build_forward(self) -> Callable[..., Any]:
        fwd = copy.copy(self.rec)
        fwd.instrs = self.rec.instrs[:self.nfwd]
        fn, text = _program.without_gc(_program.build, fwd, self.bindings, wrap, self.backend)
        self.forward = fn
        if self.entry is not None:
            self.entry.source = text
        return fn

    def _build_backward(self) -> Callable[..., Any]:
        fn = _program.without_gc(self._define_backward)
        self.backward = fn
        if self.entry is not None:
            self.entry.source += "\n" + fn.__source__
        return fn

    def _define_backward(self) -> Callable[..., Any]:
        src = _program._Source()
        body = src.lines
        if self.saved:
            body.append(", ".join(f"s{k}" for k in self.saved) + ", = S")
        body.append(", ".join(f"s{k}" for k, _, _ in self.placeholders) + ", = G")
        for ins in _backward_instructions(self.rec, self.nfwd, self.grads):
            line = _program._statement(src, ins)
            if line:
                body.append(line)
        body.append("return (" + "".join("None, " if k is None else f"s{k}, "
                                         for k in self.grads) + ")")
        return _program.define("backward", "S, G", body, src.consts)


def _backward_instructions(rec: Recording, nfwd: int, grads: list[int | None]) -> list[Any]:
    sub = copy.copy(rec)
    sub.instrs = rec.instrs[nfwd:]
    return _program.live_instructions(sub, {k for k in grads if k is not None})


# -- recording ----------------------------------------------------------------------------

def record(session: Session, result: Any, b: _program.Bindings,
           seq0: int) -> tuple[Any, str]:
    """``(TrainingProgram, "")`` for a training forward whose backward can be recorded
    (call it while the state still holds the recording's arrays, before ``restore_all``),
    else ``(b, TRAINING_FORWARD)`` (the key runs eagerly). ``seq0``: ``mark()`` taken
    before the call."""
    why = _why_not(session, result, b, seq0)
    if isinstance(why, str):
        log.debug("training forward not compiled: %s", why)
        return b, TRAINING_FORWARD
    return why, ""


def _why_not(session: Session, result: Any, b: _program.Bindings,
             seq0: int) -> TrainingProgram | str:
    rec, found = session.rec, session.found
    if _anomaly.enabled:
        return "anomaly mode is on"
    index = {id(t): i for i, t in enumerate(found.tensors)}
    template, reason = _output(result, index, {}, session, True)
    if reason:
        return reason
    paths: list[tuple[Any, ...]] = []
    outs: list[Tensor] = []
    _differentiable(template, result, (), paths, outs)
    if not outs:
        return "no differentiable output"
    walked = _walk(outs, found.tensors, seq0)
    if isinstance(walked, str):
        return walked
    targets, needs, frees, outside = walked
    if not targets:
        return "the graph reaches no tensor that requires grad"
    program = _record_backward(session, template, b, outs, targets, outside, seq0)
    if isinstance(program, str):
        return program
    program.paths, program.needs, program.frees = paths, needs, frees
    _watch(session, program, outs)
    return program


def _watch(session: Session, program: TrainingProgram, outs: list[Tensor]) -> None:
    """Which state tensors and outputs hold the arrays the backward reads (or arrays those
    view): a backward after an in-place change of one raises, as eager's would."""
    rec = session.rec
    roots = {rec.base.get(k, k) for k in program.saved}
    program.watch_inputs = sorted({i for i, k in session.inputs if k in roots})
    for nr, t in enumerate(outs):
        k = session._slot(t._data)
        if k is not None and rec.base.get(k, k) in roots:
            program.watch_outputs.append(nr)


def _differentiable(template: Any, value: Any, path: tuple[Any, ...],
                    paths: list[tuple[Any, ...]], outs: list[Tensor]) -> None:
    """The paths and tensors of the result's outputs that carry the call's graph."""
    cls = template.__class__
    if cls is _program.OutTensor:
        if template.expr is None and value._grad_fn is not None:
            paths.append(path)
            outs.append(value)
    elif cls in (tuple, list):
        for i, (t, v) in enumerate(zip(template, value)):
            _differentiable(t, v, path + (i,), paths, outs)
    elif cls is dict:
        for k, t in template.items():
            _differentiable(t, value[k], path + (k,), paths, outs)


def _walk(outs: list[Tensor], tensors: list[Tensor],
          seq0: int) -> tuple[list[int], list[frozenset[int]], bool, bool] | str:
    """The call's graph below ``outs``: the indexes of the state tensors its edges leave to
    (the node's edges), for each of them the outputs whose graph reaches it, whether eager
    frees saved values in it, and whether an edge leaves to a non-leaf input's graph; or
    why its backward cannot be replayed."""
    leaves = {id(t): i for i, t in enumerate(tensors)
              if t._requires_grad and t._grad_fn is None}
    inner = {(id(t._grad_fn), t._output_nr): i for i, t in enumerate(tensors)
             if t._grad_fn is not None}
    reached: dict[int, set[int]] = {}
    frees = outside = False
    for nr, t in enumerate(outs):
        if t._grad_fn._seq < seq0:
            return "an output carries a graph made before the call"
        seen: set[int] = set()
        todo: list[Any] = [t._grad_fn]
        while todo:
            node = todo.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if node._pre_hooks or node._post_hooks or node._tensor_pre_hooks \
                    or node._retains_grad:
                return "a hook or retain_grad on the call's graph"
            if isinstance(node, BackwardCFunction):
                return "a custom autograd.Function (its backward's Python cannot be replayed)"
            saved = node._saved
            if saved:
                frees = True
                if any(s.__class__ in _PACKED for s in saved):
                    return "saved-tensor hooks packed the graph's values"
            for edge in node._next:
                if edge is None:
                    continue
                child, k = edge if type(edge) is tuple else (edge, 0)
                if type(child) is AccumulateGrad:
                    i = leaves.get(id(child.variable))
                    if i is None:
                        return "the graph reaches a leaf the discovery did not find"
                elif child._seq < seq0:
                    i = inner.get((id(child), k))
                    if i is None:
                        return "the graph reaches a tensor the discovery did not find"
                    outside = True
                else:
                    todo.append(child)
                    continue
                reached.setdefault(i, set()).add(nr)
    targets = sorted(reached)
    return targets, [frozenset(reached[i]) for i in targets], frees, outside


def _record_backward(session: Session, template: Any, b: _program.Bindings,
                     outs: list[Tensor], targets: list[int], outside: bool,
                     seq0: int) -> TrainingProgram | str:
    """Run and record the engine's gradient of ``outs`` w.r.t. the targets."""
    from arraygrad.autograd.api import grad as _grad

    rec = session.rec
    nfwd, slots0 = len(rec.instrs), rec.nslots
    guards0, hoisted0, written0 = len(rec.guards), set(rec.hoisted), set(rec.written)
    placeholders: list[tuple[int, Any, Any]] = []
    grads_in: list[Tensor] = []
    for t in outs:
        real = t._data._a if t._data.__class__ is TracedArray else t._data
        k = rec.new_slot()
        traced = TracedArray(rec.backend.xp.ones(real.shape, dtype=real.dtype), k, rec)
        placeholders.append((k, real.shape, real.dtype))
        grads_in.append(wrap(traced, t._backend))
    broken: list[str] = []
    forward_break = rec.on_break
    saved_flags = (recording_flag.host_call, recording_flag.graph_break)
    runner = _engine.node_runner

    def outside_node(node: Any, grads: list[Any], apply: Any) -> Any:
        # a node of a non-leaf input's own graph (made before the call) leading to another
        # target (a tied weight): its work would become constants of the program
        if node._seq < seq0:
            raise _Outside
        return apply(node, grads) if runner is None else runner(node, grads, apply)

    def on_break(reason: str) -> None:  # the backward's program is lost, not the forward's
        broken.append(reason)
        rec.broken = reason  # the rest of the backward runs unrecorded

    rec.on_break = on_break
    recording_flag.host_call, recording_flag.graph_break = session._host_call, session._graph_break
    if outside:
        _engine.node_runner = outside_node
    saved_hooks = _hooks.install()
    current.rec = rec
    recording_flag.on = True
    try:
        captured = _grad(tuple(outs), tuple(session.found.tensors[i] for i in targets),
                         grad_outputs=tuple(grads_in), retain_graph=True, allow_unused=True)
    except _Outside:
        return "the recorded backward reaches into an input's own graph"
    finally:
        recording_flag.on = False
        current.rec = None
        _hooks.restore(saved_hooks)
        _engine.node_runner = runner
        recording_flag.host_call, recording_flag.graph_break = saved_flags
        rec.on_break = forward_break
        rec.broken = None
    if broken:
        return f"graph break in the backward: {broken[0]}"
    if len(rec.guards) != guards0 or rec.hoisted != hoisted0:
        return "the backward reads a value into Python"
    if (rec.written - written0) & set(range(slots0 + len(placeholders))):
        # a replay's saved arrays and incoming gradients (a broadcast view) are not its own
        return "the backward writes an array of the forward or an output gradient"
    backward = rec.instrs[nfwd:]
    for ins in backward:
        if ins.kind == "host" or has_live(ins.args) or has_live(tuple(ins.kwargs.values())):
            return "the backward reads live scalars or makes host calls"
    grads: list[int | None] = []
    for g in captured:
        if g is None:
            grads.append(None)
            continue
        slot = session._slot(g._data)
        if slot is None:
            return "a gradient was given an array the recording did not make"
        grads.append(slot)
    kept = _backward_instructions(rec, nfwd, grads)
    needed: set[int] = {k for k in grads if k is not None}
    for ins in kept:
        needed.update(ins.reads)
    saved = sorted(k for k in needed if k < slots0)
    b.output = (template, tuple(_program.OutArray(k) for k in saved))
    return TrainingProgram(rec, nfwd, b, targets, saved, placeholders, grads)

