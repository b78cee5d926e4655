"""A two-layer GCN (Kipf and Welling's, in pyGCN's form: ``torch.spmm(adj, x @ W)`` over a
normalised sparse COO adjacency) trained on a random graph with the same initial weights in
arraygrad and in PyTorch, in float64: the losses agree step by step, and so do the weights
and the adjacency's values' gradient at the end. ``examples/ported/gcn_sparse.py`` is the
full program (dropout, Adam with weight decay), compared with PyTorch on one random stream
by ``tests/examples/test_ported_programs.py``."""

import numpy as np
import pytest

from sparse_pairs import needs_torch, torch
import arraygrad as ag

pytestmark = [needs_torch, pytest.mark.filterwarnings("ignore:Sparse invariant checks")]

N, FEATURES, HIDDEN, CLASSES = 40, 6, 8, 3


def graph():
    rng = np.random.default_rng(7)
    labels = rng.integers(0, CLASSES, N)
    same = labels[:, None] == labels[None, :]
    adj = (rng.random((N, N)) < np.where(same, 0.2, 0.03)).astype(float)
    adj = np.maximum(adj, adj.T) + np.eye(N)
    adj = adj / adj.sum(1, keepdims=True)  # pyGCN's row normalisation
    rows, cols = np.nonzero(adj)
    features = rng.standard_normal((N, FEATURES)) + labels[:, None]
    weights = [rng.standard_normal((FEATURES, HIDDEN)) * 0.3, rng.standard_normal(HIDDEN) * 0.1,
               rng.standard_normal((HIDDEN, CLASSES)) * 0.3, rng.standard_normal(CLASSES) * 0.1]
    return np.stack([rows, cols]), adj[rows, cols], features, labels, weights


def train(L, steps=30, sparse_values_grad=False):
    indices, values, features, labels, weights = graph()
    v = L.tensor(values.tolist(), dtype=L.float64, requires_grad=sparse_values_grad)
    adj = L.sparse_coo_tensor(L.tensor(indices.tolist()), v, (N, N))
    x = L.tensor(features.tolist(), dtype=L.float64)
    y = L.tensor(labels.tolist())
    params = [L.tensor(w.tolist(), dtype=L.float64, requires_grad=True) for w in weights]
    opt = L.optim.Adam(params, lr=0.05, weight_decay=5e-4)
    losses = []
    for _ in range(steps):
        w1, b1, w2, b2 = params
        h = L.relu(L.spmm(adj, L.mm(x, w1)) + b1)
        out = L.nn.functional.log_softmax(L.spmm(adj, L.mm(h, w2)) + b2, dim=1)
        loss = L.nn.functional.nll_loss(out[:30], y[:30])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    accuracy = (out[30:].argmax(1) == y[30:]).double().mean().item()
    return losses, [p.detach().tolist() for p in params], v.grad, accuracy


def test_a_gcn_trains_as_in_pytorch_step_by_step():
    ours, our_params, _, our_accuracy = train(ag)
    theirs, their_params, _, their_accuracy = train(torch)
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)
    for a, b in zip(our_params, their_params):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    assert ours[-1] < 0.5 * ours[0] and our_accuracy == their_accuracy


def test_the_adjacency_values_get_pytorchs_gradient():
    *_, ours, _ = train(ag, steps=1, sparse_values_grad=True)
    *_, theirs, _ = train(torch, steps=1, sparse_values_grad=True)
    np.testing.assert_allclose(ours.tolist(), theirs.numpy(), rtol=1e-10, atol=1e-14)
