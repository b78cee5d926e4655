"""Gradients of sparse ops by finite differences in float64: through the values of a sparse
tensor (``gradcheck`` and ``gradgradcheck``: the rules' vjps are Tensor ops, so double
backward works), through sparse inputs with ``sparse.as_sparse_gradcheck``, and analytic
values of the gradients PyTorch's semantics define."""

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck

# a 3x3 matrix with (1, 2) stored twice and (2, 1) once
INDEX = [[1, 0, 1, 0, 2], [2, 0, 2, 2, 1]]


def sparse_of(values, shape=(3, 3)):
    return ag.sparse_coo_tensor(INDEX, values, shape)


CASES = {
    "sparse.mm": lambda v, d: ag.sparse.mm(sparse_of(v), d),
    "mm": lambda v, d: ag.mm(sparse_of(v), d),
    "dense @ sparse": lambda v, d: d.t() @ sparse_of(v),
    "sparse.addmm": lambda v, d: ag.sparse.addmm(d[:, :1], sparse_of(v), d, beta=0.5, alpha=2),
    "to_dense": lambda v, d: sparse_of(v).to_dense() * d.sum(),
    "coalesce values": lambda v, d: sparse_of(v).coalesce().values() * d[0, 0],
    "sparse.sum": lambda v, d: ag.sparse.sum(sparse_of(v) * d.sum()),
    "sparse.sum dim": lambda v, d: ag.sparse.sum(sparse_of(v) * d[0, 1], 0).to_dense(),
    "sum method": lambda v, d: sparse_of(v).sum() * d,
    "softmax": lambda v, d: ag.sparse.softmax(sparse_of(v), 1).to_dense(),
    "log_softmax": lambda v, d: ag.sparse.log_softmax(sparse_of(v), 0).to_dense(),
    "s * s": lambda v, d: (sparse_of(v) * sparse_of(v)).to_dense(),
    "s * broadcast dense": lambda v, d: (sparse_of(v) * d[:, :1]).to_dense(),
    "s + s.t()": lambda v, d: (sparse_of(v) + sparse_of(v).t()).to_dense(),
    "dense - s": lambda v, d: (d @ d.t()) - sparse_of(v),
    "tanh": lambda v, d: sparse_of(v).tanh().to_dense(),
    "pow": lambda v, d: (sparse_of(v) ** 3).to_dense(),
    "div": lambda v, d: (sparse_of(v) / 3).to_dense(),
    "hspmm": lambda v, d: ag.hspmm(sparse_of(v), d).to_dense(),
    "smm": lambda v, d: ag.smm(sparse_of(v), d).to_dense(),
    "sparse_mask": lambda v, d: (d @ d.t()).sparse_mask(sparse_of(v)).to_dense(),
    "native_norm": lambda v, d: ag.native_norm(sparse_of(v)) * d,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_and_second_derivatives_by_finite_differences(name):
    ag.manual_seed(0)
    v = ag.randn(5, dtype=ag.float64, requires_grad=True)
    d = ag.randn(3, 2, dtype=ag.float64, requires_grad=True)
    assert gradcheck(CASES[name], (v, d))
    assert gradgradcheck(CASES[name], (v, d))


def test_as_sparse_gradcheck_checks_through_a_sparse_input():
    ag.manual_seed(1)
    s = sparse_of(ag.randn(5, dtype=ag.float64)).requires_grad_(True)
    d = ag.randn(3, 2, dtype=ag.float64, requires_grad=True)
    check = ag.sparse.as_sparse_gradcheck(gradcheck)
    assert check(lambda a, b: ag.sparse.mm(a, b), (s, d))
    assert check(lambda a: ag.sparse.softmax(a, 0), (s,))


def test_sparse_mm_gradient_is_g_times_dense_transposed_on_the_pattern():
    s = ag.sparse_coo_tensor(INDEX, [1.0, 2.0, 3.0, 4.0, 5.0], (3, 3), dtype=ag.float64,
                             requires_grad=True)
    d = ag.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=ag.float64, requires_grad=True)
    g = ag.tensor([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0]], dtype=ag.float64)
    ag.sparse.mm(s, d).backward(g)
    full = (g @ d.detach().t()).tolist()
    assert s.grad.is_sparse and s.grad.is_coalesced()
    pattern = s.grad.indices().tolist()
    assert pattern == [[0, 0, 1, 2], [0, 2, 2, 1]]  # each stored position once
    expected = [full[r][c] for r, c in zip(*pattern)]
    assert s.grad.values().tolist() == expected
    dense_s = s.detach().to_dense()
    assert d.grad.tolist() == (dense_s.t() @ g).tolist()


def test_gradient_of_repeated_values_is_the_output_gradient_at_their_position():
    v = ag.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=ag.float64, requires_grad=True)
    g = ag.tensor(np.arange(9.0).reshape(3, 3).tolist(), dtype=ag.float64)
    sparse_of(v).to_dense().backward(g)
    # entries 0 and 2 both sit at (1, 2): each gets g[1, 2]
    assert v.grad.tolist() == [5.0, 0.0, 5.0, 2.0, 7.0]


def test_gradcheck_takes_a_sparse_input_masked():
    s = sparse_of(ag.tensor([1.0, 2.0, 3.0, 4.0, 5.0], dtype=ag.float64)).requires_grad_()
    assert gradcheck(lambda x: ag.sparse.softmax(x, 1).to_dense(), (s,), masked=True)
    assert gradgradcheck(lambda x: (x * x).to_dense(), (s,), masked=True)
    with pytest.raises(ValueError, match="masked=True"):
        gradcheck(lambda x: x.to_dense(), (s,))
