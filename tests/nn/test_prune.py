"""``nn.utils.prune``: PyTorch's ``weight_orig``/``weight_mask`` design with a forward
pre-hook; masks, state_dict keys and results compared with PyTorch where installed."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.nn.utils import prune


def _script(lib):
    """One pruning session, run on arraygrad or on PyTorch: the observations it makes."""
    torch = importlib.import_module(lib)
    tp = importlib.import_module(lib + ".nn.utils.prune")
    tnn = torch.nn
    seen = []

    def conv():
        m = tnn.Conv2d(3, 4, 2)
        w = np.sin(np.arange(48, dtype=np.float32).reshape(4, 3, 2, 2) * 1.7)
        with torch.no_grad():
            m.weight.copy_(torch.tensor(w))
            m.bias.copy_(torch.tensor(np.cos(np.arange(4.0)).astype(np.float32)))
        return m

    m = conv()
    tp.l1_unstructured(m, "weight", amount=0.3)
    seen += [sorted(m.state_dict()), [n for n, _ in m.named_parameters()],
             int(m.weight_mask.sum()), tp.is_pruned(m)]
    tp.ln_structured(m, "weight", amount=1, n=2, dim=0)
    seen += [m.weight_mask.sum((1, 2, 3)).tolist()]
    tp.l1_unstructured(m, "bias", amount=2)
    seen += [m.bias_mask.tolist()]
    x = torch.tensor(np.cos(np.arange(96)).reshape(2, 3, 4, 4).astype(np.float32))
    y = m(x)
    y.sum().backward()
    seen += [round(float(y.detach().sum()), 4), round(float(m.weight_orig.grad.abs().sum()), 4)]
    tp.remove(m, "weight")
    seen += [[n for n, _ in m.named_parameters()], round(float(m.weight.detach().abs().sum()), 4)]
    a, b = conv(), tnn.Linear(4, 3)
    with torch.no_grad():
        b.weight.copy_(torch.tensor(np.sin(np.arange(12.0)).reshape(3, 4).astype(np.float32)))
    tp.global_unstructured([(a, "weight"), (b, "weight")], pruning_method=tp.L1Unstructured,
                           amount=20)
    seen += [int(a.weight_mask.sum()), int(b.weight_mask.sum())]
    c = tnn.Linear(3, 2)
    tp.custom_from_mask(c, "weight", torch.tensor([[1., 0., 1.], [0., 1., 1.]]))
    tp.random_unstructured(c, "weight", amount=1)
    container = next(iter(c._forward_pre_hooks.values()))
    seen += [int(c.weight_mask.sum()), type(container).__name__, len(container)]
    return seen


def test_matches_pytorch():
    pytest.importorskip("torch", reason="compares against PyTorch")
    assert _script("arraygrad") == _script("torch")


def test_reparametrization_and_hook():
    m = nn.Linear(4, 3)
    weight = m.weight
    prune.l1_unstructured(m, "weight", amount=5)
    assert m.weight_orig is weight and int((m.weight_mask == 0).sum()) == 5
    assert ag.equal(m.weight, m.weight_orig * m.weight_mask)
    with ag.no_grad():
        m.weight_orig.add_(1.0)
    m(ag.randn(2, 4))  # the pre-hook recomputes the pruned weight
    assert ag.equal(m.weight, m.weight_orig * m.weight_mask)
    prune.remove(m, "weight")
    assert not prune.is_pruned(m) and m.weight is weight
    assert int((m.weight == 0).sum()) == 5


def test_structured_random_and_importance_scores():
    m = nn.Linear(5, 4)
    prune.random_structured(m, "weight", amount=2, dim=1)
    assert m.weight_mask.sum(0).tolist().count(0.0) == 2
    n = nn.Linear(3, 2)
    scores = ag.tensor([[5.0, 0.1, 3.0], [0.2, 4.0, 6.0]])
    prune.l1_unstructured(n, "weight", amount=2, importance_scores=scores)
    assert n.weight_mask.tolist() == [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]


def test_errors_leave_the_module_unchanged():
    m = nn.Linear(2, 2)
    with pytest.raises(ValueError, match="should be smaller than the number of parameters"):
        prune.l1_unstructured(m, "weight", amount=5)
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"] and not m._forward_pre_hooks
    prune.l1_unstructured(m, "weight", amount=1)
    with pytest.raises(ValueError, match="should be smaller"):
        prune.l1_unstructured(m, "weight", amount=7)  # the first pruning stays as it was
    assert len(m._forward_pre_hooks) == 1 and int(m.weight_mask.sum()) == 3
    m = nn.Linear(2, 2)
    with pytest.raises(ValueError, match="float in the range"):
        prune.l1_unstructured(m, "weight", amount=1.5)
    with pytest.raises(ValueError, match="Structured pruning can only be applied"):
        prune.ln_structured(m, "bias", amount=1, n=2, dim=0)
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(m, "weight")
    with pytest.raises(TypeError, match='Only "unstructured"'):
        prune.global_unstructured([(m, "weight")], prune.LnStructured, amount=1, n=2, dim=0)


def test_prune_method_on_a_tensor():
    assert prune.Identity().prune(ag.ones(2)).tolist() == [1.0, 1.0]
    out = prune.L1Unstructured(amount=1).prune(ag.tensor([3.0, -1.0, 2.0]))
    assert out.tolist() == [3.0, 0.0, 2.0]
