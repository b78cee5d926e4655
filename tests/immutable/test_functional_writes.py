"""``Backend.write`` / ``Backend.at``: in place where the backend can, a new array where it
cannot; the core's writes (in-place ops, views, indexing, optimizers) on immutable arrays."""

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.backends import get_backend


def test_numpy_writes_in_place_and_returns_the_same_array():
    backend = get_backend("numpy")
    a = np.zeros(4, dtype=np.float32)
    assert backend.at(a, slice(1, 3)).set(2.0) is a
    assert backend.at(a, 1).add(3.0) is a
    assert backend.at(a, Ellipsis).multiply(2.0) is a
    assert a.tolist() == [0.0, 10.0, 4.0, 0.0]


def test_an_unknown_update_is_refused():
    with pytest.raises(ValueError, match="unknown update 'divide'"):
        get_backend("numpy").write(np.zeros(2), 0, 1.0, "divide")


def test_immutable_backend_returns_a_new_array_and_leaves_the_old(jax_device):
    backend = get_backend("jax")
    a = backend.xp.zeros((4,), dtype=backend.xp.float32)
    b = backend.at(a, slice(1, 3)).set(2.0)
    c = backend.at(b, 1).add(3.0)
    d = backend.at(c, Ellipsis).multiply(2.0)
    assert np.asarray(a).tolist() == [0.0] * 4
    assert np.asarray(d).tolist() == [0.0, 10.0, 4.0, 0.0]
    with pytest.raises(ValueError, match="unknown update"):
        backend.write(a, 0, 1.0, "divide")


def test_a_view_sees_a_write_into_its_base(device):
    base = ag.zeros(2, 3, device=device)
    row, col = base[1], base.t()[:, 0]
    base.add_(1.0)
    base[1, 2] = 7.0
    assert row.tolist() == [1.0, 1.0, 7.0]
    assert col.tolist() == [1.0, 1.0, 1.0]


def test_a_write_through_a_view_reaches_the_base_and_the_other_views(device):
    base = ag.zeros(2, 3, device=device)
    row, other = base[0], base[:, 1]
    row.fill_(5.0)
    row.mul_(2.0)
    assert base.tolist() == [[10.0, 10.0, 10.0], [0.0, 0.0, 0.0]]
    assert other.tolist() == [10.0, 0.0]
    assert row._version == base._version  # one counter for a base and its views


def test_a_write_through_a_view_is_differentiable(device):
    x = ag.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    y = x * 1.0
    y[1:].mul_(3.0)
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 3.0, 3.0]


@pytest.mark.parametrize("name", ["SGD", "Adam"])
def test_optimizers_step_as_on_numpy(device, name):
    ag.manual_seed(0)
    start = ag.randn(3, 2)
    results = []
    for dev in ("cpu", device):
        w = start.clone().to(dev).requires_grad_(True)
        opt = getattr(ag.optim, name)([w], lr=0.1, **({"momentum": 0.9} if name == "SGD" else {}))
        for _ in range(3):
            opt.zero_grad()
            (w * w).sum().backward()
            opt.step()
        results.append(w.tolist())
    assert np.allclose(results[0], results[1], atol=1e-6)


def test_index_put_shape_mismatch_says_so(device):
    x = ag.zeros(3, device=device)
    with pytest.raises(RuntimeError, match="shape mismatch"):
        x[0:2] = ag.ones(3, device=device)
    assert x.tolist() == [0.0, 0.0, 0.0]  # nothing changed on error


def test_gradcheck_runs_on_an_immutable_backend(device):
    x = ag.randn(2, 3, dtype=ag.float64).to(device).requires_grad_(True)
    assert ag.autograd.gradcheck(lambda t: (t.sin() * t).sum(dim=0), (x,))


def test_conv_padding_and_col2im_write_on_an_immutable_backend(device):
    ag.manual_seed(0)
    x, w = ag.randn(1, 2, 5, 5), ag.randn(3, 2, 3, 3)
    expected = ag.nn.functional.conv2d(x, w, padding=1)
    xd = x.to(device).requires_grad_(True)
    out = ag.nn.functional.conv2d(xd, w.to(device), padding=1)
    assert np.allclose(out.tolist(), expected.tolist(), atol=1e-5)
    out.sum().backward()  # col2im writes the windows' gradients back
    xc = x.clone().requires_grad_(True)
    ag.nn.functional.conv2d(xc, w, padding=1).sum().backward()
    assert np.allclose(xd.grad.tolist(), xc.grad.tolist(), atol=1e-5)
