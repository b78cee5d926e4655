"""``masked_fill`` with a mask the step computes is recorded as ``where(mask, value, x)``:
its index form (the mask's positions) has a size that depends on values, which broke the
graph (and made ONNX export impossible); now a compiled step replays it, with eager's
values and gradients."""

from __future__ import annotations

import numpy as np

import arraygrad as ag


def test_masked_fill_with_a_computed_mask_replays_with_fullgraph():
    f = ag.compile(lambda x: x.masked_fill(x > 0, -1.0) * 2, fullgraph=True)
    for _ in range(3):
        x = ag.randn(3, 4)
        assert ag.equal(f(x), x.masked_fill(x > 0, -1.0) * 2)
    assert f.stats == {"records": 1, "replays": 2, "eager": 0}


def test_compiled_training_step_through_masked_fill_matches_eager():
    def make():
        ag.manual_seed(0)
        return ag.nn.Linear(4, 4)

    def step(lin, x):
        out = lin(x)
        loss = out.masked_fill(out < 0, 0.0).pow(2).sum()
        loss.backward()
        return loss

    eager_lin, compiled_lin = make(), make()
    compiled = ag.compile(lambda x: step(compiled_lin, x), fullgraph=True)
    for i in range(3):
        x = ag.randn(5, 4)
        want = step(eager_lin, x)
        got = compiled(x)
        np.testing.assert_array_equal(got.detach().numpy(), want.detach().numpy())
        for a, b in zip(compiled_lin.parameters(), eager_lin.parameters()):
            np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())
    assert compiled.stats["eager"] == 0
