"""``autograd.graph.register_multi_grad_hook`` in both modes, against PyTorch's documented
example (and PyTorch itself where installed)."""

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd.graph import register_multi_grad_hook

try:
    import torch
except ImportError:
    torch = None


def _example(lib):
    a = lib.rand(2, 3, requires_grad=True)
    b = lib.rand(2, 3, requires_grad=True)
    c = a * b
    d = a * b
    return a, b, c, d


def _all_mode_log(lib):
    a, b, c, d = _example(lib)
    log = []
    h = lib.autograd.graph.register_multi_grad_hook(
        (a, b, c, d), lambda grads: log.append([g is not None for g in grads]))
    c.sum().backward(retain_graph=True)
    c.sum().backward(inputs=(a,), retain_graph=True)
    (c + d).sum().backward(retain_graph=True)
    h.remove()
    c.sum().backward(retain_graph=True)
    return log


def test_all_mode_pytorch_example():
    assert _all_mode_log(ag) == [[True, True, True, False], [True, False, True, False],
                                 [True, True, True, True]]


@pytest.mark.skipif(torch is None, reason="PyTorch not installed")
def test_all_mode_like_torch():
    assert _all_mode_log(ag) == _all_mode_log(torch)


def test_all_mode_gets_the_gradients_once_per_pass():
    a, b, c, d = _example(ag)
    got = []
    register_multi_grad_hook((a, c), lambda grads: got.append(grads))
    (c * 2).sum().backward()
    assert len(got) == 1
    ga, gc = got[0]
    np.testing.assert_allclose(gc.numpy(), np.full((2, 3), 2.0))
    np.testing.assert_allclose(ga.numpy(), 2 * b.detach().numpy(), rtol=1e-6)


def test_autograd_grad_counts_only_needed_tensors():
    a, b, c, d = _example(ag)
    log = []
    register_multi_grad_hook((a, b, c), lambda grads: log.append([g is not None for g in grads]))
    ag.autograd.grad(c.sum(), (c,), retain_graph=True)
    assert log == [[False, False, True]]


def test_any_mode_fires_once_per_pass_with_the_first_gradient():
    a, b, c, d = _example(ag)
    seen = []
    h = register_multi_grad_hook((a, b, c, d), lambda g: seen.append(tuple(g.shape)), mode="any")
    (c + d).sum().backward(retain_graph=True)
    assert seen == [(2, 3)]
    (c + d).sum().backward(retain_graph=True)
    assert len(seen) == 2
    h.remove()
    (c + d).sum().backward()
    assert len(seen) == 2


def test_errors():
    a, b, c, d = _example(ag)
    with pytest.raises(ValueError, match=r"Expects mode to be one of \('all', 'any'\) but got x"):
        register_multi_grad_hook((a,), print, mode="x")
    plain = ag.ones(2)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        register_multi_grad_hook((a, plain), print)
    assert a._hooks is None or len(a._hooks) == 0  # nothing registered on error
    register_multi_grad_hook((a, plain), print, mode="any")  # any: skips it, as PyTorch
