"""Concurrency: grad mode is per thread; threads with their own graphs get exactly their own
gradients; backwards from two threads into shared leaves both accumulate (guaranteed: the
engine commits ``.grad`` writes under a lock)."""

import threading

import arraygrad as ag
from reliability_helpers import report
from arraygrad import nn

THREADS, ITERATIONS = 4, 200


def _step(model, x, y):
    model.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    return loss.item(), [p.grad.tolist() for p in model.parameters()]


def _problem(seed):
    ag.manual_seed(seed)
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
    x, y = ag.randn(16, 4), ag.randn(16, 1)
    return model, x, y


def test_threads_match_sequential_results_exactly():
    problems = [_problem(s) for s in range(THREADS)]
    expected = [_step(*p) for p in problems]
    results = {i: [] for i in range(THREADS)}
    barrier = threading.Barrier(THREADS)

    def work(i):
        barrier.wait()
        for _ in range(ITERATIONS):
            results[i].append(_step(*problems[i]))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(THREADS):
        assert len(results[i]) == ITERATIONS
        assert all(r == expected[i] for r in results[i]), f"thread {i} diverged"
    report("threads x iterations", f"{THREADS} x {ITERATIONS}, all identical to sequential")


def test_grad_mode_is_thread_local_under_load():
    seen = []
    x = ag.ones(1, requires_grad=True)

    def no_grad_worker():
        with ag.no_grad():
            for _ in range(500):
                seen.append(("ng", (x * 2).requires_grad))

    def grad_worker():
        for _ in range(500):
            seen.append(("g", (x * 2).requires_grad))

    ts = [threading.Thread(target=no_grad_worker), threading.Thread(target=grad_worker)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert all(flag is (kind == "g") for kind, flag in seen)


def test_two_threads_backward_into_shared_leaves_accumulate_both():
    w = ag.randn(256, requires_grad=True)
    rounds = 100
    barrier = threading.Barrier(2)

    def work(scale):
        barrier.wait()
        for _ in range(rounds):
            (w * scale).sum().backward()

    ts = [threading.Thread(target=work, args=(s,)) for s in (1.0, 2.0)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert w.grad.tolist() == [rounds * 3.0] * 256
