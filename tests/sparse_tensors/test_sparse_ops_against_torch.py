"""Every sparse op against PyTorch: the result (layout, stored entries, dense values, grad_fn
name) and the gradients of a sparse leaf and of a dense operand (layout, number of entries,
values). PyTorch's own gradient layouts are the specification: ``sparse.mm``'s gradient of the
sparse operand is sparse on its (coalesced) pattern, ``mm``'s is dense, ``to_dense``'s is
masked..."""

import numpy as np
import pytest

import arraygrad as ag
from sparse_pairs import coo, needs_torch, same_grad, same_sparse, torch

pytestmark = needs_torch


def dense_operand(L, shape=(3, 2)):
    data = np.arange(1.0, 1.0 + np.prod(shape)).reshape(shape) / 4
    return L.tensor(data.tolist(), dtype=L.float64, requires_grad=True)


def run(L, op):
    """``op(L, sparse leaf, dense (3, 2) leaf, dense (2, 3) leaf)`` and a backward of a weighted
    sum of its result."""
    s = coo(L, requires_grad=True)
    d, e = dense_operand(L), dense_operand(L, (2, 3))
    out = op(L, s, d, e)
    dense = out.to_dense() if out.is_sparse else out
    weights = L.tensor(np.linspace(0.5, 2.0, dense.numel()).reshape(tuple(dense.shape)).tolist(),
                       dtype=dense.dtype)
    (dense * weights).sum().backward()
    return out, s, d, e


OPS = {
    # products
    "sparse.mm": lambda L, s, d, e: L.sparse.mm(s, d),
    "mm": lambda L, s, d, e: L.mm(s, d),
    "spmm": lambda L, s, d, e: L.spmm(s, d),
    "matmul": lambda L, s, d, e: L.matmul(s, d),
    "@": lambda L, s, d, e: s @ d,
    "s.mm": lambda L, s, d, e: s.mm(d),
    "dense @ sparse": lambda L, s, d, e: d.t() @ s.t(),
    "mm(dense, sparse)": lambda L, s, d, e: L.mm(d.t()[:, :2], s),
    "matmul vector": lambda L, s, d, e: L.matmul(s, d[:, 0]),
    "sparse.addmm": lambda L, s, d, e: L.sparse.addmm(L.ones(2, 2, dtype=L.float64), s, d,
                                                   beta=0.5, alpha=2.0),
    "addmm": lambda L, s, d, e: L.addmm(L.ones(2, 2, dtype=L.float64), s, d),
    # conversions and structure
    "to_dense": lambda L, s, d, e: s.to_dense() * 3,
    "coalesce": lambda L, s, d, e: s.coalesce(),
    "values": lambda L, s, d, e: s.coalesce().values() * 2,
    "t": lambda L, s, d, e: s.t(),
    "T": lambda L, s, d, e: s.T,
    "transpose": lambda L, s, d, e: s.transpose(0, 1),
    "double": lambda L, s, d, e: s.float(),
    "clone": lambda L, s, d, e: s.clone(),
    "sparse_mask": lambda L, s, d, e: (d @ d.t())[:2, :3].sparse_mask(s),
    "sparse_mask coalesced": lambda L, s, d, e: e.sparse_mask(s.coalesce()),
    # arithmetic
    "s * 2": lambda L, s, d, e: s * 2,
    "2 * s": lambda L, s, d, e: 2 * s,
    "mul": lambda L, s, d, e: L.mul(s, 0.5),
    "s / 4": lambda L, s, d, e: s / 4,
    "-s": lambda L, s, d, e: -s,
    "s + s": lambda L, s, d, e: s + s,
    "add alpha": lambda L, s, d, e: s.add(s.coalesce(), alpha=2),
    "s - s.coalesce": lambda L, s, d, e: s - s.coalesce() * 3,
    "coalesced + coalesced": lambda L, s, d, e: s.coalesce() + s.coalesce(),
    "dense + s": lambda L, s, d, e: (d @ d.t())[:2, :3] + s,
    "dense.add(s)": lambda L, s, d, e: (d @ d.t())[:2, :3].add(s, alpha=3),
    "dense - s": lambda L, s, d, e: (d @ d.t())[:2, :3] - s,
    "s * dense": lambda L, s, d, e: s * e,
    "dense * s": lambda L, s, d, e: e * s,
    "sub dense leaf": lambda L, s, d, e: e - s,
    "s * s": lambda L, s, d, e: s * s.coalesce(),
    "s ** 2": lambda L, s, d, e: s ** 2,
    "abs": lambda L, s, d, e: s.abs(),
    "relu": lambda L, s, d, e: s.relu(),
    "neg": lambda L, s, d, e: s.neg(),
    # reductions
    "sparse.sum": lambda L, s, d, e: L.sparse.sum(s),
    "sparse.sum dim": lambda L, s, d, e: L.sparse.sum(s, 0),
    "sparse.sum dims": lambda L, s, d, e: L.sparse.sum(s, (0, 1)),
    "sum()": lambda L, s, d, e: s.sum(),
    "torch.sum": lambda L, s, d, e: L.sum(s),
    "softmax": lambda L, s, d, e: L.sparse.softmax(s, 1),
    "log_softmax": lambda L, s, d, e: L.sparse.log_softmax(s, 0),
}

# where arraygrad's graph is a composite of the primitives (or ``T`` one rule, ``matmul`` of a
# vector a matrix product): other node names than PyTorch's
COMPOSITE_NODES = {"values", "sparse.sum dim", "sparse.sum dims", "softmax", "log_softmax",
                   "s ** 2", "abs", "relu", "sparse_mask", "sparse_mask coalesced", "T", "addmm",
                   "matmul vector"}
# where the sum of two uncoalesced operands stores its entries in another order than PyTorch's
# merge walk does (the tensor they stand for is the same)
OTHER_ENTRY_ORDER = {"add alpha", "s - s.coalesce"}
# where PyTorch stores another representation of the same gradient (its entries repeated)
SAME_DENSE_GRADIENT = {"s * s", "s * dense", "dense * s"}


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_and_gradients_match_pytorch(name):
    op = OPS[name]
    ours, s, d, e = run(ag, op)
    theirs, ts, td, te = run(torch, op)
    same_sparse(ours, theirs, exact_entries=name not in OTHER_ENTRY_ORDER,
                tol=1e-12 if "softmax" not in name else 1e-9)
    if name not in COMPOSITE_NODES:
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    same_grad(d, td)
    for ours_leaf, their_leaf in ((s, ts), (e, te)):
        if name in SAME_DENSE_GRADIENT and ours_leaf.grad is not None:
            assert ours_leaf.grad.is_sparse and their_leaf.grad.is_sparse
            np.testing.assert_allclose(ours_leaf.grad.to_dense().tolist(),
                                       their_leaf.grad.to_dense().numpy())
        else:
            same_grad(ours_leaf, their_leaf, tol=1e-9)


# ops whose backward PyTorch does not have (or fails in): the forward is compared here, the
# gradients against finite differences (test_sparse_gradcheck.py)
FORWARD_ONLY = {
    "sqrt": lambda L, s: (s * s).sqrt(), "tanh": lambda L, s: s.tanh(),
    "sin": lambda L, s: s.sin(), "hspmm": lambda L, s: L.hspmm(s, dense_operand(L)),
    "smm": lambda L, s: L.smm(s, dense_operand(L)),
    "sum keepdim": lambda L, s: s.sum(0, keepdim=True),
    "s * row": lambda L, s: s * dense_operand(L)[:, 1],
    "native_norm": lambda L, s: L.native_norm(s, 1),
}


@pytest.mark.parametrize("name", sorted(FORWARD_ONLY))
def test_ops_pytorch_has_no_gradient_for_match_its_forward(name):
    op = FORWARD_ONLY[name]
    with torch.no_grad():
        theirs = op(torch, coo(torch))
    same_sparse(op(ag, coo(ag)), theirs, tol=1e-12)


def test_sspaddmm_matches_pytorch():
    def call(L):
        return L.sspaddmm(L.sparse_coo_tensor([[0], [1]], [5.0], (2, 2), dtype=L.float64),
                          coo(L), dense_operand(L).detach(), beta=0.5, alpha=2.0)
    same_sparse(call(ag), call(torch))


def test_hybrid_tensors_coalesce_and_sum_as_pytorchs():
    def hybrid(L):
        return L.sparse_coo_tensor([[2, 0, 2]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], (3, 2),
                                   dtype=L.float64)
    for op in (lambda L, h: h.coalesce(), lambda L, h: L.sparse.sum(h, 1),
               lambda L, h: L.sparse.sum(h, 0), lambda L, h: h * 2, lambda L, h: h + h,
               lambda L, h: L.sparse.softmax(h, 1)):
        same_sparse(op(ag, hybrid(ag)), op(torch, hybrid(torch)))
