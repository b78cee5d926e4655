"""Peak RSS growth of a piece of code, each run in a fresh process so its peak is its own
(sampled from /proc/self/statm by a thread every millisecond, minus the RSS before the code;
what ``setup`` allocates is before, so not counted)."""

from __future__ import annotations

import json
import subprocess
import sys

_WRAPPER = """
import json, resource, sys, threading, time, warnings
warnings.simplefilter("ignore")
{warm}
{setup}
page = resource.getpagesize()
def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * page
peak = [0]; done = threading.Event()
def sample():
    while not done.is_set():
        peak[0] = max(peak[0], rss()); time.sleep(0.001)
base = rss(); threading.Thread(target=sample, daemon=True).start()
t0 = time.perf_counter()
{body}
elapsed = time.perf_counter() - t0
done.set(); peak[0] = max(peak[0], rss())
print(json.dumps({{"seconds": elapsed, "rss_mb": (peak[0] - base) / 2**20, "value": value}}))
"""


def in_fresh_process(warm: str, setup: str, body: str, cwd: str | None = None) -> dict:
    """``{"seconds", "rss_mb", "value"}`` of ``body`` (which sets ``value``, a JSON-able
    result), run after ``warm`` and ``setup`` in a new interpreter; ``{"error": last line}``
    when it fails, ``{"missing": True}`` when it lacks PyTorch."""
    code = _WRAPPER.format(warm=warm, setup=setup, body=body)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=cwd,
                          timeout=600)
    if proc.returncode != 0:
        if "No module named 'torch'" in proc.stderr:
            return {"missing": True}
        return {"error": (proc.stderr.strip().splitlines() or ["(no output)"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])
