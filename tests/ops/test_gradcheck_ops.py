"""gradcheck and gradgradcheck for every differentiable op, from one table.

Each case: an id, a function of float64 tensors, the input shapes, and an input
generator keeping the inputs in the op's domain (positive for log/sqrt, away
from kinks for abs/relu/clamp/max...).
"""

from __future__ import annotations

import math

import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.ops.indexing import index_put

F64 = ag.float64


# -- input generators: gen(shapes) -> list of float64 tensors ---------------------

def normal(shapes):
    return [ag.randn(*s, dtype=F64) for s in shapes]


def positive(shapes):
    """Uniform in [0.5, 1.5]."""
    return [ag.rand(*s, dtype=F64) + 0.5 for s in shapes]


def grid(shapes):
    """Distinct values 0.05 + 0.3 k over all inputs jointly, shuffled.

    No two values are equal (no ties between or within inputs), none is within
    0.05 of 0, +-0.5, +-1 or +-2 (the kinks of abs, relu, sign, clamp, max...).
    """
    sizes = [math.prod(s) for s in shapes]
    total = sum(sizes)
    perm = ag.randperm(total).to(F64)
    vals = (perm - total // 2) * 0.3 + 0.05
    out, start = [], 0
    for s, n in zip(shapes, sizes):
        out.append(vals[start:start + n].reshape(s).detach().clone())
        start += n
    return out


def away(shapes):
    """Normal magnitudes shifted away from zero: |x| in [0.3, 1.3]."""
    return [(ag.rand(*s, dtype=F64) + 0.3) * ag.where(ag.rand(*s) < 0.5, -1.0, 1.0).double()
            for s in shapes]


def with_zeros(*positions):
    """Normal values with zeros at the given flat positions of the first input."""
    def gen(shapes):
        xs = away(shapes)
        flat = xs[0].reshape(-1).detach().clone()
        for p in positions:
            flat[p] = 0.0
        xs[0] = flat.reshape(shapes[0])
        return xs
    return gen


def _setitem_on_clone(a, v):
    c = a.clone()
    c[1:, ::2] = v
    return c


IDX = ag.tensor([0, 0, 1])
MASK = ag.tensor([[True, False, True], [False, True, True]])
GATHER_IDX = ag.tensor([[0, 0, 2], [1, 0, 1]])


def case(name, fn, shapes, gen=normal, marks=()):
    return pytest.param(fn, shapes, gen, id=name, marks=marks)


CASES = [
    # arithmetic: tensor-tensor (with broadcasting), tensor-scalar, scalar-tensor
    case("add", lambda a, b: a + b, [(2, 3), (2, 3)]),
    case("add-broadcast", lambda a, b: a + b, [(2, 1, 3), (4, 1)]),
    case("add-scalar", lambda a: a + 2.5, [(2, 3)]),
    case("radd-scalar", lambda a: 2.5 + a, [(2, 3)]),
    case("add-alpha", lambda a, b: ag.add(a, b, alpha=-2.0), [(2, 3), (3,)]),
    case("sub", lambda a, b: a - b, [(2, 3), (2, 3)]),
    case("sub-broadcast", lambda a, b: a - b, [(3,), (2, 1)]),
    case("sub-scalar", lambda a: a - 1.5, [(2, 3)]),
    case("rsub-scalar", lambda a: 1.5 - a, [(2, 3)]),
    case("sub-alpha", lambda a, b: ag.sub(a, b, alpha=3.0), [(2, 3), (2, 1)]),
    case("mul", lambda a, b: a * b, [(2, 3), (2, 3)]),
    case("mul-broadcast", lambda a, b: a * b, [(2, 1, 3), (4, 1)]),
    case("mul-0dim", lambda a, b: a * b, [(2, 3), ()]),
    case("mul-scalar", lambda a: a * 3.0, [(2, 3)]),
    case("rmul-scalar", lambda a: 3.0 * a, [(2, 3)]),
    case("mul-self", lambda a: a * a, [(2, 3)]),
    case("div", lambda a, b: a / b, [(2, 3), (2, 3)], away),
    case("div-broadcast", lambda a, b: a / b, [(2, 3), (3,)], away),
    case("div-scalar", lambda a: a / 4.0, [(2, 3)]),
    case("rdiv-scalar", lambda a: 4.0 / a, [(2, 3)], away),
    case("floordiv", lambda a, b: a // b, [(2, 3), (2, 3)], away),
    case("floordiv-scalar", lambda a: a // 0.7, [(2, 3)], away),
    case("rfloordiv-scalar", lambda a: 3.0 // a, [(2, 3)], away),
    case("mod", lambda a, b: a % b, [(2, 3), (2, 3)], away),
    case("mod-broadcast", lambda a, b: a % b, [(2, 3), (3,)], away),
    case("mod-scalar", lambda a: a % 0.7, [(2, 3)], away),
    case("rmod-scalar", lambda a: 3.0 % a, [(2, 3)], away),
    case("pow", lambda a, b: a ** b, [(2, 3), (2, 3)], positive),
    case("pow-broadcast", lambda a, b: a ** b, [(2, 3), (3,)], positive),
    case("pow-scalar-2", lambda a: a ** 2, [(2, 3)]),
    case("pow-scalar-3", lambda a: a ** 3, [(2, 3)]),
    case("pow-scalar-0", lambda a: a ** 0, [(2, 3)]),
    case("pow-scalar-half", lambda a: a ** 0.5, [(2, 3)], positive),
    case("pow-scalar-neg", lambda a: a ** -1.5, [(2, 3)], positive),
    case("rpow-scalar", lambda a: 2.0 ** a, [(2, 3)]),
    case("neg", lambda a: -a, [(2, 3)]),
    # matmul family
    case("matmul-1d-1d", lambda a, b: a @ b, [(3,), (3,)]),
    case("matmul-2d-1d", lambda a, b: a @ b, [(2, 3), (3,)]),
    case("matmul-1d-2d", lambda a, b: a @ b, [(3,), (3, 2)]),
    case("matmul-2d-2d", lambda a, b: a @ b, [(2, 3), (3, 2)]),
    case("matmul-batched", lambda a, b: a @ b, [(2, 2, 3), (2, 3, 2)]),
    case("matmul-batched-broadcast", lambda a, b: a @ b, [(2, 1, 2, 3), (3, 3, 2)]),
    case("matmul-2d-batched", lambda a, b: a @ b, [(2, 3), (2, 3, 2)]),
    case("matmul-batched-1d", lambda a, b: a @ b, [(2, 2, 3), (3,)]),
    case("matmul-1d-batched", lambda a, b: a @ b, [(3,), (2, 3, 2)]),
    case("mm", ag.mm, [(2, 3), (3, 2)]),
    case("bmm", ag.bmm, [(2, 2, 3), (2, 3, 2)]),
    case("mv", ag.mv, [(2, 3), (3,)]),
    case("dot", ag.dot, [(3,), (3,)]),
    case("outer", ag.outer, [(3,), (2,)]),
    # unary math
    case("abs", ag.abs, [(2, 3)], grid),
    case("exp", ag.exp, [(2, 3)]),
    case("log", ag.log, [(2, 3)], positive),
    case("log1p", ag.log1p, [(2, 3)], positive),
    case("expm1", ag.expm1, [(2, 3)]),
    case("sqrt", ag.sqrt, [(2, 3)], positive),
    case("rsqrt", ag.rsqrt, [(2, 3)], positive),
    case("sin", ag.sin, [(2, 3)]),
    case("cos", ag.cos, [(2, 3)]),
    case("tan", ag.tan, [(2, 3)]),
    case("tanh", ag.tanh, [(2, 3)]),
    case("sigmoid", ag.sigmoid, [(2, 3)]),
    case("reciprocal", ag.reciprocal, [(2, 3)], away),
    case("relu", ag.relu, [(2, 3)], grid),
    case("sign", ag.sign, [(2, 3)], grid),
    case("clamp-min", lambda a: ag.clamp(a, min=-0.5), [(3, 4)], grid),
    case("clamp-max", lambda a: ag.clamp(a, max=0.5), [(3, 4)], grid),
    case("clamp-both", lambda a: a.clamp(-0.5, 1.0), [(3, 4)], grid),
    case("clamp-tensor-bounds", lambda a, lo, hi: ag.clamp(a, min=lo, max=hi),
         [(2, 3), (2, 3), (3,)], grid),
    case("clamp-tensor-min", lambda a, lo: ag.clamp(a, min=lo), [(2, 3), (3,)], grid),
    case("maximum", ag.maximum, [(2, 3), (2, 3)], grid),
    case("maximum-broadcast", ag.maximum, [(2, 3), (3,)], grid),
    case("minimum", ag.minimum, [(2, 3), (2, 3)], grid),
    case("minimum-broadcast", ag.minimum, [(2, 1), (3,)], grid),
    case("where", lambda a, b: ag.where(a > 0, a, b), [(2, 3), (2, 3)], grid),
    case("where-broadcast", lambda a, b: ag.where(a > 0, a, b), [(2, 3), (3,)], grid),
    case("where-scalar", lambda a: ag.where(a > 0, a, 0.5), [(2, 3)], grid),
    # reductions
    case("sum", lambda a: a.sum(), [(2, 3)]),
    case("sum-dim", lambda a: a.sum(1), [(2, 3)]),
    case("sum-dims", lambda a: a.sum((0, 2)), [(2, 3, 2)]),
    case("sum-keepdim", lambda a: a.sum(-1, keepdim=True), [(2, 3)]),
    case("mean", lambda a: a.mean(), [(2, 3)]),
    case("mean-dim", lambda a: a.mean(0), [(2, 3)]),
    case("mean-dims-keepdim", lambda a: a.mean((0, 2), keepdim=True), [(2, 3, 2)]),
    case("prod", lambda a: a.prod(), [(2, 3)], away),
    case("prod-dim", lambda a: a.prod(1), [(2, 3)], away),
    case("prod-dim-keepdim", lambda a: a.prod(0, keepdim=True), [(2, 3)], away),
    case("prod-one-zero", lambda a: a.prod(), [(2, 3)], with_zeros(2)),
    case("prod-two-zeros", lambda a: a.prod(), [(2, 3)], with_zeros(1, 4)),
    case("prod-dim-one-zero", lambda a: a.prod(1), [(2, 3)], with_zeros(1)),
    case("prod-dim-two-zeros", lambda a: a.prod(1), [(2, 3)], with_zeros(3, 5)),
    case("max-all", lambda a: a.max(), [(2, 3)], grid),
    case("min-all", lambda a: a.min(), [(2, 3)], grid),
    case("max-dim", lambda a: tuple(a.max(1)), [(2, 3)], grid),
    case("max-dim-keepdim", lambda a: tuple(a.max(0, keepdim=True)), [(2, 3)], grid),
    case("min-dim", lambda a: tuple(a.min(-1)), [(2, 3)], grid),
    case("max-binary", lambda a, b: ag.max(a, b), [(2, 3), (2, 3)], grid),
    case("amax", lambda a: a.amax(), [(2, 3)], grid),
    case("amax-dim", lambda a: a.amax(1), [(2, 3)], grid),
    case("amin-dims-keepdim", lambda a: ag.amin(a, (0, 2), keepdim=True), [(2, 3, 2)], grid),
    case("var", lambda a: a.var(), [(2, 3)]),
    case("var-dim-corr0", lambda a: a.var(1, correction=0), [(2, 3)]),
    case("var-dim-corr1", lambda a: a.var(1, correction=1), [(2, 3)]),
    case("var-keepdim", lambda a: a.var(0, keepdim=True), [(3, 2)]),
    case("std", lambda a: a.std(), [(2, 3)]),
    case("std-dim-corr0", lambda a: a.std(0, correction=0), [(3, 2)]),
    case("std-dim-corr1", lambda a: a.std(1, correction=1, keepdim=True), [(2, 3)]),
    case("logsumexp", lambda a: ag.logsumexp(a, 1), [(2, 3)]),
    case("logsumexp-dims-keepdim", lambda a: a.logsumexp((0, 1), keepdim=True), [(2, 3)]),
    case("norm", lambda a: a.norm(), [(2, 3)], away),
    case("norm-p2-dim", lambda a: a.norm(2, dim=1), [(2, 3)], away),
    case("norm-p1-dim", lambda a: a.norm(1, dim=1), [(2, 3)], grid),
    case("norm-inf-dim", lambda a: a.norm(float("inf"), dim=1), [(2, 3)], grid),
    case("norm-inf", lambda a: a.norm(float("inf")), [(2, 3)], grid),
    case("norm-p3-dim", lambda a: a.norm(3, dim=0), [(2, 3)], away),
    case("cumsum", lambda a: a.cumsum(1), [(2, 3)]),
    case("cumsum-dim0", lambda a: ag.cumsum(a, dim=0), [(3, 2)]),
    # shape ops
    case("reshape", lambda a: a.reshape(3, 2), [(2, 3)]),
    case("reshape-infer", lambda a: a.reshape(-1), [(2, 3)]),
    case("view", lambda a: a.view(1, 6), [(2, 3)]),
    case("flatten", lambda a: a.flatten(1), [(2, 3, 2)]),
    case("squeeze", lambda a: a.squeeze(), [(2, 1, 3)]),
    case("squeeze-dim", lambda a: a.squeeze(1), [(2, 1, 3)]),
    case("unsqueeze", lambda a: a.unsqueeze(-1), [(2, 3)]),
    case("transpose", lambda a: a.transpose(0, 2), [(2, 3, 2)]),
    case("permute", lambda a: a.permute(2, 0, 1), [(2, 3, 2)]),
    case("T", lambda a: a.T, [(2, 3)]),
    case("mT", lambda a: a.mT, [(2, 2, 3)]),
    case("expand", lambda a: a.expand(2, 3, 3), [(3, 1)]),
    case("expand-neg1", lambda a: a.expand(-1, 4), [(2, 1)]),
    case("repeat", lambda a: a.repeat(2, 1, 2), [(2, 3)]),
    case("flip", lambda a: a.flip(0, 1), [(2, 3)]),
    case("cat", lambda a, b: ag.cat([a, b], 1), [(2, 3), (2, 2)]),
    case("cat-dim0", lambda a, b, c: ag.cat([a, b, c]), [(1, 3), (2, 3), (1, 3)]),
    case("stack", lambda a, b: ag.stack([a, b], 1), [(2, 3), (2, 3)]),
    case("split", lambda a: a.split(2, 1), [(2, 5)]),
    case("split-sizes", lambda a: ag.split(a, [1, 3], 1), [(2, 4)]),
    case("chunk", lambda a: a.chunk(2), [(3, 2)]),
    case("unbind", lambda a: a.unbind(1), [(2, 3)]),
    case("narrow", lambda a: a.narrow(1, 1, 2), [(2, 4)]),
    case("movedim", lambda a: a.movedim(0, -1), [(2, 3, 2)]),
    # indexing
    case("index-int", lambda a: a[1], [(3, 2)]),
    case("index-neg-int", lambda a: a[-1, 0], [(3, 2)]),
    case("index-slices", lambda a: a[1:, ::2], [(3, 4)]),
    case("index-none-ellipsis", lambda a: a[None, ..., 1], [(2, 3, 2)]),
    case("index-int-array-repeats", lambda a: a[IDX], [(3, 2)]),
    case("index-list-repeats", lambda a: a[[2, 2, 0]], [(3, 2)]),
    case("index-int-array-2d", lambda a: a[:, ag.tensor([[0, 1], [1, 1]])], [(2, 3)]),
    case("index-two-arrays", lambda a: a[IDX, ag.tensor([1, 1, 0])], [(3, 2)]),
    case("index-bool-mask", lambda a: a[MASK], [(2, 3)]),
    case("index-bool-mask-rows", lambda a: a[ag.tensor([True, False, True])], [(3, 2)]),
    case("gather", lambda a: a.gather(1, GATHER_IDX), [(2, 3)]),
    case("gather-dim0", lambda a: ag.gather(a, 0, ag.tensor([[2, 0], [2, 1]])), [(3, 2)]),
    case("index_select", lambda a: a.index_select(0, IDX), [(3, 2)]),
    case("index_select-dim1", lambda a: ag.index_select(a, 1, ag.tensor([2, 0, 2])), [(2, 3)]),
    case("index-separated-arrays", lambda a: a[ag.tensor([0, 2]), :, ag.tensor([1, 1])],
         [(3, 2, 2)]),
    case("index-ellipsis-mask", lambda a: a[..., ag.tensor([True, False, True])], [(2, 3)]),
    case("take_along_dim", lambda a: ag.take_along_dim(a, ag.tensor([[0], [2]]), 1), [(2, 3)]),
    case("index_put-slice", lambda a, v: index_put(a, (slice(0, 2),), v), [(3, 2), (2, 2)]),
    case("index_put-array-broadcast", lambda a, v: index_put(a, ag.tensor([2, 0]), v),
         [(3, 2), (2,)]),
    case("setitem-on-clone", _setitem_on_clone, [(3, 4), (2, 2)]),
    # activations and copies
    case("softmax", lambda a: a.softmax(1), [(2, 3)]),
    case("softmax-dim0", lambda a: ag.softmax(a, dim=0), [(2, 3)]),
    case("log_softmax", lambda a: a.log_softmax(-1), [(2, 3)]),
    case("log_softmax-dim0", lambda a: ag.log_softmax(a, dim=0), [(3, 2)]),
    case("clone", lambda a: a.clone(), [(2, 3)]),
    case("to-same-dtype", lambda a: a.to(ag.float64), [(2, 3)]),
    case("double", lambda a: a.double(), [(2, 3)]),
    case("floor-ceil-round-trunc", lambda a: a.floor() + a.ceil() + a.round() + a.trunc(),
         [(2, 3)], grid),
    case("norm-neginf-dim", lambda a: a.norm(float("-inf"), dim=1), [(2, 3)], grid),
    case("norm-p0.5-dim", lambda a: a.norm(0.5, dim=1), [(2, 3)], away),
    case("prod-dims-tuple-zeros", lambda a: a.prod((0, 2)), [(2, 2, 2)], with_zeros(0, 3)),
    # 0-dim tensors accept dim 0 / -1
    case("0dim-sum-dim0", lambda a: a.sum(0), [()]),
    case("0dim-cumsum", lambda a: a.cumsum(-1), [()]),
    case("0dim-max-dim0", lambda a: a.max(0).values, [()]),
    case("0dim-softmax", lambda a: a.softmax(0) * a, [()]),
    case("0dim-prod-dim0", lambda a: a.prod(0), [()]),
    # compositions
    case("chain", lambda a, b: ((a * b).sin() + a.exp()).sum(0) / (b ** 2 + 1).mean(),
         [(2, 3), (2, 3)]),
]


def _inputs(shapes, gen, seed):
    ag.manual_seed(seed)
    return tuple(x.detach().requires_grad_(True) for x in gen(shapes))


@pytest.mark.parametrize("fn, shapes, gen", CASES)
def test_gradcheck(fn, shapes, gen):
    inputs = _inputs(shapes, gen, 0)
    assert all(x.dtype is F64 for x in inputs)
    assert gradcheck(fn, inputs)


@pytest.mark.parametrize("fn, shapes, gen", CASES)
def test_gradgradcheck(fn, shapes, gen):
    inputs = _inputs(shapes, gen, 1)
    assert gradgradcheck(fn, inputs)
