"""The main job and the raw-tensor example run end to end and reach their targets."""

import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def test_demo_trains_digits_to_97_percent_and_reloads_identically(tmp_path):
    pytest.importorskip("sklearn")
    pytest.importorskip("tqdm")
    pytest.importorskip("matplotlib")
    proc = subprocess.run([sys.executable, str(EXAMPLES / "demo.py"), "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    lines = proc.stdout.strip().splitlines()
    accuracy = float(lines[-3].rsplit(" ", 1)[-1])
    assert accuracy >= 0.97
    assert "(identical)" in lines[-2]
    assert (tmp_path / "loss.png").stat().st_size > 1000
    assert (tmp_path / "graph.svg").exists() or (tmp_path / "graph.dot").exists()
    assert "epoch 30/30" in proc.stderr  # the tqdm bars


def test_raw_tensor_spirals_example_learns():
    proc = subprocess.run([sys.executable, "-W", "ignore", str(EXAMPLES / "spirals_raw_tensors.py")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    final = proc.stdout.strip().splitlines()[-1]
    assert float(final.rsplit(" ", 1)[-1]) > 0.9
