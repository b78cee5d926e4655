"""The bench's "compiled" column (``benchmarks/workloads/compiled.py``): built from a workload's
arraygrad step, checked bit for bit against an eager twin, "n/a" with the reason when
``arraygrad.compile`` is absent, fails or never replays; never a crash."""

import sys
from pathlib import Path

import numpy as np
import pytest

import arraygrad

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import bench
        from workloads import compiled
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    return bench, compiled


def _framework(lib):
    """A tiny step: one SGD update of w on a quadratic; returns the gradient."""
    w = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
    opt = lib.optim.SGD([w], lr=0.1)

    def run():
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
        return [w.grad]
    return run


class _Replaying:
    """A stand-in ``arraygrad.compile`` result: counts calls as a compiled function does."""

    def __init__(self, fn, skew=0.0):
        self.fn, self.skew = fn, skew
        self.stats = {"records": 0, "replays": 0, "eager": 0}

    def __call__(self):
        self.stats["replays" if self.stats["records"] else "records"] += 1
        out = self.fn()
        return [g + self.skew for g in out] if self.skew and self.stats["replays"] else out


def test_without_arraygrad_compile_the_column_is_na(bench, monkeypatch):
    _, compiled = bench
    # as on a branch without it (arraygrad's lazy module attribute cannot be deleted)
    monkeypatch.setattr(arraygrad, "compile", None, raising=False)
    impl, info = compiled.compiled_impl(_framework)
    assert impl is None and info["note"] == "arraygrad.compile is absent"


def test_a_replaying_compile_is_timed_checked_and_costed(bench, monkeypatch):
    bench_mod, compiled = bench
    monkeypatch.setattr(arraygrad, "compile", _Replaying, raising=False)
    impl, info = compiled.compiled_impl(_framework)
    assert impl is not None and impl.correct is True and info["record_ratio"] > 0
    from workloads.base import Impl, Workload

    w = Workload("toy", "ms", 1e3, repeats=3)
    w.impls["numpy"] = Impl(lambda: [np.ones(3)])
    w.impls["arraygrad"] = Impl(lambda: [np.ones(3)])
    w.impls["torch"] = Impl(lambda: [np.ones(3)])
    w.framework = _framework
    results = bench_mod.time_workload(w, quick=True)
    assert list(results) == ["numpy", "arraygrad", "compiled", "torch"]
    assert results["compiled"]["correct"] is True and results["compiled"]["median"] > 0
    rows = bench_mod._row("toy", w.unit, results)
    assert "record = " in rows[2] and " ok " in rows[2] + " "


def test_a_compiled_step_that_differs_from_eager_shows_wrong(bench, monkeypatch):
    _, compiled = bench
    monkeypatch.setattr(arraygrad, "compile", lambda fn: _Replaying(fn, skew=1e-7),
                        raising=False)
    impl, _ = compiled.compiled_impl(_framework)
    assert impl is not None and impl.correct is False


def test_a_step_that_never_replays_or_fails_is_na_not_a_crash(bench, monkeypatch):
    _, compiled = bench

    class Eager(_Replaying):
        def __call__(self):
            self.stats["eager"] += 1
            return self.fn()

    monkeypatch.setattr(arraygrad, "compile", Eager, raising=False)
    impl, info = compiled.compiled_impl(_framework)
    assert impl is None and info["note"].startswith("no replay")

    def broken(fn):
        raise RuntimeError("boom")

    monkeypatch.setattr(arraygrad, "compile", broken, raising=False)
    impl, info = compiled.compiled_impl(_framework)
    assert impl is None and info["note"] == "RuntimeError: boom"
