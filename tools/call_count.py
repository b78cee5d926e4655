"""Count the Python calls (and the arraygrad files they run in) of small eager workloads.

A count is deterministic where a clock is not: it measures the interpreter work of the
eager hot path (issue 27's targets). Each workload is run twice first (caches, lazily built
state), then once under ``sys.setprofile``, counting ``call`` events of Python functions
(calls into C are not counted). ``--lines`` counts the source lines run instead
(``sys.settrace`` line events): finer than calls, it sees work trimmed inside a function.

    .venv/bin/python tools/call_count.py            # every workload
    .venv/bin/python tools/call_count.py --by-function sum_backward
    .venv/bin/python tools/call_count.py --lines --by-function tensor_chain

``tests/autograd/test_call_counts.py`` holds the targets.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
from typing import Any, Callable

import arraygrad as ag
import arraygrad.nn.functional as F

# a workload: ``(prepare, counted)``; ``counted(prepare())`` is the work counted
Workload = tuple[Callable[[], Any], Callable[[Any], Any]]


def _sum_backward() -> Workload:
    """The backward of ``y = x * w; y.sum()``, (4,) float32 tensors, x requiring grad."""
    x = ag.tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True)
    w = ag.tensor([1.0, 2.0, 3.0, 4.0])

    def prepare() -> Any:
        x.grad = None
        return (x * w).sum()

    return prepare, lambda loss: loss.backward()


def _mlp_step() -> Workload:
    """One SGD step of a raw-matmul MLP (``h @ W + b``, ``F.relu``, ``F.cross_entropy``),
    64-64-64-10, batch 32: issue 27's raw-matmul MLP."""
    gen = ag.Generator().manual_seed(0)
    sizes = (64, 64, 64, 10)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        params.append((ag.randn(fan_in, fan_out, generator=gen) * fan_in ** -0.5).requires_grad_())
        params.append(ag.zeros(fan_out, requires_grad=True))
    x = ag.randn(32, sizes[0], generator=gen)
    y = ag.randint(0, sizes[-1], (32,), generator=gen)
    opt = ag.optim.SGD(params, lr=0.01)

    def step(_: Any) -> Any:
        opt.zero_grad()
        h = x
        for i in range(0, len(params), 2):
            h = h @ params[i] + params[i + 1]
            if i + 2 < len(params):
                h = F.relu(h)
        loss = F.cross_entropy(h, y)
        loss.backward()
        opt.step()
        return loss

    return lambda: None, step


def _chain(step: Callable[[Any, Any, int], Any]) -> Workload:
    """Ten ``step(y, x, i)`` links from a (4,) float32 leaf x that requires grad, and the
    backward of the sum: ``make bench``'s chains, shortened."""
    x = ag.tensor([0.1, 0.2, 0.3, 0.4], requires_grad=True)

    def run(_: Any) -> Any:
        x.grad = None
        y = x
        for i in range(10):
            y = step(y, x, i)
        y.sum().backward()
        return x.grad

    return lambda: None, run


def _tensor_chain() -> Workload:
    """``tensor_chain``'s links: ``y + x``, ``y * x``, ``y.tanh()`` (30 ops)."""
    return _chain(lambda y, x, i: ((y + x) * x).tanh())


def _scalar_chain() -> Workload:
    """``overhead_chain``'s links: ``y + 1.0``, then ``y * 0.5`` or ``y.tanh()`` (20 ops)."""
    return _chain(lambda y, x, i: (y + 1.0) * 0.5 if i % 2 else (y + 1.0).tanh())


WORKLOADS: dict[str, Callable[[], Workload]] = {
    "sum_backward": _sum_backward,
    "mlp_step": _mlp_step,
    "tensor_chain": _tensor_chain,
    "scalar_chain": _scalar_chain,
}

_PACKAGE = os.path.dirname(os.path.abspath(ag.__file__))


def _observed(workload: Workload, install: Callable[[Any], Any], event: str
              ) -> collections.Counter:
    """The ``event``s (``"call"`` or ``"line"``) of one ``counted(prepare())`` after two
    warm-up runs, by function, seen by the hook ``install`` sets (``sys.setprofile`` or
    ``sys.settrace``). ``counted``'s own frame is not counted; what it calls is."""
    prepare, counted = workload
    for _ in range(2):
        counted(prepare())
    arg = prepare()
    by_function: collections.Counter = collections.Counter()
    own = counted.__code__

    def observe(frame: Any, seen: str, _: Any) -> Any:
        code = frame.f_code
        if code is own:
            return None  # (a tracer's None: not this frame's lines; its callees still seen)
        if seen == event:
            by_function[(code.co_filename, code.co_firstlineno, code.co_name)] += 1
        return observe

    install(observe)
    try:
        counted(arg)
    finally:
        install(None)
    return by_function


def count(workload: Workload) -> tuple[int, collections.Counter, set[str]]:
    """``(calls, calls by function, arraygrad files run)`` of one ``counted(prepare())`` after
    two warm-up runs. The call of ``counted`` itself is not counted."""
    by_function = _observed(workload, sys.setprofile, "call")
    files = {f for (f, _, _) in by_function if f.startswith(_PACKAGE)}
    return sum(by_function.values()), by_function, files


def count_lines(workload: Workload) -> tuple[int, collections.Counter]:
    """``(lines, lines by function)``: the source lines one ``counted(prepare())`` runs after
    two warm-up runs (``count``'s protocol), ``counted``'s own lines not counted."""
    by_function = _observed(workload, sys.settrace, "line")
    return sum(by_function.values()), by_function


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", choices=[*WORKLOADS, []], help="workloads (all)")
    parser.add_argument("--by-function", action="store_true", help="list the counts by function")
    parser.add_argument("--lines", action="store_true", help="count source lines run, not calls")
    args = parser.parse_args()
    for name in args.names or WORKLOADS:
        if args.lines:
            total, by_function = count_lines(WORKLOADS[name]())
            print(f"{name}: {total} source lines run")
        else:
            total, by_function, files = count(WORKLOADS[name]())
            print(f"{name}: {total} Python calls in {len(files)} arraygrad files")
        if args.by_function:
            for (f, line, fn), n in by_function.most_common():
                print(f"  {n:5d}  {os.path.relpath(f, _PACKAGE)}:{line} {fn}")

if __name__ == "__main__":
    main()
