"""Fixtures of the benchmark tests: the scripts of ``benchmarks/`` imported as modules."""

import importlib
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _import_benchmark(name):
    """``benchmarks/<name>.py`` as a module (its folder on ``sys.path`` only while importing)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(BENCHMARKS))


@pytest.fixture(scope="module")
def bench():
    """``benchmarks/bench.py`` (a test module may define its own ``bench`` instead)."""
    return _import_benchmark("bench")


@pytest.fixture(scope="module")
def bench_programs():
    """``benchmarks/programs.py``, the program-level benchmark."""
    return _import_benchmark("programs")
