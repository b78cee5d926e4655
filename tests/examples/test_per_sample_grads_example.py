"""examples/per_sample_grads.py runs and its vmap gradients agree with the loop over images
(the speedup it prints is not asserted: timings are not tests)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_per_sample_grads_example_agrees_with_the_loop():
    out = subprocess.run([sys.executable, "examples/per_sample_grads.py", "--batch", "4"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, check=True).stdout
    worst = float(re.search(r"largest difference between vmap and the loop: (\S+)", out)[1])
    assert worst < 1e-5
    assert re.search(r"speedup \d+\.\d\dx", out)
