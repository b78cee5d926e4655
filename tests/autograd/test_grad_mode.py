"""Grad modes: context managers, decorators, plain calls, exceptions, threads."""

import threading

import pytest

import arraygrad as ag


def test_enable_grad_inside_no_grad():
    x = ag.tensor([1.], requires_grad=True)
    with ag.no_grad():
        with ag.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad
    assert ag.is_grad_enabled()


def test_set_grad_enabled_as_decorator_does_not_change_mode_at_decoration():
    @ag.set_grad_enabled(False)
    def f(x):
        return x * 2

    assert ag.is_grad_enabled()
    x = ag.tensor([1.], requires_grad=True)
    assert not f(x).requires_grad
    assert ag.is_grad_enabled()


def test_no_grad_decorates_generators():
    @ag.no_grad()
    def gen(x):
        yield x * 2
        yield x * 3

    x = ag.tensor([1.], requires_grad=True)
    assert [y.requires_grad for y in gen(x)] == [False, False]
    assert ag.is_grad_enabled()


def test_mode_restored_after_exception():
    # set_grad_enabled(False) takes effect when constructed (as in PyTorch): build lazily
    makers = (ag.no_grad, ag.enable_grad, ag.inference_mode, lambda: ag.set_grad_enabled(False))
    for make in makers:
        with pytest.raises(ValueError):
            with make():
                raise ValueError
        assert ag.is_grad_enabled()
        assert not ag.is_inference_mode_enabled()


def test_inference_mode():
    x = ag.tensor([1.], requires_grad=True)
    with ag.inference_mode():
        assert ag.is_inference_mode_enabled()
        assert not (x * 2).requires_grad
    with ag.inference_mode(False):
        assert (x * 2).requires_grad


def test_grad_mode_is_thread_local():
    x = ag.tensor([1.], requires_grad=True)
    inside = threading.Event()
    release = threading.Event()
    results = {}

    def worker():
        with ag.no_grad():
            inside.set()
            release.wait(5)
            results["worker"] = (x * 2).requires_grad

    t = threading.Thread(target=worker)
    t.start()
    inside.wait(5)
    results["main"] = (x * 2).requires_grad
    release.set()
    t.join()
    assert results == {"main": True, "worker": False}


def test_threads_backward_their_own_graphs():
    def run(seed, out):
        x = ag.tensor([float(seed), 1.0], requires_grad=True)
        for _ in range(50):
            x.grad = None
            (x * x * seed).sum().backward()
        out[seed] = x.grad.tolist()

    out = {}
    threads = [threading.Thread(target=run, args=(s, out)) for s in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == {s: [2. * s * s, 2. * s] for s in range(1, 5)}
