"""``deep_chain``: 100,000 sequential ``x = x * 1.0001 + 0.0001`` on a scalar, then backward.
Each implementation runs in a fresh process, so its peak RSS is its own (sampled from
/proc/self/statm by a thread every millisecond, minus the RSS before the chain)."""

from __future__ import annotations

from workloads.rss import in_fresh_process

N = 100_000

_BODIES = {
    "numpy": """
import numpy as np
x = np.float32(1.0)
for _ in range(N):
    x = x * np.float32(1.0001) + np.float32(0.0001)
g = np.float32(1.0)
for _ in range(N):
    g = g * np.float32(1.0001)
value = float(g)
""",
    "arraygrad": """
import arraygrad as ag
x = ag.tensor(1.0, requires_grad=True); y = x
for _ in range(N):
    y = y * 1.0001 + 0.0001
y.backward(); value = x.grad.item(); del y
""",
    "torch": """
import torch
x = torch.tensor(1.0, requires_grad=True); y = x
for _ in range(N):
    y = y * 1.0001 + 0.0001
y.backward(); value = x.grad.item(); del y
""",
}

_WARM = {"numpy": "import numpy", "torch": "import torch; torch.set_num_threads(1)",
         "arraygrad": "import arraygrad; (arraygrad.ones(1, requires_grad=True) * 2).sum().backward()"}


def deep_chain() -> dict:
    """``{impl: {"seconds", "rss_mb", "correct"}}`` (torch only when installed)."""
    results = {}
    expected = 1.0001 ** N
    for name, body in _BODIES.items():
        r = in_fresh_process(_WARM[name], f"N = {N}", body)
        if r.get("missing") and name == "torch":
            continue
        if "error" in r or "missing" in r:
            results[name] = {"error": r.get("error", "torch is not installed")}
            continue
        r["correct"] = abs(r.pop("value") - expected) / expected < 1e-2
        results[name] = r
    return results
