"""The short cuts of a sampling loop's calls give the long way's answers: one draw without
replacement is the first of the sorted keys (argmax), ``Categorical.sample()`` of one draw
needs no transposition, ``log_prob`` of a value of the batch shape needs no broadcast."""

from __future__ import annotations

import pytest

import arraygrad as ag
from arraygrad.distributions import Categorical


@pytest.mark.parametrize("weights", [[0.1, 0.5, 0.4], [0.0, 0.0, 1.0], [1.0, 1.0],
                                     [0.0, 2.0, 0.0, 2.0], [3.0]])
@pytest.mark.parametrize("rows", [0, 1, 3])
def test_one_draw_without_replacement_is_the_first_of_two(weights, rows):
    p = ag.tensor([weights] * rows) if rows else ag.tensor(weights)
    for seed in range(40):
        one = ag.multinomial(p, 1, generator=ag.Generator().manual_seed(seed))
        if len(weights) == 1:
            assert one.tolist() == ([[0]] * rows if rows else [0])
            continue
        two = ag.multinomial(p, 2, generator=ag.Generator().manual_seed(seed))
        assert one.tolist() == two[..., :1].tolist()
        assert one.dtype == ag.int64 and one.shape == two[..., :1].shape


def test_sample_shapes_and_values():
    probs = ag.tensor([[0.2, 0.8], [0.9, 0.1], [0.5, 0.5]])
    c = Categorical(probs)
    ag.manual_seed(3)
    one = c.sample()
    ag.manual_seed(3)
    many = c.sample((1,))
    assert one.shape == (3,) and many.shape == (1, 3) and one.tolist() == many[0].tolist()
    assert c.sample((4, 2)).shape == (4, 2, 3)
    assert Categorical(ag.tensor([0.3, 0.7])).sample().shape == ()


def test_log_prob_without_and_with_broadcasting():
    logits = ag.tensor([[0.1, 1.0, -0.5], [2.0, 0.0, 0.3]], requires_grad=True)
    c = Categorical(logits=logits)
    value = ag.tensor([2, 0])
    lp = c.log_prob(value)
    normalised = logits - logits.logsumexp(-1, keepdim=True)
    assert lp.tolist() == [normalised[0, 2].item(), normalised[1, 0].item()]
    lp.sum().backward(retain_graph=True)  # (the normalised logits are shared)
    grad = logits.grad.clone()
    logits.grad = None
    wide = c.log_prob(ag.tensor([[2, 0], [1, 1]]))  # a sample shape in front: broadcast
    assert wide.shape == (2, 2) and wide[0].tolist() == lp.tolist()
    wide[0].sum().backward()
    assert logits.grad.tolist() == grad.tolist()


def test_log_prob_matches_pytorch():
    torch = pytest.importorskip("torch")
    raw = [[0.1, 1.0, -0.5], [2.0, 0.0, 0.3]]
    a = ag.tensor(raw, requires_grad=True)
    t = torch.tensor(raw, requires_grad=True)
    la = Categorical(logits=a).log_prob(ag.tensor([2, 0]))
    lt = torch.distributions.Categorical(logits=t).log_prob(torch.tensor([2, 0]))
    assert la.tolist() == pytest.approx(lt.tolist(), rel=1e-6)
    la.sum().backward(), lt.sum().backward()
    for x, y in zip(a.grad.flatten().tolist(), t.grad.flatten().tolist()):
        assert x == pytest.approx(y, rel=1e-6, abs=1e-7)


def test_the_work_dtype_cache_does_not_keep_a_backend_alive():
    import gc
    import weakref

    from arraygrad.ops.families import random_ops
    from arraygrad_numpy.backend import NumpyBackend

    backend = NumpyBackend()
    assert random_ops._work_dtype(backend) == random_ops._work_dtype(backend)
    gone = weakref.ref(backend)
    del backend
    gc.collect()
    assert gone() is None  # (a compile's recording backend is dropped with its compile)
