"""The floor of a pure-Python recorder on ``make bench``'s ``tensor_chain`` (issue 27).

``tensor_chain`` is ``y + x``, ``y * x``, ``y.tanh()`` on a (4,) float32 leaf, 198 ops and the
backward of their sum. Its target is 0.8x PyTorch's time. Here the chain runs three ways,
interleaved in one process on one thread:

* ``floor``: a recorder with nothing but the arithmetic. A tensor is an array and a node.
  A node is its edges and what it saved. The backward is a heap walk by creation order, with
  dependency counts.
* ``arraygrad``.
* ``torch``, where installed.

The floor has none of the semantics a user relies on. It has no version counters, hooks,
views, dtype or broadcast handling, forward mode, anomaly mode, retain_graph or error checks.
So its time bounds from below what any Python recorder can reach on NumPy. Comparing it with
``arraygrad`` prices those semantics per op. The floor's gradient is checked against
arraygrad's.

    .venv/bin/python benchmarks/recorder_floor.py [--rounds N]
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import os
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from one_thread import pin_one_thread  # noqa: E402

if __name__ == "__main__":
    pin_one_thread()  # before NumPy loads its BLAS

import numpy as np  # noqa: E402

from workloads.chain import TRIPLES, _tensor_framework as tensor_run  # noqa: E402

_X0 = np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float32)
_ADD, _MUL, _TANH, _SUM = range(4)
_sequence = itertools.count()


class Sink:
    """A leaf's gradient accumulator."""

    __slots__ = ("leaf", "seq")

    def __init__(self, leaf: FloorTensor) -> None:
        self.leaf, self.seq = leaf, -1


class FloorNode:
    """One recorded op: its kind, its edges, what its backward reads."""

    __slots__ = ("kind", "edges", "saved", "seq")
    saved: Any

    def __init__(self, kind: int, edges: tuple, saved: Any) -> None:
        self.kind, self.edges, self.saved, self.seq = kind, edges, saved, next(_sequence)


class FloorTensor:
    """An array that records ``+``, ``*``, ``tanh`` and ``sum`` when it needs a gradient."""

    __slots__ = ("data", "node", "needs_grad", "grad", "sink")
    node: FloorNode | None
    sink: Sink | None
    grad: np.ndarray | None

    def __init__(self, data: np.ndarray, needs_grad: bool = False) -> None:
        self.data, self.node, self.needs_grad, self.grad, self.sink = (
            data, None, needs_grad, None, None)

    def _edge(self) -> object:
        if self.node is not None:
            return self.node
        if self.sink is None:
            self.sink = Sink(self)
        return self.sink

    def _result(self, data: np.ndarray, kind: int, operands: tuple, saved: Any
                ) -> FloorTensor:
        out = FloorTensor(data)
        if any(t.needs_grad for t in operands):
            out.node = FloorNode(kind, tuple(t._edge() if t.needs_grad else None
                                             for t in operands), saved)
            out.needs_grad = True
        return out

    def __add__(self, other: FloorTensor) -> FloorTensor:
        return self._result(self.data + other.data, _ADD, (self, other), None)

    def __mul__(self, other: FloorTensor) -> FloorTensor:
        return self._result(self.data * other.data, _MUL, (self, other),
                            (self.data, other.data))

    def tanh(self) -> FloorTensor:
        data = np.tanh(self.data)
        return self._result(data, _TANH, (self,), data)

    def sum(self) -> FloorTensor:
        return self._result(self.data.sum(), _SUM, (self,), self.data.shape)

    def backward(self) -> None:
        """Every node below this scalar's, in reverse creation order; leaves' ``grad`` summed."""
        root = self.node
        assert root is not None, "backward of a result that records nothing"
        counts: dict = {}
        stack: list = [root]
        seen = {root}
        while stack:
            node = stack.pop()
            if type(node) is Sink:
                continue
            for child in node.edges:
                if child is not None:
                    counts[child] = counts.get(child, 0) + 1
                    if child not in seen:
                        seen.add(child)
                        stack.append(child)
        waiting: dict = {}
        heap = [(-root.seq, 0, root, np.ones((), self.data.dtype))]
        while heap:
            _, _, node, g = heapq.heappop(heap)
            if type(node) is Sink:
                leaf = node.leaf
                leaf.grad = g if leaf.grad is None else leaf.grad + g
                continue
            kind = node.kind
            if kind == _ADD:
                grads: tuple = (g, g)
            elif kind == _MUL:
                a, b = node.saved
                grads = (g * b, g * a)
            elif kind == _TANH:
                grads = (g * (1 - node.saved * node.saved),)
            else:
                grads = (np.broadcast_to(g, node.saved),)
            for child, gi in zip(node.edges, grads):
                if child is None:
                    continue
                old = waiting.get(child)
                waiting[child] = gi if old is None else old + gi
                counts[child] -= 1
                if not counts[child]:
                    heapq.heappush(heap, (-child.seq, id(child), child, waiting.pop(child)))


class FloorLib:
    """The floor as ``make bench``'s chain meets a framework: ``tensor(data, requires_grad)``."""

    @staticmethod
    def tensor(data: np.ndarray, requires_grad: bool = False) -> FloorTensor:
        return FloorTensor(data, requires_grad)


def _runs() -> dict:
    """Each framework's ``tensor_chain`` run (the workload's own), returning ``[x.grad]``."""
    import arraygrad

    found = {"floor": tensor_run(FloorLib, _X0), "arraygrad": tensor_run(arraygrad, _X0)}
    try:
        import torch
    except ImportError:
        return found
    torch.set_num_threads(1)
    found["torch"] = tensor_run(torch, _X0)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300, help="interleaved rounds")
    args = parser.parse_args()
    runs = _runs()
    floor_grad = runs["floor"]()[0]
    ours = runs["arraygrad"]()[0].numpy()
    same = np.allclose(floor_grad, ours, rtol=1e-5, atol=1e-7)
    times: dict = {name: [] for name in runs}
    for _ in range(args.rounds):
        for name, run in runs.items():
            t0 = time.perf_counter()
            run()
            times[name].append((time.perf_counter() - t0) * 1e6 / (3 * TRIPLES))
    medians = {name: sorted(ts)[len(ts) // 2] for name, ts in times.items()}
    base = medians.get("torch")
    for name, us in medians.items():
        ratio = "" if base is None else f"  {us / base:5.2f}x torch"
        print(f"{name:10s} {us:7.2f} us/op{ratio}")
    print(f"floor's gradient {'equals' if same else 'DIFFERS FROM'} arraygrad's")


if __name__ == "__main__":
    main()
