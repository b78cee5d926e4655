"""examples/compiled_training.py runs, and both compiled runs end with eager's parameters bit
for bit (the speedups it prints are not asserted: timings are not tests)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_compiled_training_example_matches_eager_bit_for_bit():
    out = subprocess.run([sys.executable, "examples/compiled_training.py", "--steps", "20"],
                         cwd=ROOT, capture_output=True, text=True, timeout=120, check=True).stdout
    losses = re.findall(r"loss (\d+\.\d+)", out)
    assert len(losses) == 3 and len(set(losses)) == 1, out
    assert out.count("parameters equal eager's bit for bit: True") == 2, out
