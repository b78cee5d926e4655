"""docs/compile-optimizers.md: its optimizer examples run and compute what they say, eagerly
and (when ``arraygrad.compile`` is there) compiled, bit for bit."""

from __future__ import annotations

import pathlib
import re
import warnings

import numpy as np
import pytest

import arraygrad as ag

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "compile-optimizers.md"
BLOCK = re.compile(r"```python\n(.*?)```", re.S)


@pytest.fixture(scope="module")
def namespace():
    blocks = BLOCK.findall(DOC.read_text())
    assert len(blocks) == 2
    ns: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"compile-optimizers.md[block {i}]", "exec"), ns)  # noqa: S102
    return ns


def test_the_example_optimizer_steps_as_printed(namespace):
    assert np.allclose(namespace["w"].detach().numpy(), [0.5, -1.5])


def _train(cls, steps, compiled, strict=True):
    w = ag.tensor([1.0, -2.0, 0.5], requires_grad=True)
    opt = cls([w], lr=0.5)
    sched = ag.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)

    def step():
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
        sched.step()
    run = ag.compile(step) if compiled else step
    out = []
    with warnings.catch_warnings():
        # a graph break warns (SignSGD's Python count: "runs eagerly from now on", said)
        warnings.simplefilter("error" if strict else "ignore")
        for _ in range(steps):
            run()
            out.append(w.detach().numpy().copy())
    return out, run


@pytest.mark.parametrize("name", ["SignSGD", "WarmSGD"])
def test_the_examples_compile_to_eagers_numbers(namespace, name):
    if not hasattr(ag, "compile"):
        pytest.skip("arraygrad.compile is absent")
    eager, _ = _train(namespace[name], 8, compiled=False)
    got, run = _train(namespace[name], 8, compiled=True, strict=name == "WarmSGD")
    assert all(np.array_equal(a, b) for a, b in zip(eager, got))
    # a user's optimizer reads ``lr`` by value: the scheduler's changes (every 2 steps)
    # record again; SignSGD's Python count changes at every call (never replayed)
    if name == "WarmSGD":
        assert run.stats["replays"] >= 2, run.stats
