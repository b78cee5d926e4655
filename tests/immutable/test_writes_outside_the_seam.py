"""Writes that once went around ``Backend.write`` on an immutable backend (JAX): vmap's
batched setitem and scatter, ``set_`` sharing a source, ``p.data.mul_(...)``. Each gives
NumPy's answer (shared memory) on JAX, and NumPy's behaviour is unchanged."""

import pytest

import arraygrad as ag


@pytest.fixture(params=["numpy", "jax"])
def dev(request):
    if request.param == "numpy":
        return "cpu"
    # (the fixture, not ``from conftest import``: with every test directory on sys.path
    # that name is whichever conftest module was imported first)
    return request.getfixturevalue("jax_device")


def _rows(dev):
    return ag.arange(6.0).reshape(2, 3).to(dev)


def test_vmap_setitem_writes_each_sample(dev):
    def f(x):
        y = x.clone()
        y[0] = 5.0
        return y

    assert ag.func.vmap(f)(_rows(dev)).tolist() == [[5.0, 1.0, 2.0], [5.0, 4.0, 5.0]]


def test_vmap_augmented_setitem_through_a_view(dev):
    # ``y[1:] += 1``: an in-place add on a view, then the view written back: the base must
    # see it (index_put's scatter inside vmap returned a new array that was dropped)
    def f(x):
        y = x.clone()
        y[1:] += 1.0
        return y

    assert ag.func.vmap(f)(_rows(dev)).tolist() == [[0.0, 2.0, 3.0], [3.0, 5.0, 6.0]]


def test_vmap_writes_a_batched_value_into_a_batched_buffer(dev):
    def f(x):
        y = x * 0.0
        y[1] = x.sum()
        return y

    assert ag.func.vmap(f)(_rows(dev)).tolist() == [[0.0, 3.0, 0.0], [0.0, 12.0, 0.0]]


def test_vmap_refuses_a_batched_value_into_an_unbatched_tensor(dev):
    def f(x):
        y = ag.zeros(3, device=x.device)
        y[1] = x.sum()
        return y

    with pytest.raises(RuntimeError, match="vmap: inplace arithmetic"):
        ag.func.vmap(f)(_rows(dev))


def test_set_shares_the_source_both_ways(dev):
    t, s = ag.zeros(3, device=dev), ag.ones(4, device=dev)
    t.set_(s)
    s.add_(1.0)
    assert t.tolist() == [2.0] * 4
    t.mul_(3.0)
    assert s.tolist() == [6.0] * 4


def test_set_to_a_view_follows_its_base(dev):
    w = ag.arange(6.0, device=dev)
    u = ag.zeros(2, device=dev)
    u.set_(w[2:5])
    w[3] = 10.0
    assert u.tolist() == [2.0, 10.0, 4.0]
    u[0] = -1.0
    assert w.tolist() == [0.0, 1.0, -1.0, 10.0, 4.0, 5.0]


def test_set_keeps_the_gradient_path_to_the_source(dev):
    a = ag.ones(2, device=dev, requires_grad=True)
    b = ag.zeros(2, device=dev)
    b.set_(a)
    (b * 2).sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]


def test_a_write_into_data_reaches_the_tensor(dev):
    p = ag.nn.Parameter(ag.ones(3, device=dev))
    p.data.mul_(2.0)
    p.data[0] = 7.0
    assert p.tolist() == [7.0, 2.0, 2.0]
    assert p.requires_grad and p.grad_fn is None
