"""The namespace forms of the in-place ops (``torch.abs_(t)``, ``torch.clamp_(t, 0, 1)``...),
``torch.fill`` and ``torch.detach``/``detach_``: the same values as PyTorch, and the in-place
machinery's version counters, leaf checks and recording."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.ops.families.inplace_functions import _UNARY

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

VALUES = [0.3, -0.7, 0.9, -0.2, 0.55, 2.5]


def _positive(name):
    # the inverse hyperbolic cosine needs values >= 1; logs and roots positive ones
    if name in ("acosh_", "arccosh_"):
        return [1.5, 2.0, 3.0, 1.1, 4.0, 1.0]
    if name.startswith(("log", "sqrt", "rsqrt")):
        return [abs(v) + 0.1 for v in VALUES]
    if name in ("atanh_", "arctanh_", "acos_", "asin_", "arccos_", "arcsin_"):
        return [v / 3 for v in VALUES]
    return VALUES


@needs_torch
@pytest.mark.parametrize("name", [n for n in _UNARY if n != "detach_"])
def test_unary_forms_match_torch(name):
    values = _positive(name)
    ours = ag.tensor(values, dtype=ag.float64)
    theirs = torch.tensor(values, dtype=torch.float64)
    assert getattr(ag, name)(ours) is ours
    getattr(torch, name)(theirs)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-12)


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m, x: m.clamp_(x, -0.5, 0.5), lambda m, x: m.clamp_(x, min=0.0),
    lambda m, x: m.clip_(x, max=0.1), lambda m, x: m.clamp_min_(x, 0.2),
    lambda m, x: m.clamp_max_(x, m.zeros(6, dtype=x.dtype)), lambda m, x: m.fill_(x, 1.5),
    lambda m, x: m.fill_(x, m.tensor(2.0, dtype=x.dtype)),
    lambda m, x: m.nan_to_num_(x.log_(), nan=7.0, neginf=-1.0),
    lambda m, x: m.round_(x, decimals=1), lambda m, x: m.round_(x),
    lambda m, x: m.index_put_(x, (m.tensor([0, 2]),), m.tensor([5.0, 6.0], dtype=x.dtype)),
    lambda m, x: m.index_put_(x, (m.tensor([1, 1]),), m.tensor([1.0, 2.0], dtype=x.dtype), True),
    lambda m, x: m.addmv_(x, m.ones(6, 2, dtype=x.dtype), m.ones(2, dtype=x.dtype), beta=0.5,
                          alpha=2),
], ids=["clamp", "clamp_min_kw", "clip", "clamp_min", "clamp_max_tensor", "fill", "fill_tensor",
        "nan_to_num", "round_decimals", "round", "index_put", "index_put_accumulate", "addmv"])
def test_forms_with_arguments_match_torch(call):
    ours = ag.tensor(VALUES, dtype=ag.float64)
    theirs = torch.tensor(VALUES, dtype=torch.float64)
    out = call(ag, ours)
    call(torch, theirs)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
    assert out is ours


def test_inplace_forms_bump_the_version_and_refuse_leaves():
    x = ag.ones(3)
    before = x._version
    ag.sin_(x)
    ag.clamp_(x, 0, 0.5)
    assert x._version == before + 2
    leaf = ag.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        ag.exp_(leaf)


def test_inplace_forms_are_recorded():
    x = ag.tensor([0.5, 1.5], dtype=ag.float64, requires_grad=True)
    y = x * 1
    ag.sqrt_(y)
    ag.relu_(y)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 0.5 / np.sqrt([0.5, 1.5]))


@needs_torch
def test_fill_is_out_of_place_with_fill_gradients():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    v = ag.tensor(3.0, requires_grad=True)
    out = ag.fill(x, v)
    assert out.tolist() == [3.0, 3.0] and x.tolist() == [1.0, 2.0]
    out.sum().backward()
    tx = torch.tensor([1.0, 2.0], requires_grad=True)
    tv = torch.tensor(3.0, requires_grad=True)
    torch.fill(tx, tv).sum().backward()
    assert x.grad.tolist() == tx.grad.tolist() and v.grad.item() == tv.grad.item()
    with pytest.raises(RuntimeError, match="0-dimension value tensor"):
        ag.fill(x, ag.ones(2))


def test_detach_forms():
    x = ag.ones(2, requires_grad=True) * 2
    d = ag.detach(x)
    assert not d.requires_grad and d._version == x._version
    y = ag.ones(2, requires_grad=True) * 2
    assert ag.detach_(y) is y and not y.requires_grad


@needs_torch
@pytest.mark.parametrize("name", ["gcd_", "lcm_", "ldexp_"])
def test_binary_forms_match_torch(name):
    a, b = [12, -18, 7], [8, 4, 0]
    ours, theirs = ag.tensor(a), torch.tensor(a)
    if name == "ldexp_":
        ours, theirs = ours.double(), theirs.double()
    getattr(ag, name)(ours, ag.tensor(b))
    getattr(torch, name)(theirs, torch.tensor(b))
    assert ours.tolist() == theirs.tolist()
