"""``deep_chain``: 100,000 sequential ``x = x * 1.0001 + 0.0001`` on a scalar, then backward.
Each implementation runs in a fresh process, so its peak RSS is its own (sampled from
/proc/self/statm by a thread every millisecond, minus the RSS before the chain)."""

from __future__ import annotations

import json
import subprocess
import sys

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
grad = float(g)
""",
    "arraygrad": """
import arraygrad as ag
x = ag.tensor(1.0, requires_grad=True); y = x
for _ in range(N):
    y = y * 1.0001 + 0.0001
y.backward(); grad = x.grad.item(); del y
""",
    "torch": """
import torch
x = torch.tensor(1.0, requires_grad=True); y = x
for _ in range(N):
    y = y * 1.0001 + 0.0001
y.backward(); grad = x.grad.item(); del y
""",
}

_WRAPPER = """
import json, resource, threading, time, warnings
warnings.simplefilter("ignore")
{warm}
page = resource.getpagesize()
def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * page
peak = [0]; done = threading.Event()
def sample():
    while not done.is_set():
        peak[0] = max(peak[0], rss()); time.sleep(0.001)
base = rss(); threading.Thread(target=sample, daemon=True).start()
N = {n}
t0 = time.perf_counter()
{body}
elapsed = time.perf_counter() - t0
done.set(); peak[0] = max(peak[0], rss())
print(json.dumps({{"seconds": elapsed, "rss_mb": (peak[0] - base) / 2**20, "grad": grad}}))
"""

_WARM = {"numpy": "import numpy", "torch": "import torch; torch.set_num_threads(1)",
         "arraygrad": "import arraygrad; (arraygrad.ones(1, requires_grad=True) * 2).sum().backward()"}


def deep_chain() -> dict:
    """``{impl: {"seconds", "rss_mb", "correct"}}`` (torch only when installed)."""
    results = {}
    expected = 1.0001 ** N
    for name, body in _BODIES.items():
        code = _WRAPPER.format(warm=_WARM[name], n=N, body=body)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if proc.returncode != 0:
            if name == "torch" and "No module named 'torch'" in proc.stderr:
                continue
            results[name] = {"error": proc.stderr.strip().splitlines()[-1]}
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        r["correct"] = abs(r.pop("grad") - expected) / expected < 1e-2
        results[name] = r
    return results
