"""A lazy backend's task graph stays flat over a training loop: the core materialises after
``optimizer.step`` (at a configurable cadence) and at ``.item()``."""

import pytest

import arraygrad as ag
from arraygrad import nn


def _tasks(t):
    return len(t._data.__dask_graph__())


def _train(device, steps):
    ag.manual_seed(0)
    model = nn.Linear(4, 1).to(device)
    opt = ag.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, y = ag.randn(16, 4).to(device), ag.randn(16, 1).to(device)
    for _ in range(steps):
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    return model, opt


@pytest.fixture
def cadence():
    before = ag.backends.materialize_every()
    yield ag.backends.set_materialize_every
    ag.backends.set_materialize_every(before)


def test_the_graph_stays_flat_over_fifty_steps(dask_device, cadence):
    model, opt = _train(dask_device, 50)
    flat = max(_tasks(p) for p in model.parameters())
    cadence(0)  # never: each step's graph holds every step before it
    grown_model, _ = _train(dask_device, 50)
    grown = max(_tasks(p) for p in grown_model.parameters())
    assert flat <= 4 and grown > 50 * flat
    for p, q in zip(model.parameters(), grown_model.parameters()):  # the same training
        assert ag.tensor(p.tolist()).allclose(ag.tensor(q.tolist()), atol=1e-6)


def test_a_cadence_of_n_steps_materialises_every_nth(dask_device, cadence):
    cadence(5)
    model, _ = _train(dask_device, 10)
    after_tenth = max(_tasks(p) for p in model.parameters())
    model, _ = _train(dask_device, 12)
    assert after_tenth <= 4 and max(_tasks(p) for p in model.parameters()) > after_tenth


def test_item_materialises_the_tensor(dask_device):
    x = ag.ones(3, device=dask_device)
    total = (x * 2 + 1).sum()
    assert _tasks(total) > 1
    assert total.item() == 9.0
    assert _tasks(total) == 1


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2"])
def test_the_cadence_must_be_a_non_negative_int(bad):
    with pytest.raises(ValueError, match="non-negative int"):
        ag.backends.set_materialize_every(bad)


def test_eager_backends_have_nothing_to_materialise():
    x = ag.ones(2)
    data = x._data
    ag.backends.materialize([x])
    assert x._data is data
