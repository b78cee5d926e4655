"""``step_memory``: the peak RSS growth of one training step of each workload ``make bench``
adds for issue 27, for arraygrad and PyTorch, each step in a fresh process (as ``deep_chain``:
tracemalloc and PyTorch's allocator statistics are not comparable, the RSS of a process is).
The workload and its models are built before the RSS baseline; the first step, measured, also
allocates the optimizer's state (both frameworks do)."""

from __future__ import annotations

import os

from workloads.rss import in_fresh_process

WORKLOADS = ("tensor_chain", "mlp_raw_step", "mnist_cnn", "char_rnn", "gpt_block")
_BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_WARM = {"arraygrad": "import arraygrad; (arraygrad.ones(1, requires_grad=True) * 2).sum().backward()",
         "torch": "import torch; torch.set_num_threads(1)"}


def step_memory(names=WORKLOADS) -> dict:
    """``{workload: {impl: {"seconds", "rss_mb"} or {"error"}}}`` (torch when installed)."""
    results: dict = {}
    for name in names:
        for impl, warm in _WARM.items():
            setup = (f"sys.path.insert(0, {_BENCH!r}); import bench; "
                     f"run = bench.TIMED[{name!r}]().impls[{impl!r}].run")
            r = in_fresh_process(warm, setup, "value = len(run())")
            if r.get("missing"):
                continue
            r.pop("value", None)
            results.setdefault(name, {})[impl] = r
    return results


def report(results: dict) -> list[str]:
    """One line per workload and implementation: its peak RSS growth, and the ratio to
    PyTorch's."""
    lines = []
    for name, impls in results.items():
        torch_mb = impls.get("torch", {}).get("rss_mb")
        for impl, r in impls.items():
            if "error" in r:
                lines.append(f"{'step_memory':<18} {name:<14} {impl:<10} error: {r['error']}")
                continue
            ratio = f"  {r['rss_mb'] / max(torch_mb, 1e-9):.2f}x torch" if torch_mb else ""
            lines.append(f"{'step_memory':<18} {name:<14} {impl:<10} peak RSS "
                         f"+{r['rss_mb']:.1f} MB{ratio}")
    return lines
