"""The backward engine: an iterative walk of the graph in dependency order.

1. Count, for every node reachable from the roots, how many edges lead into it
   (an explicit stack, never recursion: a 100,000-op chain is fine).
2. Seed the roots' input buffers with the output gradients.
3. Pop ready nodes (all their inputs summed) from a heap, latest-created first
   (leaves' ``AccumulateGrad`` as soon as ready, as PyTorch does), run each the
   one way every node runs, ``node._run(grads, task)``, and pass each gradient
   it returns along its edge. Hooks are not the loop's business: a node's first
   hook wraps its run (``node_hooks``), which then runs tensor hooks,
   ``retain_grad``, node pre-hooks, the node, node post-hooks. A leaf's
   ``AccumulateGrad`` defers its gradient to the commit. In a plain pass (no
   captures, no profiler or anomaly mode, no ``create_graph``, fast paths on)
   the gradients between rule nodes are bare native arrays (``BareGradients``):
   a rule's node gets ``node._run(grads, task, backend)``, every other node, and
   every hook, tensors.
4. When every node has run, commit: accumulate into the leaves' ``.grad`` (with
   their hooks) and store retained grads; then release the saved values unless
   ``retain_graph``. An exception before that leaves every ``.grad`` and the
   graph untouched.
5. Run the final callbacks queued during the pass (``queue_callback``).

``autograd.grad`` runs the same walk with *captures*: gradients arriving at the
requested inputs are recorded instead of accumulated, and only nodes that lead
to an input are run. Captures, the profiler and anomaly mode are per-pass
concerns: such a pass runs each node through ``GraphTask.run_node``, which
wraps the same ``_run``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import heapq
import operator
import threading
from types import MethodType as _BoundMethod
from collections.abc import Callable, Container

from arraygrad.allocation_errors import allocating
from arraygrad.autograd import anomaly_mode, multi_grad_hook
from arraygrad.autograd.anomaly_mode import state as _anomaly
from arraygrad.autograd.grad_mode import _state
from arraygrad.autograd.graph import AccumulateGrad
from arraygrad.autograd.node_hooks import NodeHooks

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor
    from arraygrad.autograd.graph import Node

__all__ = ["run_backward", "queue_callback", "ExecutionEngine", "execution_engine", "GraphTask",
           "BareGradients", "bare_gradients"]


def _add_grad(buffer: list[Any], index: int, grad: Tensor) -> None:
    old = buffer[index]
    buffer[index] = grad if old is None else old + grad


def _dependencies(roots: Any) -> dict[Any, Any]:
    """How many edges lead into each node below ``roots`` (roots start at 0)."""
    deps: dict[Any, Any] = dict.fromkeys(roots, 0)
    stack = list(roots)
    get = deps.get
    while stack:
        node = stack.pop()
        for edge in node._next:
            if edge is None:
                continue
            child = edge[0] if type(edge) is tuple else edge
            n = get(child)
            if n is None:  # first visit: count it and walk below it
                deps[child] = 1
                stack.append(child)
            else:
                deps[child] = n + 1
    return deps


def _nodes_leading_to(roots: Any, targets: set[Any]) -> set[Any]:
    """Nodes with an edge into a target or into such a node (iterative post-order).

    Only these must run for ``autograd.grad``: a target itself runs only if
    another target lies below it.
    """
    needed: set[Any] = set()
    done: set[Any] = set()
    stack = [(n, False) for n in roots]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            for edge in node._next:
                if edge is None:
                    continue
                child = edge[0] if type(edge) is tuple else edge
                if child in targets or child in needed:
                    needed.add(node)
                    break
            done.add(node)
            continue
        if node in done:
            continue
        stack.append((node, True))
        for edge in node._next:
            if edge is None:
                continue
            child = edge[0] if type(edge) is tuple else edge
            if child not in done:
                stack.append((child, False))
    return needed


grad_sum: Callable[[Any, Any], Any] = operator.add
"""How the engine sums two gradients arriving at one input: ``a + b``, or the fast path's
``ops.fast.gradient_sum`` (handed in when ``ops.fast`` loads: the engine sits below the ops)."""


class BareGradients:
    """How a plain pass hands gradients on as bare native arrays, handed in by the recorder
    (``ops.rule``) when it loads (the engine sits below the ops); until then, and with fast
    paths off, gradients are tensors from node to node.

    A rule's node (``_raw_ok``) takes and returns its backend's arrays (``RuleNode._run``),
    which saves a tensor around every gradient and the tensor-level sum of two; any other
    node (a leaf's accumulation, a custom Function) and a node with hooks (its ``_run`` is
    then the hooks' wrapper) gets tensors.
    """

    backend: Callable[[Any], Any] | None = None
    """``backend(root_grads)``: the backend whose gradients pass bare in a pass starting
    now, or None (fast paths off, a forward-AD level open, roots of another kind)."""
    sum: Callable[[Any, Any, Any], Any]
    """``sum(a, b, backend)``: two gradients (tensors or bare arrays of ``backend``) summed."""
    tensors: Callable[[list[Any], Any], list[Any]]
    """``tensors(grads, backend)``: the bare arrays among ``grads`` wrapped as tensors."""


bare_gradients = BareGradients()


node_runner: Callable[..., Any] | None = None
"""Set by an active profiler: ``node_runner(node, grads, apply)`` wraps each node's run
(``apply(node, grads)`` runs the node and returns the gradients for its edges)."""


def _anomaly_checked(node: Node, grads: list[Any], apply: Any) -> Any:
    """Anomaly mode's wrapper of a node's run: an error carries the node's forward
    traceback, and NaN in the gradients it returns raises."""
    try:
        outs = apply(node, grads)
    except Exception as exc:
        anomaly_mode.annotate(node, exc)
        raise
    if outs:
        anomaly_mode.check_outputs(node, outs)
    return outs


def _instrument() -> Any:
    """What every node of a pass starting now runs inside: the profiler's wrapper, anomaly
    mode's, both (the profiler's outside), or None."""
    runner = node_runner
    if not _anomaly.enabled:
        return runner
    if runner is None:
        return _anomaly_checked
    return lambda node, grads, apply: runner(
        node, grads, lambda n, g: _anomaly_checked(n, g, apply))


def _accumulate(node: Node, grads: list[Any]) -> Any:
    """A deferred leaf's accumulation (its node's ``_apply``, hooks included)."""
    return node._apply(grads)


class GraphTask:
    """One backward pass's state; every node's run gets it.

    ``accumulations`` (gradients ``AccumulateGrad._run`` deferred) and
    ``retained`` (``retain_grad`` writes) are what the commit writes;
    ``callbacks`` are the final callbacks queued during the pass. For
    ``autograd.grad`` and ``backward(inputs=...)``, ``captured[i]`` receives
    the gradient arriving at the edge ``inputs[i]``.
    """

    __slots__ = ("accumulations", "retained", "callbacks", "instrument", "captures", "captured",
                 "needed", "targets", "accumulate", "reachable")

    def __init__(self, root_nodes: list[Any], inputs: Any, accumulate: bool) -> None:
        self.accumulations: list[Any] = []
        self.retained: list[Any] = []
        self.callbacks: list[Any] = []
        # tested here first so that a plain pass makes no call for it
        self.instrument = None if node_runner is None and not _anomaly.enabled else _instrument()
        self.accumulate = accumulate
        self.captures: dict[Any, Any] | None = None  # {(node, output_nr): indices into captured}
        self.targets: Container = ()  # the inputs' nodes
        self.needed: Container = ()  # the nodes that lead to a target: only these run
        self.reachable: Container = ()  # every node below the roots (``will_execute``)
        self.captured: list[Any] = [None] * (len(inputs) if inputs is not None else 0)
        if inputs is not None:
            self.targets = targets = {edge[0] for edge in inputs}
            self.needed = _nodes_leading_to(root_nodes, targets)
            captures: dict[Any, Any] = {}
            for i, edge in enumerate(inputs):
                captures.setdefault(edge, []).append(i)
            self.captures = captures

    def run_node(self, node: Node, grads: list[Any]) -> Any:
        """Run ``node`` in a pass that captures gradients or is instrumented; a plain pass
        calls ``node._run`` itself. The capture sees the gradient after the tensor hooks
        and ``retain_grad`` of a hooked node, and before the node runs."""
        run = node._run
        if self.captures is not None:
            if isinstance(run, NodeHooks):
                grads = run.arrive(grads, self)
                run = run.execute
            self._capture(node, grads)
            # autograd.grad never accumulates; backward(inputs=...) only into its inputs
            if not (node in self.needed or (
                    self.accumulate and type(node) is AccumulateGrad and node in self.targets)):
                return None
        instrument = self.instrument
        if instrument is None or type(node) is AccumulateGrad:  # a leaf's work is at the commit
            return run(grads, self)
        return instrument(node, grads, lambda _node, g: run(g, self))

    def _capture(self, node: Node, grads: list[Any]) -> None:
        captures: dict[Any, Any] = self.captures or {}
        for nr, g in enumerate(grads):
            slots = captures.get((node, nr))
            if slots:
                for i in slots:
                    self.captured[i] = g


class _Local(threading.local):
    """Per thread: ``tasks``, the running passes, innermost last (a hook may run a backward)."""

    def __init__(self) -> None:
        self.tasks: list[Any] = []


_local = _Local()


def queue_callback(callback: Callable[[], object]) -> None:
    """Run ``callback()`` at the end of the backward pass now running on this thread.

    PyTorch's ``Variable._execution_engine.queue_callback``: a hook (or a node)
    queues work that must wait until the whole pass is done, as
    ``DistributedDataParallel`` waits for its all-reduces. Callbacks run in the
    order queued, after every node ran and ``.grad`` was written, in the pass's
    grad mode (``create_graph``, as in PyTorch); one may queue more, which run
    after it. Each pass has its own list: a backward run inside a hook keeps its
    callbacks to itself. An exception in a callback propagates out of
    ``backward`` (``.grad`` is already written) and the callbacks after it do not
    run. Outside a backward pass this raises RuntimeError.

    >>> def hook(grad):
    ...     queue_callback(lambda: print("backward done"))
    """
    tasks = _local.tasks
    if not tasks:
        # PyTorch's words (2.x), without "the"
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    if not callable(callback):
        raise TypeError(f"queue_callback: expected a callable, got {type(callback).__name__}")
    tasks[-1].callbacks.append(callback)


class ExecutionEngine:
    """The autograd engine's handle, as PyTorch's ``Variable._execution_engine``."""

    @staticmethod
    def queue_callback(callback: Callable[[], object]) -> None:
        """Run ``callback()`` at the end of the running backward pass (see ``queue_callback``)."""
        queue_callback(callback)


execution_engine = ExecutionEngine()
"""The one ``ExecutionEngine``: ``arraygrad.autograd.Variable._execution_engine``."""


_commit_lock = threading.Lock()
"""Serialises ``.grad`` writes, so concurrent backwards into shared leaves all count."""


def current_task() -> GraphTask | None:
    """The backward pass running on this thread (the innermost), or None."""
    tasks = _local.tasks
    return tasks[-1] if tasks else None


def will_execute(task: GraphTask, node: Any) -> bool:
    """Whether ``node`` runs in ``task`` (PyTorch's ``_will_engine_execute_node``): it is
    below the roots and, when the pass computes gradients for given ``inputs``, leads to
    one of them or is one."""
    if node not in task.reachable:
        return False
    return task.captures is None or node in task.needed or node in task.targets


multi_grad_hook.engine_queries.current_task = current_task
multi_grad_hook.engine_queries.will_execute = will_execute


def _commit(task: GraphTask) -> None:
    """Write the pass's results: leaves' ``.grad`` (with their hooks) and retained grads."""
    instrument = task.instrument
    with _commit_lock:
        for node, grads in task.accumulations:  # queued only with a gradient
            if instrument is None:
                node._apply(grads)
            else:
                instrument(node, grads, _accumulate)
        for tensor, g in task.retained:
            tensor._grad = g if tensor._grad is None else tensor._grad + g


@allocating("backward")
def run_backward(roots: Any, root_grads: Any, *, retain_graph: bool, create_graph: bool,
                 inputs: Any = None, accumulate: bool = True, allow_unused: bool = False,
                 input_tensors: Any = None) -> Any:
    """Run backward from ``roots`` (gradient edges) seeded with ``root_grads``.

    ``inputs``: gradient edges whose arriving gradients are captured and
    returned, for ``autograd.grad`` (``accumulate=False``: no ``.grad`` is
    touched) or ``backward(inputs=...)`` (only those leaves accumulate; pass the
    tensors as ``input_tensors`` and the non-leaf ones get the captured gradient
    added to their ``.grad`` with the commit).

    The pass is all-or-nothing: ``.grad`` writes are committed, and saved values
    released, only once every node has run, so an exception in a hook or a
    custom backward leaves every tensor, gradient and the graph as they were.
    Then the callbacks queued with ``queue_callback`` run. Everything runs in
    grad mode ``create_graph``, the callbacks included (as in PyTorch).
    """
    root_nodes = []
    for node, _ in roots:
        if node not in root_nodes:
            root_nodes.append(node)
    deps = _dependencies(root_nodes)
    task = GraphTask(root_nodes, inputs, accumulate)
    task.reachable = deps  # its keys: the counts change as the pass runs, the keys do not
    running = _local.tasks
    running.append(task)
    prev_mode = _state.enabled
    _state.enabled = create_graph
    try:
        executed = _walk(task, roots, root_grads, root_nodes, deps)
        # every node below the roots was popped, so an input is unused exactly when its node
        # is not below them
        if inputs is not None and not accumulate and not allow_unused and not all(
                edge[0] in deps for edge in inputs):
            raise RuntimeError(
                "One of the differentiated Tensors appears to not have been used in the "
                "graph. Set allow_unused=True if this is the desired behavior.")
        if input_tensors is not None:  # backward(inputs=...): non-leaf inputs, like retain_grad
            for t, g in zip(input_tensors, task.captured):
                if t is not None and t._grad_fn is not None and g is not None:  # None: an edge
                    task.retained.append((t, g if create_graph else g.detach()))
            g = None  # no reference of ours may keep the commit from adopting a gradient
        _commit(task)
        if not retain_graph:
            for node in executed:
                if node._saved:  # every ``_release`` is a no-op on a node that saved nothing
                    node._release()
        for callback in task.callbacks:  # a list iterator also reaches those queued meanwhile
            callback()
    finally:
        _state.enabled = prev_mode
        running.pop()
    return task.captured


def _walk(task: GraphTask, roots: Any, root_grads: Any, root_nodes: list[Any], deps: dict[Any, Any]) -> list[Any]:
    """Run every node below ``roots`` in dependency order; the nodes that ran, in order.

    ``buffers`` holds the summed gradients of the nodes still waiting for an input; a
    ready node carries its own (in its heap entry, or as ``follow``), so a node with
    one input never enters ``buffers``. Its locals die with it, so none of them keeps
    a gradient alive into the commit.
    """
    buffers: dict[Any, Any] = {}
    for (node, nr), grad in zip(roots, root_grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * max(node._n_outputs, nr + 1)
        _add_grad(buf, nr, grad)

    heap = []
    counter = 0
    for node in root_nodes:
        if deps[node] == 0:  # not below another root
            heap.append((-node._seq, counter, node, buffers.pop(node)))
            counter += 1
    heapq.heapify(heap)

    # captures and instrumentation are per pass: such a pass runs every node through
    # the task, a plain one calls each node's own run
    intercept = None
    if task.captures is not None or task.instrument is not None:
        intercept = task.run_node
    # a plain pass (no captures, no instrument, no create_graph) hands gradients on bare
    bare = bare_gradients
    raw = None if intercept is not None or _state.enabled or bare.backend is None else \
        bare.backend(root_grads)
    if raw is not None:
        bare_sum, as_tensors = bare.sum, bare.tensors
    executed: list[Any] = []
    heappop, heappush = heapq.heappop, heapq.heappush  # locals: this loop is the hot path
    pop_buffer, get_buffer = buffers.pop, buffers.get
    record_executed = executed.append
    follow = follow_grads = None  # the only ready node, run next without a heap round trip
    while True:
        if follow is not None:
            node, grads, follow = follow, follow_grads, None
        elif heap:
            _, _, node, grads = heappop(heap)
        else:
            break
        if grads is None:  # no gradient reached it: it does not run
            outs = None
        elif intercept is None:
            if raw is None:
                outs = node._run(grads, task)
            else:
                run = node._run
                # a rule's node's own run takes bare arrays; a hooks' wrapper (not a bound
                # method) and every other node, tensors
                outs = run(grads, task, raw) if node._raw_ok and type(run) is _BoundMethod \
                    else run(as_tensors(grads, raw), task)
        else:
            outs = intercept(node, grads)
        if outs is not None:
            record_executed(node)
        became_ready = None
        for i, edge in enumerate(node._next):
            if edge is None:
                continue
            if type(edge) is tuple:
                child, nr = edge
            else:  # the compact form of (node, 0)
                child, nr = edge, 0
            left = deps[child] - 1
            deps[child] = left
            # a ready child takes its buffer along; a waiting one keeps it in `buffers`
            buf = get_buffer(child) if left else pop_buffer(child, None)
            if outs is not None:
                g = outs[i]
                if g is not None:
                    if buf is None:
                        buf = [None] * (child._n_outputs if nr == 0 else
                                        max(child._n_outputs, nr + 1))
                        buf[nr] = g
                        if left:
                            buffers[child] = buf
                    else:
                        old = buf[nr]
                        buf[nr] = g if old is None else (
                            grad_sum(old, g) if raw is None else bare_sum(old, g, raw))
            if left:
                continue
            if became_ready is None:
                became_ready, ready_grads = child, buf
            else:
                counter += 1
                heappush(heap, (-child._seq, counter, child, buf))
        if became_ready is not None:
            if heap:  # several ready: the heap orders them
                counter += 1
                heappush(heap, (-became_ready._seq, counter, became_ready, ready_grads))
            else:
                follow, follow_grads = became_ready, ready_grads
    return executed
