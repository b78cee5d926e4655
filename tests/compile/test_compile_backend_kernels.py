"""A backend's own kernels called through ``plugins.registry.dispatch_kernel`` (NumPy's
``linalg_eig``, ``view_dtype`` behind ``.real``, ``vector_norm`` behind ``clip_grad_norm_``)
are recorded once under ``arraygrad.compile``: they were wrapped twice (by the recording
backend's ``kernel`` and again by the registry), the second wrapping broke the graph and
the kernel was dropped as failed for the rest of the process."""

from __future__ import annotations

import warnings

import numpy as np

import arraygrad as ag


def _no_warnings(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a graph break or a dropped kernel warns
        return fn(*args)


def test_eig_and_real_record_without_a_graph_break():
    a = ag.tensor(np.random.default_rng(0).standard_normal((3, 3)))

    @ag.compile
    def f(x):
        w, _ = ag.linalg.eig(x)
        return w.real.sum() + x.sum()

    for k in range(3):
        x = a + k
        expected = ag.linalg.eig(x)[0].real.sum() + x.sum()
        np.testing.assert_allclose(_no_warnings(f, x).item(), expected.item(), rtol=1e-12)


def test_clip_grad_norm_in_a_compiled_step_records_the_norm_kernel():
    w = ag.tensor(np.ones((3, 2)), requires_grad=True)
    opt = ag.optim.SGD([w], lr=0.1)

    @ag.compile
    def step(x):
        opt.zero_grad()
        (x @ w).pow(2).sum().backward()
        norm = ag.nn.utils.clip_grad_norm_([w], 0.5)
        opt.step()
        return norm

    x = ag.tensor(np.arange(6.0).reshape(2, 3))
    norms = [_no_warnings(step, x).item() for _ in range(3)]
    w_eager = ag.tensor(np.ones((3, 2)), requires_grad=True)
    opt_eager = ag.optim.SGD([w_eager], lr=0.1)
    for got in norms:
        opt_eager.zero_grad()
        (x @ w_eager).pow(2).sum().backward()
        expected = ag.nn.utils.clip_grad_norm_([w_eager], 0.5).item()
        opt_eager.step()
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(w.detach().numpy(), w_eager.detach().numpy(), rtol=1e-12)
