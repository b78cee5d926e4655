"""Per-op overhead and deep-graph cost of arraygrad beside raw NumPy (and PyTorch if installed).

Run: ``make bench`` or ``.venv/bin/python benchmarks/overhead.py [--quick]``.

1. ``overhead_chain``: 200 alternating elementwise ops (add, then mul or tanh) on a
   shape-(4,) float32 tensor, forward + backward; microseconds per op (median of repeats).
   Raw NumPy does the same arithmetic with hand-written backward.
2. ``deep_chain``: 100,000 ops ``x = x * 1.0001 + 0.0001`` on a scalar, then backward;
   wall time and peak RSS growth, each measured in a fresh subprocess.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

CHAIN_OPS = 200


def _numpy_chain(x0):
    """Forward and hand-written backward of the chain on NumPy arrays."""
    xs, kinds = [], []
    y = x0
    for i in range(CHAIN_OPS // 2):
        xs.append(y)
        y = y + np.float32(1.0)
        kinds.append("add")
        xs.append(y)
        if i % 2:
            y = y * np.float32(0.5)
            kinds.append("mul")
        else:
            y = np.tanh(y)
            kinds.append("tanh")
    g = np.ones_like(y)
    for inp, kind in zip(reversed(xs), reversed(kinds)):
        if kind == "mul":
            g = g * np.float32(0.5)
        elif kind == "tanh":
            t = np.tanh(inp)
            g = g * (np.float32(1) - t * t)
    return g


def _arraygrad_chain(ag, x0):
    x = ag.tensor(x0, requires_grad=True)
    y = x
    for i in range(CHAIN_OPS // 2):
        y = y + 1.0
        y = y * 0.5 if i % 2 else y.tanh()
    y.sum().backward()
    return x.grad.numpy()


def _torch_chain(torch, x0):
    x = torch.tensor(x0, requires_grad=True)
    y = x
    for i in range(CHAIN_OPS // 2):
        y = y + 1.0
        y = y * 0.5 if i % 2 else y.tanh()
    y.sum().backward()
    return x.grad.numpy()


def overhead_chain(repeats: int) -> dict:
    """Median microseconds per op, interleaving the implementations on each repeat."""
    import arraygrad as ag

    try:
        import torch
    except ImportError:
        torch = None
    x0 = np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float32)
    impls = {"numpy": lambda: _numpy_chain(x0), "arraygrad": lambda: _arraygrad_chain(ag, x0)}
    if torch is not None:
        impls["torch"] = lambda: _torch_chain(torch, x0)
    reference = impls["numpy"]()
    correct = {name: bool(np.allclose(fn(), reference, rtol=1e-4, atol=1e-6))
               for name, fn in impls.items()}
    times = {name: [] for name in impls}
    for _ in range(repeats):
        for name, fn in impls.items():
            t0 = time.perf_counter()
            fn()
            times[name].append((time.perf_counter() - t0) / CHAIN_OPS * 1e6)
    return {name: {"us_per_op": statistics.median(v), "correct": correct[name]}
            for name, v in times.items()}


_DEEP_SNIPPETS = {
    "numpy": """
import numpy as np
x = np.float32(1.0); n = 100_000
for _ in range(n):
    x = x * np.float32(1.0001) + np.float32(0.0001)
g = np.float32(1.0)
for _ in range(n):
    g = g * np.float32(1.0001)
result = float(g)
""",
    "arraygrad": """
import arraygrad as ag
x = ag.tensor(1.0, requires_grad=True); y = x
for _ in range(100_000):
    y = y * 1.0001 + 0.0001
y.backward(); result = x.grad.item(); del y
""",
    "torch": """
import torch
x = torch.tensor(1.0, requires_grad=True); y = x
for _ in range(100_000):
    y = y * 1.0001 + 0.0001
y.backward(); result = x.grad.item(); del y
""",
}

_DEEP_WRAPPER = """
import json, resource, time, warnings
warnings.simplefilter("ignore")
{imports}
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
{body}
elapsed = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"seconds": elapsed, "rss_growth_mb": (peak - base) / 1024, "grad": result}}))
"""


def deep_chain() -> dict:
    """Each implementation in a fresh process, so peak RSS is its own."""
    results = {}
    for name, body in _DEEP_SNIPPETS.items():
        imports = {"numpy": "import numpy", "arraygrad": "import arraygrad, numpy\n"
                   "arraygrad.tensor([1.0]) * 1", "torch": "import torch"}[name]
        code = _DEEP_WRAPPER.format(imports=imports, body=body)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if proc.returncode != 0:
            if name == "torch" and "No module named 'torch'" in proc.stderr:
                continue
            results[name] = {"error": proc.stderr.strip().splitlines()[-1]}
            continue
        results[name] = json.loads(proc.stdout.strip().splitlines()[-1])
    expected = 1.0001 ** 100_000
    for r in results.values():
        if "grad" in r:
            r["correct"] = abs(r["grad"] - expected) / expected < 1e-2
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    chain = overhead_chain(repeats=20 if args.quick else 100)
    deep = deep_chain()
    np_us = chain["numpy"]["us_per_op"]
    torch_us = chain.get("torch", {}).get("us_per_op")
    print(f"overhead_chain ({CHAIN_OPS} ops on shape (4,), forward+backward, median)")
    print(f"  {'impl':<10} {'us/op':>8} {'x numpy':>8} {'x torch':>8}  check")
    for name, r in chain.items():
        vs_torch = f"{r['us_per_op'] / torch_us:8.2f}" if torch_us else "       -"
        print(f"  {name:<10} {r['us_per_op']:8.2f} {r['us_per_op'] / np_us:8.2f} {vs_torch}  "
              f"{'ok' if r['correct'] else 'WRONG'}")
    print("deep_chain (100,000 x (mul, add) on a scalar, then backward; fresh process each)")
    print(f"  {'impl':<10} {'seconds':>8} {'RSS MB':>8}  check")
    for name, r in deep.items():
        if "error" in r:
            print(f"  {name:<10} error: {r['error']}")
            continue
        print(f"  {name:<10} {r['seconds']:8.2f} {r['rss_growth_mb']:8.1f}  "
              f"{'ok' if r['correct'] else 'WRONG'}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"overhead_chain": chain, "deep_chain": deep}, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
