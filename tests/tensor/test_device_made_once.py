"""``Backend.device`` is made once per backend and kept (every ``Tensor.device`` and every
random factory reads it), and remade when the backend's fields no longer match it."""

from __future__ import annotations

import arraygrad as ag
from arraygrad_numpy.backend import NumpyBackend


def test_a_backends_device_is_made_once():
    a, b = ag.ones(2), ag.zeros(3, dtype=ag.int64)
    assert a.device is b.device  # one backend, one device object (it was one per read)
    assert a.device == ag.device("cpu") and str(a.device) == "cpu"
    assert ag.zeros(1, device=a.device).device is a.device


def test_a_device_follows_fields_set_after_its_first_read():
    backend = NumpyBackend()
    assert backend.device == ag.device("cpu")
    backend.index = 0  # a subclass that learns its index late
    assert backend.device == ag.device("cpu", 0)
    backend.device_type = "meta"
    assert backend.device.type == "meta" and backend.device.index == 0


def test_random_factories_on_a_given_device_keep_the_default_stream():
    ag.manual_seed(7)
    first = ag.randint(0, 100, (5,), device=ag.ones(1).device).tolist()
    ag.manual_seed(7)
    assert ag.randint(0, 100, (5,)).tolist() == first
    assert ag.randint(0, 100, (5,), dtype=ag.int32).dtype == ag.int32
