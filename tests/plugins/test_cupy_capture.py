"""``Backend.capture``: the default (no capture) and the CuPy backend's CUDA graphs, run on
the fake cupy whose streams capture and whose graphs launch (``fake_cuda_graph``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.backends import get_backend


def test_a_backend_captures_nothing_by_default():
    backend = get_backend("numpy")
    assert backend.capture(lambda: None) is None


def _sgd_program(backend, seed=0):
    """A step as ``arraygrad.compile`` hands it over: backend calls (namespace functions,
    operators, in-place updates, a random draw) on arrays that stay the same objects."""
    xp = backend.xp
    rng = np.random.default_rng(seed)
    w = backend.from_host(rng.standard_normal((4, 3)), dtype=np.float64)
    x = backend.from_host(rng.standard_normal((5, 4)), dtype=np.float64)
    buf = xp.zeros((4, 3), dtype=xp.float64)
    gen = backend.make_generator(seed)

    slots = [w]  # as the program's locals: rebinding a slot after ``-=`` keeps the array

    def replay():
        noise = gen.normal((5, 4), xp.float64)  # fresh numbers at every call
        h = xp.tanh(xp.matmul(x + 0.01 * noise, slots[0]))
        loss = xp.sum(h * h)
        grad = xp.matmul(xp.matrix_transpose(x), 2 * h * (1 - h * h))
        buf[...] = 0.9 * buf + grad  # momentum, written in place
        slots[0] -= 0.1 * buf  # the parameter, updated in place
        return loss, xp.astype(h, xp.float32)
    return replay, (w, buf)


def test_cuda_graph_replays_the_program_bit_for_bit(cupy_on_fake):
    fake, backend = cupy_on_fake
    plain, plain_state = _sgd_program(backend)
    replay, state = _sgd_program(backend)
    captured = backend.capture(replay)
    assert captured is not None
    results = []
    for step in range(6):
        expected = plain()
        got = captured()
        results.append(got)
        for a, b in zip(expected, got):
            assert np.array_equal(np.asarray(a), np.asarray(b)), f"step {step}"
        for a, b in zip(plain_state, state):
            assert np.array_equal(np.asarray(a), np.asarray(b)), f"step {step}"
    calls = [name for name, _ in fake.log]
    assert calls.count("stream.begin_capture") == 1 and calls.count("stream.end_capture") == 1
    assert calls.count("graph.launch") == 5  # every call after the first is one launch
    assert captured.graph.launches == 5
    # the launches rewrite the same arrays (kept alive with the graph); the first call's were
    # the warm-up's own
    assert results[1][0] is results[5][0] and results[0][0] is not results[1][0]
    assert captured._pool.allocations > 0  # the capture allocated from its private pool


def test_a_launch_draws_fresh_random_numbers(cupy_on_fake):
    _, backend = cupy_on_fake
    gen = backend.make_generator(3)
    captured = backend.capture(lambda: gen.normal((3,), np.float64) + 0.0)
    draws = [np.asarray(captured()).copy() for _ in range(4)]
    reference = backend.make_generator(3)
    for draw in draws:  # the capture itself drew nothing: the same sequence as eager
        assert np.array_equal(draw, np.asarray(reference.normal((3,), np.float64)))


def test_a_host_read_makes_the_capture_fail_and_replays_run_as_they_are(cupy_on_fake):
    fake, backend = cupy_on_fake
    xp = backend.xp
    a = backend.from_host([1.0, 2.0], dtype=np.float64)

    def replay():
        a[...] = a * 2
        return float(xp.sum(a))  # a device-to-host copy: no capture can hold it

    captured = backend.capture(replay)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert captured() == 6.0
    assert captured.graph is None and "cudaErrorStreamCaptureUnsupported" in captured.failed
    assert any("CUDA graph capture failed" in str(w.message) for w in caught)
    assert fake.capturing is None  # the failed capture was ended
    assert captured() == 12.0 and captured() == 24.0  # no graph: replay itself
    assert np.array_equal(np.asarray(a), [8.0, 16.0])


def test_scalars_are_fixed_at_capture_as_cuda_fixes_kernel_arguments(cupy_on_fake):
    # why arraygrad.compile must hand a live scalar to a captured program as an array
    _, backend = cupy_on_fake
    a = backend.from_host([1.0], dtype=np.float64)
    lr = [0.5]
    scale = backend.from_host(0.5, dtype=np.float64)

    def replay():
        a[...] = a * lr[0] + scale
        return a

    captured = backend.capture(replay)
    captured()  # warm-up: 1 * 0.5 + 0.5
    lr[0] = 2.0
    scale[...] = 10.0  # an array operand is read at every launch
    captured()
    assert np.array_equal(np.asarray(a), [1.0 * 0.5 + 10.0])  # lr baked in as 0.5


def test_arraygrad_ops_on_the_fake_device_capture_and_launch(cupy_on_fake):
    _, backend = cupy_on_fake
    w = ag.tensor([[0.5, -1.0], [2.0, 0.25]], dtype=ag.float64, device="cuda")
    x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=ag.float64, device="cuda")
    ref = w.detach().clone()

    def replay():  # the array-level work of ``w -= 0.1 * relu(x @ w)``
        with ag.no_grad():
            w.sub_(0.1 * (x @ w).relu())
        return w._data

    captured = backend.capture(replay)
    for _ in range(4):
        captured()
        ref.sub_(0.1 * (x @ ref).relu())
        assert np.array_equal(np.asarray(backend.to_host(w._data)),
                              np.asarray(backend.to_host(ref._data)))
    assert captured.graph is not None and captured.graph.launches == 3


def test_a_cupy_without_stream_capture_falls_back_to_plain_replays(fake_cuda):
    fake_cuda(1)  # the plain fake: no cupy.cuda.Stream / Graph at all
    backend = get_backend("cupy")
    a = backend.from_host([1.0], dtype=np.float64)
    slots = [a]

    def replay():
        slots[0] += 1.0
        return slots[0]

    captured = backend.capture(replay)
    with pytest.warns(RuntimeWarning, match="CUDA graph capture failed"):
        captured()
    assert captured.graph is None and "AttributeError" in captured.failed
    captured()
    assert np.array_equal(np.asarray(a), [3.0])  # each call did its work exactly once


def test_a_compiled_step_on_cuda_runs_as_one_cuda_graph(cupy_on_fake):
    """End to end: ``arraygrad.compile`` hands a capturable program (no live scalars: a
    forward under no_grad) to the CuPy backend, whose graph is launched at every later call;
    the results are eager's, bit for bit, for fresh inputs each call."""
    if not hasattr(ag, "compile"):
        pytest.skip("arraygrad.compile is absent")
    fake, backend = cupy_on_fake
    rng = np.random.default_rng(0)
    w = ag.tensor(rng.standard_normal((4, 3)), device="cuda")
    b = ag.tensor(rng.standard_normal(3), device="cuda")

    def forward(x):
        return ((x @ w + b).tanh() * 2).sum(0)

    compiled = ag.compile(forward)
    with ag.no_grad():
        for i in range(5):
            x = ag.tensor(rng.standard_normal((5, 4)), device="cuda")
            want = backend.to_host(forward(x)._data)
            got = backend.to_host(compiled(x)._data)
            assert np.array_equal(want, got), i
    launches = [name for name, _ in fake.log].count("graph.launch")
    assert compiled.stats["replays"] == 4 and launches == 3, (compiled.stats, launches)


def test_a_cupy_generator_snapshot_draws_the_same_numbers(cupy_on_fake):
    # generator snapshots (checkpointing, compile's undo) deep-copy the native generator
    import copy

    _, backend = cupy_on_fake
    gen = backend.make_generator(5)
    clone = copy.deepcopy(gen)
    assert clone._cp is gen._cp
    assert np.array_equal(np.asarray(gen.normal((4,), np.float64)),
                          np.asarray(clone.normal((4,), np.float64)))
