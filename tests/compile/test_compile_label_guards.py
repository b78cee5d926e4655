"""A compiled classification step guards whether its batch's labels suit the one-hot fast
path (all classes, no ignored one among them), not the labels' smallest and largest values:
batches whose label ranges differ replay the same program instead of recording one each
(which filled the cache and sent the step to eager after 8 distinct ranges)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arraygrad as ag

from .helpers import host, training_step


def _classifier(seed, classes=10, ignore_index=-100):
    ag.manual_seed(seed)
    model = ag.nn.Linear(4, classes)
    opt = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.5)
    return training_step(model, opt, lambda m, x, y: ag.nn.functional.cross_entropy(
        m(x), y, ignore_index=ignore_index))


def _host(result):
    loss, params = result
    return [host(loss)] + host(params)


def _batches(n, classes, size, seed=0, forced=None):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((size, 4)).astype(np.float32)
    for i in range(n):
        y = rng.integers(0, classes, size)
        if forced is not None and i % 2:
            y[0] = forced
        yield ag.tensor(x), ag.tensor(y)


def test_batches_with_different_label_ranges_replay_one_program():
    eager, step = _classifier(0), ag.compile(_classifier(0))
    ranges = set()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "runs eagerly from now on"
        for x, y in _batches(40, classes=10, size=8):
            ranges.add((int(y.min()), int(y.max())))
            want, got = _host(eager(x, y)), _host(step(x, y))
            assert all(np.array_equal(w, g) for w, g in zip(want, got))
    assert len(ranges) > 8  # as many ranges as recordings would once have been made
    assert step.stats["records"] <= 3 and step.stats["eager"] == 0, step.stats
    assert step.stats["replays"] >= 37


def test_a_label_out_of_range_raises_eager_s_error_and_changes_nothing():
    eager, step = _classifier(1), ag.compile(_classifier(1))
    batches = list(_batches(6, classes=10, size=8, seed=1))
    for x, y in batches[:5]:
        step(x, y)
        eager(x, y)
    x, y = batches[4]
    bad = ag.tensor(np.where(np.arange(8) == 3, 10, y.numpy()))
    with pytest.raises(IndexError) as want:
        eager(x, bad)
    with pytest.raises(IndexError) as got:
        step(x, bad)
    assert str(got.value) == str(want.value) == "Target 10 is out of bounds."
    # nothing changed on either side: the next step agrees bit for bit, still compiled
    x, y = batches[5]
    assert all(np.array_equal(w, g) for w, g in zip(_host(eager(x, y)), _host(step(x, y))))
    assert step.stats["eager"] == 0


@pytest.mark.parametrize("ignore_index", [3, -1])
def test_an_ignore_index_among_the_classes_keeps_eager_s_results(ignore_index):
    eager = _classifier(2, classes=6, ignore_index=ignore_index)
    step = ag.compile(_classifier(2, classes=6, ignore_index=ignore_index))
    for x, y in _batches(20, classes=6, size=6, seed=2, forced=ignore_index):
        want, got = _host(eager(x, y)), _host(step(x, y))
        assert all(np.array_equal(w, g) for w, g in zip(want, got))
    # the fast path's decision changes with the batch (the ignored class present or not):
    # one program for each answer (and each grad state), not one per label range
    assert step.stats["records"] <= 5 and step.stats["eager"] == 0, step.stats
