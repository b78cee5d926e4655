"""A user's optimizer written as PyTorch's documentation writes one (``tests/compile/helpers.
UserAdam``: numbers from the group handed to ``math.sqrt``, a Python step count) compiles
exactly: its reads are guarded by value and its Python counter is seen changing."""

from __future__ import annotations

import warnings

import numpy as np

import arraygrad as ag

from .helpers import UserAdam


def _problem():
    rng = np.random.default_rng(0)
    w = ag.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    x = ag.tensor(rng.standard_normal((5, 3)))
    opt = UserAdam([w], lr=0.01)

    def step():
        opt.zero_grad()
        loss = ((x @ w).tanh() ** 2).sum()
        loss.backward()
        opt.step()
        return loss
    return w, opt, step


def test_a_users_adam_with_an_lr_edit_is_exact():
    (w1, o1, eager), (w2, o2, step) = _problem(), _problem()
    compiled = ag.compile(step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (it may end up running eagerly)
        for i in range(8):
            if i == 4:
                for o in (o1, o2):
                    o.param_groups[0]["lr"] = 0.05
            assert eager().item() == compiled().item(), i
            assert np.array_equal(w1.detach().numpy(), w2.detach().numpy()), i
    assert o1.state[w1]["step"] == o2.state[w2]["step"] == 8
