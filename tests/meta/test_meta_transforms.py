"""The transforms on meta tensors: ``vmap`` (a level over the meta device has no values
either, so the ops' value checks skip inside it too), ``grad``/``jacrev``, ``compile``, and
loading a checkpoint onto the meta device."""

from __future__ import annotations

import io

import arraygrad as ag
from arraygrad.func import grad, jacrev, vmap
from arraygrad.nn import functional as F


def _meta(*shape, dtype=None):
    return ag.randn(*shape, device="meta") if dtype is None else \
        ag.zeros(*shape, dtype=dtype, device="meta")


def test_vmap_runs_ops_that_check_values_eagerly():
    x, idx = _meta(5, 3), _meta(5, 2, dtype=ag.int64)
    assert vmap(lambda a, i: a[i])(x, idx).shape == (5, 2)
    out = vmap(lambda a, i: F.cross_entropy(a[None], i[:1]))(x, idx)
    assert out.is_meta and out.shape == (5,)
    w = _meta(7, 4)
    assert vmap(lambda i: F.embedding(i, w))(idx).shape == (5, 2, 4)


def test_function_transforms_give_meta_results():
    x = _meta(5, 3)
    assert vmap(lambda a: (a * a).sum())(x).shape == (5,)
    g = grad(lambda a: a.sin().sum())(x)
    assert g.is_meta and g.shape == (5, 3)
    assert jacrev(lambda a: a.tanh())(_meta(3)).shape == (3, 3)


def test_compiled_steps_replay_on_meta():
    net = ag.nn.Linear(3, 4, device="meta")
    step = ag.compile(lambda x, t: F.cross_entropy(net(x), t))
    x, t = _meta(5, 3), _meta(5, dtype=ag.int64)
    for _ in range(2):  # the recording, then a replay
        loss = step(x, t)
        assert loss.is_meta and loss.shape == ()


def test_checkpoints_load_onto_meta():
    buf = io.BytesIO()
    ag.save({"w": ag.ones(2, 3), "step": 3}, buf)
    buf.seek(0)
    loaded = ag.load(buf, map_location="meta")
    assert loaded["step"] == 3 and loaded["w"].is_meta and loaded["w"].shape == (2, 3)
