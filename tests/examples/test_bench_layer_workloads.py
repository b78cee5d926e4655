"""The recurrent and attention benchmark workloads (``lstm_step``, ``attention_step``): one step
of each implementation, its gradients checked against the hand-written NumPy floor (no timing)."""

import numpy as np
import pytest

@pytest.mark.parametrize("name", ["lstm_step", "attention_step"])
def test_every_implementation_gives_the_numpy_floors_gradients(bench, name):
    w = bench.TIMED[name]()
    expected = {"numpy", "arraygrad"}
    try:
        import torch  # noqa: F401
        expected.add("torch")
    except ImportError:
        pass
    assert set(w.impls) == expected
    assert bench._check(w) == {impl: True for impl in expected}


@pytest.mark.parametrize("name", ["lstm_step", "attention_step"])
def test_the_floors_gradients_are_not_trivial(bench, name):
    """A zero or constant gradient would make the check vacuous: every parameter's gradient
    from the floor is finite and varies across its entries."""
    from workloads.base import to_numpy

    grads = [to_numpy(g) for g in bench.TIMED[name]().impls["numpy"].run()]
    assert len(grads) == 4
    for g in grads:
        assert np.isfinite(g).all() and g.std() > 1e-3


def test_a_wrong_lstm_floor_is_caught(bench, monkeypatch):
    """The check sees the recurrence: a floor that forgets the cell state's path back in time
    (``d_c_next``) disagrees with arraygrad."""
    from workloads import recurrent

    original = recurrent.numpy_backward

    def forgetful(params, x, weights, gates, cells, tanh_cells, outs):
        # each step's forget gate zeroed in the backward only: d_c_next is then always 0
        gates = [(i, np.zeros_like(f), g, o) for i, f, g, o in gates]
        return original(params, x, weights, gates, cells, tanh_cells, outs)

    monkeypatch.setattr(recurrent, "numpy_backward", forgetful)
    assert bench._check(recurrent.lstm_step())["arraygrad"] is False


@pytest.mark.parametrize("name", ["lstm_step", "attention_step"])
def test_the_timed_steps_stay_finite(bench, name):
    """As many SGD steps as a full run times (the check, the warm-up and the repeats) keep
    every gradient finite: a loss that diverges would time arithmetic on infinities (the first
    ``attention_step``, whose loss was linear in the outputs, overflowed after 35 steps)."""
    from workloads.base import to_numpy

    w = bench.TIMED[name]()
    for impl_name in ("numpy", "arraygrad"):
        impl = w.impls[impl_name]
        with np.errstate(over="raise", invalid="raise"):
            for _ in range(w.repeats + 2):
                grads = impl.run()
        assert all(np.isfinite(to_numpy(g)).all() for g in grads), impl_name
