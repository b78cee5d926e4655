"""Sparse tensors in the autograd engine: gradients accumulate across backward passes as
PyTorch's do (sparse + sparse on one pattern stays that pattern, a dense gradient makes the
sum dense), hooks and ``autograd.grad`` see sparse gradients, ``retain_graph`` and freed
graphs behave, in-place changes of a saved sparse tensor are caught, and dense ops take
sparse operands where PyTorch does."""

import pytest

import arraygrad as ag
from sparse_pairs import coo, needs_torch, same_grad, torch


def run_twice(L, first, second):
    s = coo(L, requires_grad=True)
    d = L.ones(3, 2, dtype=L.float64)
    for op in (first, second):
        op(L, s, d).sum().backward()
    return s


@needs_torch
@pytest.mark.parametrize("first, second", [
    ("sparse.mm", "sparse.mm"), ("mm", "mm"), ("sparse.mm", "mm"), ("mm", "sparse.mm")])
def test_gradients_accumulate_as_pytorchs(first, second):
    ops = {"sparse.mm": lambda L, s, d: L.sparse.mm(s, d), "mm": lambda L, s, d: L.mm(s, d)}
    same_grad(run_twice(ag, ops[first], ops[second]), run_twice(torch, ops[first], ops[second]))


def test_a_sparse_gradient_accumulates_without_growing():
    s = coo(ag, requires_grad=True)
    d = ag.ones(3, 2, dtype=ag.float64)
    for _ in range(5):
        ag.sparse.sum(ag.sparse.mm(s, d).to_sparse()).backward()
    assert s.grad.is_sparse and s.grad._nnz() == 3  # the pattern's positions, not 15 entries
    assert s.grad.to_dense().tolist() == [[10.0, 10.0, 0.0], [0.0, 0.0, 10.0]]


def test_hooks_and_autograd_grad_see_sparse_gradients():
    s = coo(ag, requires_grad=True)
    d = ag.ones(3, 2, dtype=ag.float64)
    seen = []
    s.register_hook(lambda g: seen.append((g.is_sparse, g._nnz())))
    ag.sparse.mm(s, d).sum().backward()
    assert seen == [(True, 3)]
    (g,) = ag.autograd.grad(ag.sparse.mm(s, d).sum(), s)
    assert g.is_sparse and g._nnz() == 3 and s.grad.is_sparse


def test_a_hook_may_replace_a_sparse_gradient():
    s = coo(ag, requires_grad=True)
    s.register_hook(lambda g: g * 0)
    ag.sparse.mm(s, ag.ones(3, 2, dtype=ag.float64)).sum().backward()
    assert s.grad.is_sparse and s.grad.to_dense().abs().sum().item() == 0


def test_second_backward_through_a_freed_graph_raises():
    v = ag.tensor([1.0, 2.0, 3.0, 4.0], dtype=ag.float64, requires_grad=True)
    out = ag.sparse.mm(ag.sparse_coo_tensor([[1, 0, 1, 0], [2, 0, 2, 1]], v, (2, 3)),
                       ag.ones(3, 2, dtype=ag.float64)).sum()
    out.backward(retain_graph=True)
    out.backward()
    assert v.grad.tolist() == [4.0, 4.0, 4.0, 4.0]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.backward()


def test_changing_a_saved_sparse_tensor_in_place_is_caught():
    s = coo(ag, requires_grad=True)
    d = ag.ones(3, 2, dtype=ag.float64, requires_grad=True)
    out = ag.sparse.mm(s, d).sum()
    with ag.no_grad():
        s.zero_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()


def test_in_place_on_a_leaf_that_requires_grad_is_refused():
    s = coo(ag, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        s.zero_()
    assert s._nnz() == 4  # nothing changed


def test_nothing_is_recorded_without_grad_mode():
    s = coo(ag, requires_grad=True)
    with ag.no_grad():
        out = ag.sparse.mm(s * 2, ag.ones(3, 2, dtype=ag.float64))
    assert out.grad_fn is None and not out.requires_grad


def test_dense_in_place_add_of_a_sparse_tensor():
    # an optimizer's p.add_(grad) with a sparse gradient
    p = ag.zeros(2, 3, dtype=ag.float64)
    p.add_(coo(ag), alpha=-0.5)
    assert p.tolist() == [[-2.0, 0.75, 0.0], [0.0, 0.0, -4.0]]


def test_a_dense_operand_made_by_an_op_gets_a_dense_gradient():
    # (PyTorch fails here: its slice backward cannot take the sparse gradient)
    d = ag.ones(3, 3, dtype=ag.float64, requires_grad=True)
    (d[:2, :] * ag.sparse_coo_tensor([[0, 1], [1, 2]], [2.0, 3.0], (2, 3),
                                     dtype=ag.float64)).to_dense().sum().backward()
    assert not d.grad.is_sparse
    assert d.grad.tolist() == [[0.0, 2.0, 0.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]]


def test_forward_mode_refuses_sparse_rules_by_name():
    import arraygrad.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        v = fwAD.make_dual(ag.tensor([1.0, 2.0]), ag.tensor([1.0, 0.0]))
        with pytest.raises(NotImplementedError, match="forward AD"):
            ag.sparse_coo_tensor([[0, 1]], v, (2,))


def test_a_compiled_step_with_a_sparse_tensor_runs_eagerly_with_the_same_numbers():
    def setup():
        ag.manual_seed(0)
        lin = ag.nn.Linear(4, 2)
        return lin, ag.optim.SGD(lin.parameters(), lr=0.1), ag.randn(3, 4)

    adj = ag.sparse_coo_tensor([[0, 1, 2, 2], [1, 2, 0, 2]], [0.5, 0.5, 0.3, 0.7], (3, 3))

    def make_step(lin, opt, x):
        def step():
            opt.zero_grad()
            loss = ag.spmm(adj, lin(x)).pow(2).sum()
            loss.backward()
            opt.step()
            return loss.item()
        return step

    eager = make_step(*setup())
    want = [eager() for _ in range(3)]
    compiled = ag.compile(make_step(*setup()))
    with pytest.warns(UserWarning, match="graph break.*a sparse tensor"):
        got = [compiled() for _ in range(3)]
    assert got == want


def test_vmap_over_a_sparse_operand_is_refused_and_keeps_the_kernel():
    adj = ag.sparse_coo_tensor([[0, 1, 2, 2], [1, 2, 0, 2]], [0.5, 0.5, 0.3, 0.7], (3, 3))
    with pytest.raises(NotImplementedError, match="vmap does not batch sparse tensors"):
        ag.vmap(lambda x: ag.sparse.mm(adj, x))(ag.ones(5, 3, 2))
    with pytest.raises(NotImplementedError, match="vmap does not batch sparse tensors"):
        ag.vmap(lambda x: ag.mm(adj, x))(ag.ones(5, 3, 2))
    assert ag.sparse.mm(adj, ag.ones(3, 1)).flatten().tolist() == [0.5, 0.5, 1.0]


def test_the_numpy_kernel_declines_arrays_it_does_not_know():
    np = pytest.importorskip("numpy")
    from arraygrad_numpy.sparse_kernels import sparse_mm

    indices, dense = np.array([[0, 1], [1, 0]]), np.ones((2, 2), np.float16)
    assert sparse_mm(indices, np.ones(2, np.float16), dense, 2) is NotImplemented
    assert sparse_mm(indices.tolist(), np.ones(2), np.ones((2, 2)), 2) is NotImplemented
