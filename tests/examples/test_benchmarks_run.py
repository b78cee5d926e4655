"""The benchmark scripts run and check their answers (timings are printed, never asserted)."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args):
    return subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=True).stdout


def test_bench_quick_gradients_agree_with_numpy(tmp_path):
    out = tmp_path / "bench.json"
    _run("benchmarks/bench.py", "--quick", "--only", "overhead_chain", "mlp_small_step",
         "--json", str(out))
    results = json.loads(out.read_text())
    for name in ("overhead_chain", "mlp_small_step"):
        assert results[name]["arraygrad"]["correct"] is True
        assert results[name]["arraygrad"]["median"] > 0


def test_mlp_phases_prints_each_phase_beside_the_floor():
    lines = _run("benchmarks/mlp_phases.py", "--small", "--rounds", "2").splitlines()
    assert lines[0].split() == ["ms", "forward", "backward", "update", "sum"]
    assert [line.split()[0] for line in lines[1:]] == ["numpy", "arraygrad", "ratio"]
    assert all(float(v) > 0 for v in lines[2].split()[1:])
