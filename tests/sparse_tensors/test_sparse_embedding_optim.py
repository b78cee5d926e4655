"""``nn.Embedding(sparse=True)`` and ``nn.EmbeddingBag(sparse=True)`` give the weight a sparse
COO gradient, as PyTorch's; SGD (with momentum and weight decay), Adagrad and SparseAdam train
with it to PyTorch's numbers; the other optimizers raise PyTorch's error and change nothing."""

import numpy as np
import pytest

import arraygrad as ag
from sparse_pairs import needs_torch, same_sparse, torch

pytestmark = [needs_torch, pytest.mark.filterwarnings("ignore:Sparse invariant checks")]

WEIGHT = (np.arange(12.0).reshape(6, 2) / 5).tolist()


def embedding(L, **kwargs):
    e = L.nn.Embedding(6, 2, sparse=True, dtype=L.float64, **kwargs)
    with L.no_grad():
        e.weight.copy_(L.tensor(WEIGHT, dtype=L.float64))
    return e


def loss(L, e, step=0):
    out = e(L.tensor([[1, 0, 3], [3, 3, 5 - step % 2]]))
    return (out * L.arange(12.0, dtype=L.float64).reshape(2, 3, 2)).pow(2).sum()


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 0}, {"max_norm": 1.0}])
def test_embedding_weight_gradient_is_pytorchs_sparse_tensor(kwargs):
    grads = []
    for L in (ag, torch):
        e = embedding(L, **kwargs)
        out = loss(L, e)
        out.backward()
        grads.append(e.weight.grad)
    same_sparse(grads[0], grads[1])
    assert grads[0]._nnz() == grads[1]._nnz()


def test_embedding_bag_weight_gradient_is_pytorchs_sparse_tensor():
    grads = []
    for L in (ag, torch):
        bag = L.nn.EmbeddingBag(6, 2, mode="mean", sparse=True, dtype=L.float64)
        with L.no_grad():
            bag.weight.copy_(L.tensor(WEIGHT, dtype=L.float64))
        bag(L.tensor([1, 2, 4, 5, 4, 3]), L.tensor([0, 2])).pow(2).sum().backward()
        grads.append(bag.weight.grad)
    same_sparse(grads[0], grads[1])


def test_scale_grad_by_freq_is_refused_with_sparse_gradients():
    with pytest.raises(RuntimeError, match="scale_grad_by_freq not supported with sparse"):
        ag.nn.functional.embedding(ag.tensor([1]), ag.ones(3, 2), scale_grad_by_freq=True,
                                   sparse=True)


@pytest.mark.parametrize("name, kwargs", [
    ("SGD", dict(lr=0.01)), ("SGD", dict(lr=0.01, momentum=0.9)),
    ("SGD", dict(lr=0.01, momentum=0.9, nesterov=True, dampening=0.0)),
    ("Adagrad", dict(lr=0.1)), ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
    ("SparseAdam", dict(lr=0.1)), ("SparseAdam", dict(lr=0.1, maximize=True)),
])
def test_optimizers_that_take_sparse_gradients_train_as_pytorchs(name, kwargs):
    weights = []
    for L in (ag, torch):
        e = embedding(L, padding_idx=0)
        opt = getattr(L.optim, name)(e.parameters(), **kwargs)
        for step in range(4):
            opt.zero_grad()
            loss(L, e, step).backward()
            assert e.weight.grad.is_sparse
            opt.step()
        weights.append(np.asarray(e.weight.detach().tolist()))
    np.testing.assert_allclose(weights[0], weights[1], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", ["Adam", "AdamW", "RMSprop", "Adadelta", "Adamax", "NAdam",
                                  "RAdam", "ASGD", "Rprop"])
def test_other_optimizers_refuse_sparse_gradients_as_pytorchs(name):
    messages = []
    for L in (ag, torch):
        e = embedding(L)
        before = np.asarray(e.weight.detach().tolist())
        loss(L, e).backward()
        opt = getattr(L.optim, name)(e.parameters())
        with pytest.raises(RuntimeError) as raised:
            opt.step()
        messages.append(str(raised.value))
        assert np.array_equal(np.asarray(e.weight.detach().tolist()), before)
    assert messages[0] == messages[1]


def test_adagrad_refuses_weight_decay_with_sparse_gradients():
    e = embedding(ag)
    loss(ag, e).backward()
    with pytest.raises(RuntimeError, match="weight_decay option is not compatible"):
        ag.optim.Adagrad(e.parameters(), weight_decay=0.1).step()


def test_lbfgs_takes_a_sparse_gradient_densely():
    e = embedding(ag)
    opt = ag.optim.LBFGS(e.parameters(), lr=0.1, max_iter=3)

    def closure():
        opt.zero_grad()
        out = loss(ag, e)
        out.backward()
        return out

    first = closure().item()
    opt.step(closure)
    assert closure().item() < first
