"""``arraygrad.random``: ``fork_rng`` restores the streams, ``default_generator`` is the CPU
generator (an object, as PyTorch's), ``thread_safe_generator``."""

from __future__ import annotations

import arraygrad as ag
from arraygrad import random as R


def test_fork_rng_restores_the_cpu_stream():
    ag.manual_seed(0)
    expected = ag.rand(3).tolist()
    ag.manual_seed(0)
    with R.fork_rng():
        ag.rand(10)
    assert ag.rand(3).tolist() == expected
    ag.manual_seed(0)
    with R.fork_rng(enabled=False):
        ag.rand(3)
    assert ag.rand(3).tolist() != expected


def test_fork_rng_with_devices_and_meta():
    ag.manual_seed(1)
    with R.fork_rng(devices=[], device_type="cuda"):
        ag.rand(2)
    with R.fork_rng(device_type="meta"):
        pass


def test_default_generator_is_the_cpu_generator():
    assert isinstance(R.default_generator, R.Generator)
    R.default_generator.manual_seed(5)
    a = ag.rand(2).tolist()
    ag.manual_seed(5)
    assert ag.rand(2).tolist() == a
    assert R.generator_of("cpu") is R.default_generator


def test_thread_safe_generator_is_none_outside_thread_workers():
    assert R.thread_safe_generator() is None
