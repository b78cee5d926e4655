"""``arraygrad.utils.benchmark``: Timer measures (no wall-clock assertions), Measurement's
statistics by formula, and its summary and Compare's tables identical to PyTorch's for the same
recorded times."""

from __future__ import annotations

import random
import statistics

import pytest

import arraygrad as ag
from arraygrad.utils import benchmark

try:
    import torch
    import torch.utils.benchmark as torch_benchmark
except ImportError:
    torch = torch_benchmark = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_timer_runs_the_statement_with_torch_as_arraygrad():
    calls = []
    t = benchmark.Timer("f(x)", setup="x = torch.ones(3)", globals={"f": calls.append},
                        label="L", sub_label="s", description="d", num_threads=2)
    m = t.timeit(number=10)
    assert m.number_per_run == 10 and len(m.raw_times) == 1
    assert len(calls) == 10 + 2 and isinstance(calls[0], ag.Tensor)  # warm-up of 2, then 10
    assert m.label == "L" and m.num_threads == 2 and m.task_spec.stmt == "f(x)"
    b = t.blocked_autorange(min_run_time=0.001)
    assert b.raw_times and b.mean > 0 and b.median > 0
    a = t.adaptive_autorange(min_run_time=0.001, max_run_time=0.05)
    assert len(a.raw_times) >= 1


def test_timer_argument_checks():
    with pytest.raises(ValueError, match="only a `str` stmt"):
        benchmark.Timer(lambda: 0)
    with pytest.raises(ValueError, match="global_setup is C\\+\\+ only"):
        benchmark.Timer("pass", global_setup="x")
    with pytest.raises(ValueError, match="libtorch"):
        benchmark.Timer("pass", language="cpp")
    with pytest.raises(NotImplementedError, match="blocked_autorange"):
        benchmark.Timer().repeat()


def test_measurement_statistics_by_formula():
    times = [3.0, 1.0, 2.0, 5.0, 4.0]
    m = benchmark.Measurement(2, times, benchmark.TaskSpec("s", "pass"))
    per_run = [t / 2 for t in times]
    assert m.times == per_run
    assert m.median == statistics.median(per_run)
    assert m.mean == pytest.approx(statistics.fmean(per_run))
    assert m.iqr == pytest.approx(2.0 - 1.0)  # linear quantiles of 0.5..2.5
    assert m.has_warnings and not m.meets_confidence()


def _pair(seed):
    def make(lib, label, sub, desc, n, base, threads=1):
        return lib.Measurement(number_per_run=100,
                               raw_times=[base * rng.uniform(0.9, 1.3) for _ in range(n)],
                               task_spec=lib.TaskSpec(stmt="x", setup="pass", label=label,
                                                      sub_label=sub, description=desc,
                                                      num_threads=threads))
    out = []
    for lib in (benchmark, torch_benchmark):
        rng = random.Random(seed)
        out.append([make(lib, "L", "s1", "d1", 7, 1e-4), make(lib, "L", "s2", "d1", 1, 3e-4),
                    make(lib, "L", "s1", "d2", 12, 2e-3), make(lib, "M", "s1", "d1", 4, 5e-9),
                    make(lib, "L", "s1", "d1", 5, 2e-4, threads=4)])
    return out


@needs_torch
@pytest.mark.parametrize("seed", range(4))
def test_summary_and_compare_match_pytorch(seed):
    ours, theirs = _pair(seed)
    for a, b in zip(ours, theirs):
        assert repr(a).split("\n", 1)[1] == repr(b).split("\n", 1)[1]
        assert a.significant_figures == b.significant_figures
    for setup in (lambda c: None, lambda c: c.trim_significant_figures(),
                  lambda c: c.colorize(), lambda c: c.colorize(rowwise=True),
                  lambda c: c.highlight_warnings()):
        ca, cb = benchmark.Compare(ours), torch_benchmark.Compare(theirs)
        setup(ca)
        setup(cb)
        assert str(ca) == str(cb)


@needs_torch
def test_unit_helpers_match_pytorch():
    rng = random.Random(0)
    for _ in range(500):
        x = rng.uniform(-1, 1) * 10 ** rng.randint(-9, 3)
        n = rng.randint(1, 5)
        assert benchmark.trim_sigfig(x, n) == torch_benchmark.trim_sigfig(x, n)
        assert benchmark.select_unit(abs(x)) == torch_benchmark.select_unit(abs(x))
    assert benchmark.unit_to_english("us") == "microsecond"
    assert benchmark.ordered_unique([3, 1, 3, 2]) == [3, 1, 2]


def test_compare_refuses_other_objects():
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        benchmark.Compare([1])
