"""``einsum``: values and gradients against ``torch.einsum`` on many equations (skipped
without PyTorch), against NumPy's ``einsum`` always, double backward, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

F64 = ag.float64

# (equation, operand shapes)
EQUATIONS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i->", [(4,), (4,)]),
    ("i,i", [(4,), (4,)]),
    ("i,j->ij", [(3,), (2,)]),
    ("i,j", [(3,), (2,)]),
    ("ij->ji", [(2, 3)]),
    ("ij", [(2, 3)]),
    ("ji", [(2, 3)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iij->j", [(3, 3, 2)]),
    ("iji->ij", [(3, 2, 3)]),
    ("iii->i", [(2, 2, 2)]),
    ("ij->", [(2, 3)]),
    ("ij->j", [(2, 3)]),
    ("ijk->kji", [(2, 3, 4)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("ij,ji->", [(2, 3), (3, 2)]),
    ("ij,ij,ij->i", [(2, 3), (2, 3), (2, 3)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 2), (2, 2), (2, 3)]),
    ("i,ij,j->", [(2,), (2, 3), (3,)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ijk,ikl->ijl", [(2, 3, 4), (2, 4, 1)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 2)]),
    ("...ij,...jk", [(5, 2, 3, 4), (1, 4, 2)]),
    ("...,...->...", [(2, 1), (3,)]),
    ("i...->...", [(3, 2, 2)]),
    ("...i->i", [(2, 3, 4)]),
    ("i...->", [(2, 3)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("a...b,b...c->a...c", [(2, 3, 4), (4, 3, 2)]),
    ("...", [(2, 3)]),
    ("i,i->i", [(1,), (3,)]),
    ("bi,bi->i", [(1, 3), (2, 3)]),
    ("ij,kj->ik", [(2, 3), (4, 3)]),
    ("ij,jk->", [(2, 3), (3, 4)]),
    ("Ab,ba->Aa", [(2, 3), (3, 4)]),
    ("bA,aB", [(2, 3), (4, 5)]),
    ("i,,j->ij", [(2,), (), (3,)]),
    (",->", [(), ()]),
    ("ii,ij->j", [(3, 3), (3, 2)]),
    ("ij,jj,jk->ik", [(2, 3), (3, 3), (3, 2)]),
    ("i j , j k -> i k", [(2, 3), (3, 4)]),
    ("ij,jk->ik", [(2, 0), (0, 3)]),
    ("ij,jk->ik", [(0, 3), (3, 2)]),
]


def _operands(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in shapes]


def _ag(arrays):
    return [ag.tensor(a.tolist(), dtype=F64).reshape(a.shape).requires_grad_() for a in arrays]


def _np(t):
    return np.asarray(t.detach().tolist(), dtype=float)


@needs_torch
@pytest.mark.parametrize("equation,shapes", EQUATIONS, ids=[e for e, _ in EQUATIONS])
def test_matches_torch_einsum_values_and_gradients(equation, shapes):
    arrays = _operands(shapes)
    ours = _ag(arrays)
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = ag.einsum(equation, *ours)
    ref = torch.einsum(equation, *theirs)
    assert tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_allclose(_np(out).reshape(ref.shape), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    w = np.random.default_rng(1).standard_normal(tuple(ref.shape))
    (out * ag.tensor(w.tolist(), dtype=F64).reshape(w.shape)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(_np(a.grad).reshape(t.shape), t.grad.numpy(), rtol=1e-10, atol=1e-12)


NUMPY_EQUATIONS = [(e, s) for e, s in EQUATIONS
                   # NumPy neither broadcasts named size-1 dims nor sums an ellipsis the output drops
                   if e not in ("i,i->i", "bi,bi->i", "...i->i", "i...->")]


@pytest.mark.parametrize("equation,shapes", NUMPY_EQUATIONS, ids=[e for e, _ in NUMPY_EQUATIONS])
def test_matches_numpy_einsum(equation, shapes):
    arrays = _operands(shapes)
    out = ag.einsum(equation, *_ag(arrays))
    ref = np.einsum(equation.replace(" ", ""), *arrays)
    assert tuple(out.shape) == ref.shape
    np.testing.assert_allclose(_np(out).reshape(ref.shape), ref, rtol=1e-10, atol=1e-12)


@needs_torch
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_random_equations_match_torch(data):
    sizes = dict(zip("abcdE", data.draw(st.lists(st.integers(1, 3), min_size=5, max_size=5))))
    n_ops = data.draw(st.integers(1, 3))
    terms = [data.draw(st.lists(st.sampled_from("abcdE"), max_size=4)) for _ in range(n_ops)]
    used = sorted({c for t in terms for c in t})
    out = data.draw(st.permutations(used).flatmap(lambda p: st.integers(0, len(p)).map(lambda k: p[:k])))
    equation = ",".join("".join(t) for t in terms) + "->" + "".join(out)
    arrays = [np.random.default_rng(i).standard_normal([sizes[c] for c in t]) for i, t in enumerate(terms)]
    ours = _ag(arrays)
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    got, ref = ag.einsum(equation, *ours), torch.einsum(equation, *theirs)
    assert tuple(got.shape) == tuple(ref.shape), equation
    np.testing.assert_allclose(_np(got).reshape(ref.shape), ref.detach().numpy(), rtol=1e-9, atol=1e-11)
    got.sum().backward()
    ref.sum().backward()
    for a, t in zip(ours, theirs):
        np.testing.assert_allclose(_np(a.grad).reshape(t.shape), t.grad.numpy(), rtol=1e-9, atol=1e-11)


@needs_torch
@pytest.mark.parametrize("equation", ["ij,jk->ik", "ij,ij->i", "ij,ji,jk->", "ii,ij->j"])
def test_the_same_tensor_as_several_operands(equation):
    data = np.random.default_rng(3).standard_normal((3, 3))
    (a,) = _ag([data])
    t = torch.tensor(data, requires_grad=True)
    n = equation.split("->")[0].count(",") + 1
    out, ref = ag.einsum(equation, *[a] * n), torch.einsum(equation, *[t] * n)
    np.testing.assert_allclose(_np(out).reshape(ref.shape), ref.detach().numpy(), rtol=1e-10)
    (g,) = ag.autograd.grad(out.sum(), a, create_graph=True)
    (gt,) = torch.autograd.grad(ref.sum(), t, create_graph=True)
    np.testing.assert_allclose(_np(g), gt.detach().numpy(), rtol=1e-10)
    (gg,) = ag.autograd.grad((g * g).sum(), a)
    (ggt,) = torch.autograd.grad((gt * gt).sum(), t)
    np.testing.assert_allclose(_np(gg), ggt.numpy(), rtol=1e-10)


def test_operands_as_a_list():
    a, b = _ag(_operands([(2, 3), (3, 2)]))
    np.testing.assert_allclose(_np(ag.einsum("ij,jk", [a, b])), _np(a @ b))


@pytest.mark.parametrize("equation,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 2)]),
    ("ii->i", [(3, 3)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (3, 2)]),
    ("i,ij,j->", [(2,), (2, 3), (3,)]),
    ("iij,jk->ik", [(2, 2, 3), (3, 2)]),
])
def test_gradcheck_and_double_backward(equation, shapes):
    inputs = tuple(_ag(_operands(shapes)))
    fn = lambda *xs: ag.einsum(equation, *xs)  # noqa: E731
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("equation,shapes", [
    ("ij,jk->ik", [(2, 3)]),             # fewer operands than terms
    ("ij->ik", [(2, 3)]),                # output subscript not in any input
    ("ij->ii", [(2, 3)]),                # repeated output subscript
    ("ijk", [(2, 3)]),                   # too many subscripts
    ("i", [(2, 3)]),                     # too few, no ellipsis
    ("ii", [(2, 3)]),                    # repeated subscript of different sizes
    ("ij,jk", [(2, 3), (4, 2)]),         # sizes do not match
    ("i1", [(2, 3)]),                    # not a letter
    ("i.j", [(2, 3)]),                   # stray dot
    ("ij->...", [(2, 3)]),               # output ellipsis, none in the inputs
])
def test_errors_are_runtime_errors(equation, shapes):
    with pytest.raises(RuntimeError, match="einsum"):
        ag.einsum(equation, *_ag(_operands(shapes)))
