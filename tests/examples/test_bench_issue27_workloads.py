"""Issue 27's benchmark workloads (``tensor_chain``, ``mlp_raw_step``, ``mnist_cnn``,
``char_rnn``, ``gpt_block``), their step memory and the program-level benchmark: one step of
each, its gradients checked (against the NumPy floor, or PyTorch's for the models); no timing
is asserted."""

import json
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _has_torch():
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("name", ["tensor_chain", "mlp_raw_step"])
def test_the_floored_workloads_give_the_numpy_floors_gradients(bench, name):
    w = bench.TIMED[name]()
    expected = {"numpy", "arraygrad"} | ({"torch"} if _has_torch() else set())
    assert set(w.impls) == expected
    assert bench._check(w) == {impl: True for impl in expected}


@pytest.mark.parametrize("name", ["mnist_cnn", "char_rnn", "gpt_block"])
def test_the_model_workloads_give_pytorchs_gradients(bench, name):
    pytest.importorskip("torch")
    w = bench.TIMED[name]()
    assert set(w.impls) == {"arraygrad", "torch"}
    assert bench._check(w) == {"arraygrad": True, "torch": True}
    from workloads.base import to_numpy

    grads = [to_numpy(g) for g in w.impls["arraygrad"].run()]  # a training call (dropout on)
    assert all(np.isfinite(g).all() for g in grads) and any(g.std() > 0 for g in grads)


def test_without_a_floor_the_check_uses_pytorch_and_sees_a_wrong_answer(bench):
    from workloads.base import Impl, Workload

    w = Workload("toy", "ms", 1e3, repeats=3)
    w.impls["arraygrad"] = Impl(lambda: [np.ones(3) * 1.5])
    w.impls["torch"] = Impl(lambda: [np.ones(3)])
    assert bench._check(w) == {"arraygrad": False, "torch": True}
    alone = Workload("toy", "ms", 1e3, repeats=3)
    alone.impls["arraygrad"] = Impl(lambda: [np.ones(3)])
    results = bench.time_workload(alone, quick=True)
    assert results["arraygrad"]["correct"] is None  # nothing to check against: said so
    assert bench._row("toy", "ms", results)[0].endswith("unchecked")


def test_step_memory_reports_each_frameworks_peak(bench):
    from workloads import step_memory

    results = step_memory.step_memory(("tensor_chain",))
    impls = results["tensor_chain"]
    assert set(impls) == {"arraygrad"} | ({"torch"} if _has_torch() else set())
    for r in impls.values():
        assert "error" not in r and r["rss_mb"] >= 0 and r["seconds"] > 0
    assert len(step_memory.report(results)) == len(impls)


def test_program_benchmark_summary(bench_programs):
    summary = bench_programs.summarize({
        "a.py": {"arraygrad": {"seconds": 2.0}, "torch": {"seconds": 1.0}},
        "b.py": {"arraygrad": {"seconds": 1.0}, "torch": {"seconds": 2.0}},
        "c.py": {"arraygrad": {"seconds": 3.0}, "torch": {"seconds": 3.0}},
        "d.py": {"arraygrad": {"error": "x"}, "torch": {"seconds": 1.0}},  # no ratio
    })
    assert summary["median"] == 1.0 and summary["max"] == 2.0
    assert summary["max_program"] == "a.py" and set(summary["ratios"]) == {"a.py", "b.py", "c.py"}
    assert bench_programs.summarize({}) == {}


def test_program_benchmark_reports_a_failing_program(bench_programs, tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import arraygrad as torch\nraise ValueError('no such thing')\n")
    assert bench_programs.time_program(broken, "arraygrad") == {
        "error": "ValueError: no such thing"}


def test_bench_programs_runs_from_the_command_line(tmp_path):
    out = tmp_path / "programs.json"
    done = subprocess.run([sys.executable, "benchmarks/programs.py", "--only", "tensor_tour",
                           "--repeats", "2", "--json", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "tensor_tour.py" in done.stdout
    result = json.loads(out.read_text())["programs"]["tensor_tour.py"]
    assert set(result) == {"arraygrad"} | ({"torch"} if _has_torch() else set())
    for r in result.values():  # each framework's time: the median of its two runs
        assert len(r["runs"]) == 2 and all(t > 0 for t in r["runs"])
        assert r["seconds"] == statistics.median(r["runs"])


def test_program_benchmark_stops_a_failing_framework_after_one_run(bench_programs, tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import arraygrad as torch\nraise ValueError('no such thing')\n")
    assert bench_programs.time_repeated(broken, ["arraygrad"], repeats=3) == {
        "arraygrad": {"error": "ValueError: no such thing"}}


def test_bench_programs_refuses_zero_repeats():
    done = subprocess.run([sys.executable, "benchmarks/programs.py", "--repeats", "0"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "--repeats must be at least 1" in done.stderr
