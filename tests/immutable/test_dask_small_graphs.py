"""The Dask backend's handling of small arrays: a write into a one-chunk array is one task,
small graphs compute in the calling thread unless the user chose otherwise, and formulas use
the standard's functions (Dask's arrays have no ``.mT``)."""

import numpy as np
import pytest

import arraygrad as ag


@pytest.fixture
def dask_modules(dask_device):
    import dask
    import dask.array as da

    from arraygrad_dask import scheduling, writes

    return dask, da, writes, scheduling


@pytest.mark.parametrize("how", ["set", "add", "multiply"])
@pytest.mark.parametrize("chunks", [-1, 2])  # one chunk (one task) and several (Dask's path)
def test_a_write_gives_numpys_answer_and_leaves_the_array(dask_modules, how, chunks):
    _, da, writes, _ = dask_modules
    host = np.arange(20.0).reshape(4, 5)
    array = da.from_array(host, chunks=chunks)
    values = da.from_array(np.full((2, 5), 3.0), chunks=chunks)
    out = writes.write(array, (slice(0, 4, 2), Ellipsis), values, how)
    expected = host.copy()
    target = expected[0:4:2]
    expected[0:4:2] = {"set": 3.0, "add": target + 3.0, "multiply": target * 3.0}[how]
    assert np.array_equal(out.compute(), expected)
    assert np.array_equal(array.compute(), host)  # the old array is unchanged


def test_a_one_chunk_write_adds_one_task(dask_modules):
    _, da, writes, _ = dask_modules
    array = da.from_array(np.zeros((3, 3)))
    out = writes.write(array, 1, 7.0, "set")
    assert len(out.__dask_graph__()) == len(array.__dask_graph__()) + 1
    assert out.compute()[1].tolist() == [7.0, 7.0, 7.0]


def test_a_write_that_cannot_broadcast_raises_when_made(dask_modules):
    _, da, writes, _ = dask_modules
    array = da.from_array(np.zeros(3))
    with pytest.raises(ValueError):  # as Dask's own path, when the write is made
        writes.write(array, slice(0, 2), da.from_array(np.ones(3)), "set")
    # NumPy drops the values' leading ones
    out = writes.write(array, slice(0, 2), np.ones((1, 1, 2)), "set")
    assert out.compute().tolist() == [1.0, 1.0, 0.0]


def test_small_graphs_compute_in_the_calling_thread(dask_modules):
    dask, da, _, scheduling = dask_modules
    small = da.from_array(np.ones((4, 4))) * 2 + 1
    assert scheduling.scheduler_for([small]) == "sync"
    chunked = da.from_array(np.ones((4, 4)), chunks=2).sum()  # four chunks side by side
    assert scheduling.scheduler_for([chunked]) is None
    with dask.config.set(scheduler="threads"):  # the user's choice wins
        assert scheduling.scheduler_for([small]) is None


def test_matmul_gradients_on_dask(dask_device):
    a = ag.randn(3, 4, dtype=ag.float64)
    b = ag.randn(4, 2, dtype=ag.float64)
    grads = []
    for dev in ("cpu", dask_device):
        x, y = a.to(dev).detach().requires_grad_(), b.to(dev).detach().requires_grad_()
        (x @ y).sin().sum().backward()
        grads.append((x.grad.tolist(), y.grad.tolist()))
    assert np.allclose(grads[0][0], grads[1][0]) and np.allclose(grads[0][1], grads[1][1])


def test_iterative_formulas_compute_their_iterates_on_a_lazy_backend(dask_device):
    # the continued fraction of igammac tests convergence every few steps: on Dask each test
    # computed every step since the first (1580 layers left in the result's graph, against
    # 671 with the iterates computed at each test)
    from arraygrad.backends.materialization import materialize_arrays

    a = ag.tensor([0.5, 2.0, 5.0, 30.0], dtype=ag.float64)
    x = ag.tensor([0.3, 1.5, 7.0, 25.0], dtype=ag.float64)
    out = ag.special.gammaincc(a.to(dask_device), x.to(dask_device))
    assert np.allclose(out.tolist(), ag.special.gammaincc(a, x).tolist(), rtol=1e-12)
    assert len(out._data.__dask_graph__().layers) < 1000

    lazy = (a.to(dask_device) * 2)._data
    computed, = materialize_arrays(ag.backends.get_backend("dask").xp, [lazy])
    assert len(computed.__dask_graph__()) == 1 and computed.compute().tolist() == [1, 4, 10, 60]
    host = a._data
    assert materialize_arrays(a._backend.xp, [host])[0] is host  # eager: as it is


@pytest.mark.parametrize("dtype", [ag.float32, ag.float64])
def test_inverse_and_negative_powers_keep_the_dtype(dask_device, dtype):
    # Dask's own inv goes through a float64 identity: a float32 matrix came back float64
    host = np.array([[2.0, 1.0], [1.0, 3.0]])
    a = ag.tensor(host, dtype=dtype, device=dask_device, requires_grad=True)
    inv = ag.linalg.inv(a)
    power = ag.linalg.matrix_power(a, -2)
    assert inv.dtype == power.dtype == dtype
    np.testing.assert_allclose(inv.detach().cpu().numpy(), np.linalg.inv(host), rtol=1e-6)
    np.testing.assert_allclose(power.detach().cpu().numpy(),
                               np.linalg.matrix_power(np.linalg.inv(host), 2), rtol=1e-5)
    power.sum().backward()
    assert a.grad.dtype == dtype
