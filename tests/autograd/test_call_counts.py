"""The eager hot path's interpreter work, as counts of Python calls (issue 27).

A count is deterministic where a clock is not: ``tools/call_count.py`` measures it, these
tests hold the bounds. The counts are of the fast paths (``ARRAYGRAD_REFERENCE=1`` runs the
recorded vjps, which make more calls by design): there the bounds are skipped, the
gradients are still compared.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.ops.rule import fast_paths
from arraygrad.transform_state import kernel_function as unit_function

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "call_count.py"

fast_only = pytest.mark.skipif(not fast_paths.on, reason="call counts are the fast paths'")


@pytest.fixture(scope="module")
def call_count():
    spec = importlib.util.spec_from_file_location("call_count", TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules["call_count"] = module
    spec.loader.exec_module(module)
    return module


@fast_only
def test_the_backward_of_a_sum_of_a_product_is_at_most_40_calls_in_8_files(call_count):
    # 78 calls in 12 files before the structural ops had first-order array formulas
    total, by_function, files = call_count.count(call_count.WORKLOADS["sum_backward"]())
    assert total <= 40, sorted(by_function.items(), key=lambda kv: -kv[1])
    assert len(files) <= 8, sorted(files)


@fast_only
def test_a_raw_matmul_mlp_step_is_at_most_380_calls(call_count):
    # h @ W + b, F.relu, F.cross_entropy, SGD, 64-64-64-10, batch 32: 651 calls before
    total, by_function, _ = call_count.count(call_count.WORKLOADS["mlp_step"]())
    assert total <= 380, sorted(by_function.items(), key=lambda kv: -kv[1])[:20]


def test_the_counted_workloads_compute_the_gradients(call_count):
    prepare, counted = call_count.WORKLOADS["sum_backward"]()
    loss = prepare()
    counted(loss)
    x = loss.grad_fn.next_functions[0][0].next_functions[0][0].variable
    np.testing.assert_array_equal(x.grad.numpy(), np.array([1.0, 2.0, 3.0, 4.0], np.float32))


def _calls(fn, *args):
    """The Python calls one ``fn(*args)`` makes, its own frame included."""
    found = []

    def profile(frame, event, arg):
        if event == "call":
            found.append(frame.f_code)

    sys.setprofile(profile)
    try:
        fn(*args)
    finally:
        sys.setprofile(None)
    return found


def test_a_replay_unit_outside_a_recording_costs_no_call_more_than_its_function():
    # the eager path pays nothing for compile: the unit's call is its function's (it was
    # one wrapper frame more, ten times per MLP step)
    from arraygrad.ops.activation_backward import threshold_grad_data

    backend = ag.tensor([1.0])._backend
    gd = np.ones(3, np.float32)
    yd = np.array([1.0, 0.0, 2.0], np.float32)
    through_unit = _calls(threshold_grad_data, backend, gd, yd)
    direct = _calls(unit_function(threshold_grad_data), backend, gd, yd)
    assert len(through_unit) == len(direct)
    assert through_unit[0] is unit_function(threshold_grad_data).__code__
