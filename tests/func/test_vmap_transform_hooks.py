"""vmap plugs into the layers below through ``arraygrad.transform_state`` (issue 26): the hooks
it installs while it runs (``indexed_input`` for the ops of the indexing family, ``draws`` for
random ops), and the ops' ``@indexed_by`` declarations. Values against a loop over the
samples (or PyTorch)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad import transform_state
from arraygrad.func import grad, vmap
from arraygrad.ops import indexing

rng = np.random.default_rng(26)


def _t(a, **kw):
    return ag.tensor(np.asarray(a), **kw)


def test_hooks_are_installed_only_while_a_vmap_call_runs():
    seen = []

    def f(x):
        seen.append((transform_state.indexed_input is not None, transform_state.draws is not None,
                     len(transform_state.vmap_levels)))
        return x * 2

    assert transform_state.indexed_input is None and transform_state.draws is None
    vmap(f)(ag.ones(3))
    assert seen == [(True, True, 1)]
    assert transform_state.indexed_input is None and transform_state.draws is None
    assert transform_state.vmap_levels == []


def test_an_inner_call_that_returns_leaves_the_outer_ones_hooks():
    after_inner = []

    def outer(x):
        y = vmap(lambda r: r.sum())(x)
        after_inner.append(transform_state.indexed_input is not None)
        return y

    vmap(outer)(ag.ones(2, 3, 4))
    assert after_inner == [True]
    assert transform_state.indexed_input is None


def test_an_error_inside_vmap_clears_the_hooks():
    def fails(x):
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        vmap(fails)(ag.ones(3))
    assert transform_state.indexed_input is None and transform_state.draws is None
    assert transform_state.vmap_levels == []


def test_indexed_ops_keep_their_signature_and_doc():
    sig = inspect.signature(indexing.gather)
    assert list(sig.parameters) == ["input", "dim", "index"]
    assert indexing.gather.__doc__.startswith("``out[i][j] = input[index[i][j]][j]``")


def test_captured_input_by_keyword_with_batched_indices():
    """``gather(input=x, ...)``: the hook finds the input among the keywords too."""
    x = _t(rng.standard_normal((4, 5)), requires_grad=True)
    idx = _t(rng.integers(0, 4, (3, 2, 5)))
    got = vmap(lambda i: ag.gather(input=x, dim=0, index=i))(idx)
    want = ag.stack([ag.gather(x, 0, idx[k]) for k in range(3)])
    assert np.allclose(got.detach().numpy(), want.detach().numpy())
    got.sum().backward()
    g_vmap = x.grad.numpy().copy()
    x.grad = None
    want.sum().backward()
    assert np.allclose(g_vmap, x.grad.numpy())


@pytest.mark.parametrize("op", [
    lambda x, i: x[i],
    lambda x, i: ag.index_select(x, 0, i),
    lambda x, i: ag.take(x, i),
    lambda x, i: x.index_add(0, i, ag.ones(i.shape[0], x.shape[1], dtype=x.dtype)),
    lambda x, i: x.index_fill(0, i, 7.0),
])
def test_captured_input_with_batched_indices_matches_the_loop(op):
    x = _t(rng.standard_normal((4, 3)))
    idx = _t(rng.integers(0, 4, (5, 2)))
    got = vmap(lambda i: op(x, i))(idx)
    want = ag.stack([op(x, idx[k]) for k in range(5)])
    assert np.allclose(got.numpy(), want.numpy())


def test_binary_cross_entropy_of_a_captured_input_and_batched_targets():
    torch = pytest.importorskip("torch")
    p = rng.uniform(0.05, 0.95, (4,))
    targets = rng.uniform(0, 1, (3, 4))
    x = _t(p, requires_grad=True)

    def loss(t):
        return F.binary_cross_entropy(x, t)

    got = vmap(loss)(_t(targets))
    got.sum().backward()
    tx = torch.tensor(p, requires_grad=True)
    want = torch.stack([torch.nn.functional.binary_cross_entropy(tx, torch.tensor(t))
                        for t in targets])
    want.sum().backward()
    assert np.allclose(got.detach().numpy(), want.detach().numpy())
    assert np.allclose(x.grad.numpy(), tx.grad.numpy())


def test_per_sample_gradients_through_a_captured_gather():
    """``vmap(grad(f))`` where ``f`` reads a captured table at batched indices."""
    table = _t(rng.standard_normal((6, 3)))
    w = _t(rng.standard_normal(3))
    idx = _t(rng.integers(0, 6, (4, 2)))

    def f(w, i):
        return (table[i] @ w).sum()

    got = vmap(grad(f), in_dims=(None, 0))(w, idx)
    want = ag.stack([table[idx[k]].sum(0) for k in range(4)])
    assert np.allclose(got.numpy(), want.numpy())


def test_random_draws_follow_the_innermost_call():
    x = ag.zeros(4, 3)
    different = vmap(lambda r: r + ag.rand(3), randomness="different")(x)
    same = vmap(lambda r: r + ag.rand(3), randomness="same")(x)
    assert not np.allclose(different[0].numpy(), different[1].numpy())
    assert np.allclose(same[0].numpy(), same[1].numpy())
    with pytest.raises(RuntimeError, match="randomness"):
        vmap(lambda r: r + ag.rand(3))(x)
    assert transform_state.draws is None


def test_the_layers_below_get_the_transforms_from_the_package_root(monkeypatch):
    """``autograd.grad(is_grads_batched=True)`` & co. ask ``transform_state.transform``, which
    the package root answers with its lazy ``arraygrad.func``."""
    assert transform_state.transform("vmap") is ag.func.vmap
    assert transform_state.transform("jacfwd") is ag.func.jacfwd
    monkeypatch.setattr(transform_state, "find_transform", None)
    with pytest.raises(RuntimeError, match="arraygrad.func.vmap is not available"):
        transform_state.transform("vmap")


def test_is_grads_batched_through_the_handed_in_vmap():
    x = _t(rng.standard_normal(3), requires_grad=True)
    y = x ** 2
    rows = ag.eye(3, dtype=x.dtype)
    (g,) = ag.autograd.grad(y, x, rows, is_grads_batched=True)
    assert np.allclose(g.numpy(), np.diag(2 * x.detach().numpy()))
