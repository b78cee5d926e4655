"""The backward engine: an iterative walk of the graph in dependency order.

1. Count, for every node reachable from the roots, how many edges lead into it
   (an explicit stack, never recursion: a 100,000-op chain is fine).
2. Seed the roots' input buffers with the output gradients.
3. Pop ready nodes (all their inputs summed) from a heap, latest-created first
   (leaves' ``AccumulateGrad`` as soon as ready, as PyTorch does); run tensor
   hooks, ``retain_grad``, node pre-hooks, the node, node post-hooks; pass each
   gradient along its edge.
4. When every node has run, commit: accumulate into the leaves' ``.grad`` (with
   their post-accumulate hooks) and store retained grads; then release the
   saved values unless ``retain_graph``. An exception before that leaves every
   ``.grad`` and the graph untouched.

``autograd.grad`` runs the same walk with *captures*: gradients arriving at the
requested inputs are recorded instead of accumulated, and only nodes that lead
to an input are run.
"""

from __future__ import annotations

import heapq
import threading

from arraygrad.autograd import anomaly_mode
from arraygrad.autograd.anomaly_mode import state as _anomaly
from arraygrad.autograd.grad_mode import _state
from arraygrad.autograd.graph import FREED, FREED_MESSAGE, AccumulateGrad

__all__ = ["run_backward"]


def _add_grad(buffer: list, index: int, grad) -> None:
    old = buffer[index]
    buffer[index] = grad if old is None else old + grad


def _dependencies(roots) -> dict:
    """How many edges lead into each node below ``roots`` (roots start at 0)."""
    deps: dict = dict.fromkeys(roots, 0)
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


def _nodes_leading_to(roots, targets: set) -> set:
    """Nodes with an edge into a target or into such a node (iterative post-order).

    Only these must run for ``autograd.grad``: a target itself runs only if
    another target lies below it.
    """
    needed: set = set()
    done: set = set()
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


def _check_hook_result(node, nr, old, new, what: str):
    if new is None:
        return old
    if old is not None and tuple(new.shape) != tuple(old.shape):
        raise RuntimeError(
            f"{what} of {node.name()} changed the size of the gradient from "
            f"{list(old.shape)} to {list(new.shape)}")
    return new


def _run_tensor_hooks(node, grads: list) -> None:
    for nr, hooks in node._tensor_pre_hooks.items():
        if not hooks or grads[nr] is None:
            continue
        for hook in tuple(hooks.values()):
            grads[nr] = _check_hook_result(node, nr, grads[nr], hook(grads[nr]), "a tensor hook")


def _retained_grads(node, grads: list, retained: list) -> None:
    """Queue ``retain_grad`` writes for the outputs of ``node`` (committed at the end)."""
    for nr, ref in node._retains_grad.items():
        tensor = ref()
        g = grads[nr]
        if tensor is not None and g is not None:
            retained.append((tensor, g if _state.enabled else g.detach()))


def _materialize(node, grads: list) -> list:
    """Zeros for missing output gradients of a node that has several outputs."""
    from arraygrad.tensor import Tensor

    for i, g in enumerate(grads):
        if g is None:
            shape, dtype, backend = node._out_meta[i]
            xp = backend.xp
            grads[i] = Tensor._wrap(xp.zeros(shape, dtype=dtype), backend)
    return grads


node_runner = None
"""Set by an active profiler: ``node_runner(node, grads, apply)`` wraps each node's run."""


def _apply(node, grads):
    """Run one node (with anomaly mode's checks when it is on)."""
    if not _anomaly.enabled:
        return node._apply(grads)
    try:
        outs = node._apply(grads)
    except Exception as exc:
        anomaly_mode.annotate(node, exc)
        raise
    anomaly_mode.check_outputs(node, outs)
    return outs


def _run_node(node, grads: list) -> tuple:
    """Pre-hooks, the node itself (timed by an active profiler), post-hooks."""
    if node._pre_hooks:
        for hook in tuple(node._pre_hooks.values()):
            new = hook(tuple(grads))
            if new is not None:
                grads = [_check_hook_result(node, i, o, n, "a pre-hook")
                         for i, (o, n) in enumerate(zip(grads, new))]
    if node._freed:
        raise RuntimeError(FREED_MESSAGE)
    if len(grads) > 1 and None in grads and getattr(node, "materialize_grads", True):
        grads = _materialize(node, grads)
    if node_runner is not None:
        outs = node_runner(node, grads, _apply)
    else:
        outs = _apply(node, grads)
    if node._post_hooks:
        for hook in tuple(node._post_hooks.values()):
            new = hook(outs, tuple(grads))
            if new is not None:
                outs = tuple(new)
    return outs


_ACCUMULATED = object()
"""What ``_visit`` returns for a leaf's ``AccumulateGrad``: queued for the commit, no edges."""


def _visit(node, grads, captures, captured, reached, needed, targets, accumulate,
           accumulations, retained, record_executed):
    """The general handling of one ready node: tensor hooks, retained grads, captures for
    ``autograd.grad``, then the node (with its hooks, the profiler, anomaly checks).
    Returns the input gradients, None if the node did not run, or ``_ACCUMULATED``."""
    if node._tensor_pre_hooks:
        _run_tensor_hooks(node, grads)
    if node._retains_grad:
        _retained_grads(node, grads, retained)
    if captures is not None:
        for nr, g in enumerate(grads):
            slots = captures.get((node, nr))
            if slots:
                for i in slots:
                    captured[i] = g
                    reached[i] = True
    if needed is not None and not (
            node in needed or (accumulate and type(node) is AccumulateGrad and node in targets)):
        return None  # autograd.grad never accumulates; backward(inputs=...) only into inputs
    if all(g is None for g in grads):
        return None
    if type(node) is AccumulateGrad:
        accumulations.append((node, grads))
        return _ACCUMULATED
    outs = _run_node(node, grads)
    record_executed(node)
    return outs


_commit_lock = threading.Lock()
"""Serialises ``.grad`` writes, so concurrent backwards into shared leaves all count."""


def _commit(accumulations: list, retained: list) -> None:
    """Write the pass's results: leaves' ``.grad`` (with their hooks) and retained grads."""
    plain = node_runner is None and not _anomaly.enabled
    with _commit_lock:
        for node, grads in accumulations:
            if plain and node._pre_hooks is None and node._post_hooks is None:
                node._apply(grads)  # queued only with a gradient
            else:
                _run_node(node, grads)
        for tensor, g in retained:
            tensor._grad = g if tensor._grad is None else tensor._grad + g


def run_backward(roots, root_grads, *, retain_graph: bool, create_graph: bool,
                 inputs=None, accumulate: bool = True, allow_unused: bool = False):
    """Run backward from ``roots`` (gradient edges) seeded with ``root_grads``.

    ``inputs``: gradient edges whose arriving gradients are captured and
    returned, for ``autograd.grad`` (``accumulate=False``: no ``.grad`` is
    touched) or ``backward(inputs=...)`` (only those leaves accumulate; the
    caller stores the captures of non-leaf inputs).

    The pass is all-or-nothing: ``.grad`` writes are committed, and saved values
    released, only once every node has run, so an exception in a hook or a
    custom backward leaves every tensor, gradient and the graph as they were.
    """
    root_nodes = []
    for node, _ in roots:
        if node not in root_nodes:
            root_nodes.append(node)
    deps = _dependencies(root_nodes)

    captures = None
    needed = targets = None
    if inputs is not None:
        targets = {edge[0] for edge in inputs}
        needed = _nodes_leading_to(root_nodes, targets)
        captures = {}
        for i, edge in enumerate(inputs):
            captures.setdefault(edge, []).append(i)
    captured = [None] * (len(inputs) if inputs is not None else 0)
    reached = [False] * len(captured)

    buffers: dict = {}
    for (node, nr), grad in zip(roots, root_grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * max(node._n_outputs, nr + 1)
        _add_grad(buf, nr, grad)

    heap = []
    counter = 0
    for node in root_nodes:
        if deps.get(node, 0) == 0:
            heap.append((-node._seq, counter, node))
            counter += 1
    heapq.heapify(heap)

    # nodes without hooks, retained grads or captures, outside a profiler and anomaly
    # mode, take the lean branch of the loop below; the rest the general one
    plain = node_runner is None and not _anomaly.enabled and captures is None
    executed: list = []
    accumulations: list = []
    retained: list = []
    heappop, heappush = heapq.heappop, heapq.heappush  # locals: this loop is the hot path
    pop_buffer, get_buffer = buffers.pop, buffers.get
    record_executed = executed.append
    prev_mode = _state.enabled
    _state.enabled = create_graph
    follow = None  # the only ready node, run next without a heap round trip
    try:
        while True:
            if follow is not None:
                node, follow = follow, None
            elif heap:
                node = heappop(heap)[2]
            else:
                break
            grads = pop_buffer(node, None) or [None] * node._n_outputs
            if plain and not node._hooked:
                if grads[0] is None and (len(grads) == 1 or all(g is None for g in grads)):
                    outs = None
                else:
                    if node._saved is FREED:
                        raise RuntimeError(FREED_MESSAGE)
                    if len(grads) > 1 and None in grads and getattr(node, "materialize_grads", True):
                        grads = _materialize(node, grads)
                    outs = node._apply(grads)
                    record_executed(node)
            elif plain and type(node) is AccumulateGrad and not node.variable._hooks:
                if grads[0] is not None:  # a leaf without tensor hooks: to the commit
                    accumulations.append((node, grads))
                continue
            else:
                outs = _visit(node, grads, captures, captured, reached, needed, targets,
                              accumulate, accumulations, retained, record_executed)
                if outs is _ACCUMULATED:
                    continue
            became_ready = None
            for i, edge in enumerate(node._next):
                if edge is None:
                    continue
                if type(edge) is tuple:
                    child, nr = edge
                else:  # the compact form of (node, 0)
                    child, nr = edge, 0
                if outs is not None:
                    g = outs[i]
                    if g is not None:
                        buf = get_buffer(child)
                        if buf is None:
                            buf = buffers[child] = [None] * (child._n_outputs if nr == 0 else
                                                             max(child._n_outputs, nr + 1))
                            buf[nr] = g
                        else:
                            old = buf[nr]
                            buf[nr] = g if old is None else old + g
                left = deps[child] - 1
                deps[child] = left
                if left == 0:
                    if became_ready is None:
                        became_ready = child
                    else:
                        counter += 1
                        heappush(heap, (-child._seq, counter, child))
            if became_ready is not None:
                if heap:  # several ready: the heap orders them
                    counter += 1
                    heappush(heap, (-became_ready._seq, counter, became_ready))
                else:
                    follow = became_ready
        if inputs is not None and not accumulate and not allow_unused and not all(reached):
            raise RuntimeError(
                "One of the differentiated Tensors appears to not have been used in the "
                "graph. Set allow_unused=True if this is the desired behavior.")
        # the loop's last locals may still hold a leaf's gradient: drop them, so the commit
        # can adopt an unshared gradient instead of copying it
        outs = grads = g = None
        _commit(accumulations, retained)
    finally:
        _state.enabled = prev_mode
    if not retain_graph:
        for node in executed:
            node._release()
    return captured
