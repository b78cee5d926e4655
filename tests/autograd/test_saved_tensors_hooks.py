"""``autograd.graph.saved_tensors_hooks``, ``save_on_cpu``, ``disable_saved_tensors_hooks``
and inference tensors, against PyTorch's semantics (and its values, where installed)."""

import threading

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd.graph import (
    disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks,
)
from arraygrad.ops.rule import reference_mode

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch not installed")


@pytest.fixture(params=[False, True], ids=["fast", "reference"])
def mode(request):
    """Every test both with the fast paths and in reference mode (they must honour hooks)."""
    with reference_mode(request.param):
        yield


def _log_hooks():
    log = []

    def pack(t):
        log.append(("pack", tuple(t.shape)))
        return ("packed", t)

    def unpack(p):
        assert p[0] == "packed"
        log.append("unpack")
        return p[1]

    return log, pack, unpack


def test_pack_at_save_unpack_at_backward(mode):
    log, pack, unpack = _log_hooks()
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True, dtype=ag.float64)
    with saved_tensors_hooks(pack, unpack):
        y = (x * x).tanh()  # mul saves both operands, tanh its own output
        loss = (y * 2.0).sum()
    assert [e for e in log if e != "unpack"] == [("pack", (3,))] * 3
    assert "unpack" not in log
    loss.backward()
    assert log.count("unpack") == 3
    t = np.tanh(np.array([1.0, 2.0, 3.0]) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), 2 * (1 - t * t) * 2 * np.array([1.0, 2.0, 3.0]),
                               rtol=1e-6)


def test_each_access_unpacks_and_the_tensor_takes_the_saved_ones_place(mode):
    log, pack, unpack = _log_hooks()
    x = ag.randn(3, requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        z = x.exp()
        y = x.pow(2)
    r = z.grad_fn._saved_result
    assert r.grad_fn is z.grad_fn and r is not z  # a new tensor, the node as grad_fn
    s = y.grad_fn._saved_self
    assert s is not x and s.requires_grad and s.is_leaf
    assert log.count("unpack") == 2
    np.testing.assert_array_equal(s.detach().numpy(), x.detach().numpy())


def test_hooks_active_at_save_time_are_used_not_those_at_backward(mode):
    x = ag.ones(2, requires_grad=True)
    seen = []
    with saved_tensors_hooks(lambda t: t * 3, lambda t: (seen.append("a"), t)[1]):
        y = (x * x).sum()  # saved operands are 3 * x
    with saved_tensors_hooks(lambda t: t, lambda t: (seen.append("b"), t)[1]):
        y.backward()
    assert seen == ["a", "a"]
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])


def test_nested_innermost_wins_and_stack_restores(mode):
    x = ag.ones(2, requires_grad=True)
    used = []
    with saved_tensors_hooks(lambda t: ("outer", t), lambda p: (used.append(p[0]), p[1])[1]):
        with saved_tensors_hooks(lambda t: ("inner", t), lambda p: (used.append(p[0]), p[1])[1]):
            a = x.exp()
        b = x.exp()
    c = x.exp()  # no hooks
    (a + b + c).sum().backward()
    assert sorted(used) == ["inner", "outer"]
    np.testing.assert_allclose(x.grad.numpy(), 3 * np.e * np.ones(2), rtol=1e-6)


def test_custom_function_save_for_backward_is_packed(mode):
    class Cube(ag.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * x * x
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * 3 * y / x

    log, pack, unpack = _log_hooks()
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = Cube.apply(x)
    assert log == [("pack", (2,)), ("pack", (2,))]
    y.sum().backward()
    assert log.count("unpack") == 2
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 12.0])


def test_unpack_must_return_a_tensor(mode):
    x = ag.ones(2, requires_grad=True)
    with saved_tensors_hooks(lambda t: 1, lambda p: 2):
        y = x.pow(2)
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor but got result of "
                                        "type int"):
        y.sum().backward()


def test_freed_after_backward(mode):
    x = ag.ones(2, requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x.pow(2)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.grad_fn._saved_self


def test_no_hooks_in_other_threads():
    x = ag.ones(2, requires_grad=True)
    packed = []
    started, done = threading.Event(), threading.Event()

    def other():
        started.wait()
        (x * x).sum()  # saves while the main thread has hooks open
        done.set()

    th = threading.Thread(target=other)
    th.start()
    with saved_tensors_hooks(lambda t: (packed.append(1), t)[1], lambda t: t):
        started.set()
        done.wait(10)
    th.join()
    assert packed == []


@needs_torch
def test_double_backward_through_hooks_matches_torch(mode):
    """The unpacked tensors stand for the saved ones in the graph: a gradient of a gradient
    reaches the leaf (PyTorch's SavedVariable keeps the leaf's grad accumulator)."""
    xv = np.array([0.3, -1.2, 2.0])

    def run(lib, hooks):
        x = lib.tensor(xv, requires_grad=True)
        with hooks(lambda t: t.detach().clone() * 1, lambda t: t):
            y = (x * x * x).sin().sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        g.sum().backward()
        return g.detach().numpy(), x.grad.numpy()

    ours = run(ag, saved_tensors_hooks)
    ref = run(torch, torch.autograd.graph.saved_tensors_hooks)
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_save_on_cpu_same_values_and_copies(mode):
    x = ag.randn(4, 3, requires_grad=True, dtype=ag.float64)
    w = ag.randn(3, 2, requires_grad=True, dtype=ag.float64)
    plain = ((x @ w).relu() ** 2).sum()
    plain.backward()
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = w.grad = None
    with save_on_cpu(pin_memory=False):
        loss = ((x @ w).relu() ** 2).sum()
    # save_on_cpu keeps a copy: in-place changes after the forward do not reach backward
    # (and are not flagged, as in PyTorch: hooks bypass the version check)
    saved = loss.grad_fn  # SumBackward
    assert saved is not None
    loss.backward()
    np.testing.assert_allclose(x.grad.numpy(), gx.numpy())
    np.testing.assert_allclose(w.grad.numpy(), gw.numpy())


def test_disable_saved_tensors_hooks():
    with disable_saved_tensors_hooks("no hooks here"):
        with pytest.raises(RuntimeError, match="no hooks here"):
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
        with disable_saved_tensors_hooks("inner"):
            with pytest.raises(RuntimeError, match="inner"):
                with saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass
        with pytest.raises(RuntimeError, match="no hooks here"):  # the outer one restored
            with saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    with saved_tensors_hooks(lambda t: t, lambda t: t):  # allowed again
        with pytest.raises(RuntimeError, match="nope"):
            with disable_saved_tensors_hooks("nope"):
                pass

    @disable_saved_tensors_hooks("decorated")
    def f():
        with saved_tensors_hooks(lambda t: t, lambda t: t):
            pass

    with pytest.raises(RuntimeError, match="decorated"):
        f()


def test_no_hooks_saves_plain_values():
    from arraygrad.autograd.graph import SavedOutput, SavedTensor

    x = ag.ones(2, requires_grad=True)
    with saved_tensors_hooks(lambda t: t, lambda t: t):
        pass
    y = (x * x).exp()
    assert type(y.grad_fn._saved[0]) is SavedOutput
    assert type(y.grad_fn.next_functions[0][0]._saved[0]) is SavedTensor


# -- inference tensors -------------------------------------------------------------------

def test_inference_tensors():
    with ag.inference_mode():
        i = ag.ones(3)
        j = i * 2
        assert ag.autograd.is_inference_mode_enabled()
    k = ag.ones(3)
    assert i.is_inference() and j.is_inference() and not k.is_inference()
    x = ag.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        (i * x).sum()
    (i + x).sum().backward()  # add saves nothing: allowed, as in PyTorch
    with pytest.raises(RuntimeError, match="Setting requires_grad=True on inference tensor "
                                           "outside InferenceMode is not allowed"):
        i.requires_grad_()
    with ag.inference_mode():
        i.requires_grad_()  # allowed inside
    with ag.inference_mode(False):
        assert not ag.ones(1).is_inference()
    with ag.no_grad():
        assert not ag.ones(1).is_inference()


@needs_torch
def test_inference_tensors_like_torch():
    with torch.inference_mode():
        ti = torch.ones(3)
    tx = torch.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="Inference tensors cannot be saved for backward"):
        ti * tx
    (ti + tx).sum().backward()


@pytest.mark.filterwarnings("ignore:Anomaly Detection")
def test_anomaly_queries():
    assert not ag.autograd.is_anomaly_enabled()
    with ag.autograd.detect_anomaly(check_nan=False):
        assert ag.autograd.is_anomaly_enabled()
        assert not ag.autograd.is_anomaly_check_nan_enabled()
    with ag.autograd.set_detect_anomaly(True):
        assert ag.autograd.is_anomaly_check_nan_enabled()


# -- hooks on one saved tensor (``node._raw_saved_<name>``) ------------------------------

def test_raw_saved_register_hooks(mode):
    x = ag.tensor([1.0, -2.0, 0.5], requires_grad=True)
    y = x.pow(2)
    raw = y.grad_fn._raw_saved_self
    raw.register_hooks(lambda t: t * 2, lambda t: t)  # packed now: backward sees 2x
    with pytest.raises(RuntimeError, match="hooks have already been set"):
        raw.register_hooks(lambda t: t, lambda t: t)
    np.testing.assert_allclose(raw.unpack().detach().numpy(), 2 * x.detach().numpy())
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 4 * x.detach().numpy())
    with pytest.raises(RuntimeError, match="register_hooks on a saved tensor after it has been "
                                           "freed"):
        raw.register_hooks(lambda t: t, lambda t: t)
    z = x.exp()
    out = z.grad_fn._raw_saved_result
    out.register_hooks(lambda t: t.detach().clone(), lambda t: t)
    assert out.unpack().grad_fn is z.grad_fn
    with pytest.raises(TypeError, match="register_hooks"):
        x.exp().grad_fn._raw_saved_result.register_hooks(1, lambda t: t)


@needs_torch
def test_raw_saved_register_hooks_like_torch():
    def run(lib):
        x = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
        y = (x * 3).sin()
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t + 1, lambda t: t * 2)
        y.sum().backward()
        return x.grad.numpy()

    np.testing.assert_allclose(run(ag), run(torch), rtol=1e-12)
