"""Hypothesis: random programs of 10-40 ops (elementwise, reductions, matmul, shape ops,
in-place updates, a backward and a parameter update) give eager's results bit for bit when
compiled, over several replays."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import arraygrad as ag

from .helpers import host, same

N = 4  # every value is (N, N): ops never fail on shapes


def _unary(name):
    return lambda a: getattr(a, name)()


OPS = [
    ("add", 2, lambda a, b: a + b),
    ("sub", 2, lambda a, b: a - b),
    ("mul", 2, lambda a, b: a * b),
    ("div", 2, lambda a, b: a / (b * b + 1.0)),
    ("matmul", 2, lambda a, b: a @ b),
    ("maximum", 2, lambda a, b: ag.maximum(a, b)),
    ("where", 2, lambda a, b: ag.where(a > b, a, b)),
    ("scalar", 1, lambda a: a * 0.5 + 2.0),
    ("rsub", 1, lambda a: 1.0 - a),
    ("tanh", 1, _unary("tanh")),
    ("sigmoid", 1, _unary("sigmoid")),
    ("exp", 1, lambda a: (a * 0.1).exp()),
    ("abs", 1, _unary("abs")),
    ("relu", 1, lambda a: ag.relu(a)),
    ("neg", 1, lambda a: -a),
    ("transpose", 1, lambda a: a.t()),
    ("sum", 1, lambda a: a.sum(0, keepdim=True).expand(N, N)),
    ("mean", 1, lambda a: a.mean(1, keepdim=True) + a),
    ("softmax", 1, lambda a: a.softmax(-1)),
    ("reshape", 1, lambda a: a.reshape(2, 8).reshape(N, N)),
    ("index", 1, lambda a: a[1:3].repeat(2, 1)),
    ("clone_inplace", 1, lambda a: a.clone().mul_(1.5).add_(0.25)),
    ("view_inplace", 1, lambda a: _view_inplace(a)),
    ("cat", 2, lambda a, b: ag.cat([a, b], 0)[1:1 + N]),
    ("stack", 2, lambda a, b: ag.stack([a, b]).mean(0)),
    ("pow", 1, lambda a: (a * a + 1.0) ** 0.5),
    ("log_softmax", 1, lambda a: a.log_softmax(0)),
    ("clamp", 1, lambda a: a.clamp(-0.5, 0.5)),
]


def _view_inplace(a):
    c = a.clone()
    c[1:3].mul_(0.5)  # through a view: the base changes too
    return c


@st.composite
def programs(draw):
    n = draw(st.integers(10, 40))
    prog = []
    for _ in range(n):
        i = draw(st.integers(0, len(OPS) - 1))
        arity = OPS[i][1]
        prog.append((i, [draw(st.integers(0, 100)) for _ in range(arity)]))
    lr = draw(st.sampled_from([0.01, 0.1]))
    return prog, lr


def _make(prog, lr):
    rng = np.random.default_rng(len(prog))
    w = ag.tensor(rng.standard_normal((N, N)).astype(np.float32) * 0.5, requires_grad=True)
    v = ag.tensor(rng.standard_normal((N, N)).astype(np.float32) * 0.5, requires_grad=True)

    def step(x):
        values = [x, w, v]
        for i, picks in prog:
            fn = OPS[i][2]
            values.append(fn(*[values[p % len(values)] for p in picks]))
        out = values[-1]
        loss = (out * out).mean() + (w * v).sum() * 0.01
        loss.backward()
        with ag.no_grad():
            for p in (w, v):
                p -= lr * p.grad.clamp(-1.0, 1.0)
                p.grad = None
        return loss, out.detach()
    return (w, v), step


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_programs_compile_exactly(case):
    prog, lr = case
    (w1, v1), eager = _make(prog, lr)
    (w2, v2), step = _make(prog, lr)
    compiled = ag.compile(step)
    rng = np.random.default_rng(1)
    for k in range(4):
        x = rng.standard_normal((N, N)).astype(np.float32)
        want = host(eager(ag.tensor(x)))
        got = host(compiled(ag.tensor(x)))
        assert same(want, got), k
        assert same(host([w1, v1]), host([w2, v2])), k
    assert compiled.stats["replays"] >= 2, compiled.stats
