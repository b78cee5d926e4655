"""Forward values and gradients against small hand-computed expectations."""

from __future__ import annotations

import math

import pytest

import arraygrad as ag

F64 = ag.float64


def flat(v):
    if isinstance(v, ag.Tensor):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        out = []
        for x in v:
            out.extend(flat(x))
        return out
    return [v]


def close(t, expected, tol=1e-6):
    """``t`` (a Tensor) has ``expected``'s shape-free values within ``tol``; NaNs match NaNs."""
    got, want = flat(t), flat(expected)
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        if isinstance(w, float) and math.isnan(w):
            assert math.isnan(g), (got, want)
        else:
            assert g == pytest.approx(w, abs=tol, rel=tol), (got, want)


def leaf(values, dtype=F64):
    return ag.tensor(values, dtype=dtype, requires_grad=True)


def grad_of(fn, *values):
    xs = [leaf(v) for v in values]
    fn(*xs).backward()
    return [x.grad for x in xs] if len(xs) > 1 else xs[0].grad


# -- arithmetic ----------------------------------------------------------------------

def test_add_sub_mul_div_broadcast_values():
    a = ag.tensor([[1., 2., 3.], [4., 5., 6.]])
    b = ag.tensor([10., 20., 30.])
    close(a + b, [[11, 22, 33], [14, 25, 36]])
    close(a - b, [[-9, -18, -27], [-6, -15, -24]])
    close(a * b, [[10, 40, 90], [40, 100, 180]])
    close(b / a, [[10, 10, 10], [2.5, 4, 5]])
    close(ag.add(a, b, alpha=2), [[21, 42, 63], [24, 45, 66]])
    close(ag.sub(a, b, alpha=0.5), [[-4, -8, -12], [-1, -5, -9]])
    close(2 - a, [[1, 0, -1], [-2, -3, -4]])
    close(12 / a, [[12, 6, 4], [3, 2.4, 2]])
    close(2 ** ag.tensor([0., 1., 3.]), [1, 2, 8])
    assert (a + b).shape == (2, 3)


def test_floor_divide_and_remainder_follow_python_signs():
    a = ag.tensor([7, -7, 7, -7])
    b = ag.tensor([2, 2, -2, -2])
    assert (a // b).tolist() == [3, -4, -4, 3]
    assert (a % b).tolist() == [1, 1, -1, -1]
    assert (a // b).dtype is ag.int64
    af, bf = a.float(), b.float()
    close(af // bf, [3, -4, -4, 3])
    close(af % bf, [1, 1, -1, -1])
    close(ag.tensor([5.5]) % 2, [1.5])
    close(ag.div(a, b, rounding_mode="trunc"), [3, -3, -3, 3])
    close(ag.div(a, b, rounding_mode="floor"), [3, -4, -4, 3])


def test_int_division_is_true_division():
    out = ag.tensor([1, 2, 3]) / ag.tensor([2, 2, 2])
    assert out.dtype is ag.float32
    close(out, [0.5, 1.0, 1.5])


def test_integer_pow():
    out = ag.tensor([2, 3]) ** 2
    assert out.dtype is ag.int64 and out.tolist() == [4, 9]
    with pytest.raises(RuntimeError):
        ag.tensor([2, 3]) ** -1


def test_unary_values():
    x = ag.tensor([-2., -0.5, 0., 0.5, 2.])
    close(x.abs(), [2, 0.5, 0, 0.5, 2])
    close(-x, [2, 0.5, 0, -0.5, -2])
    close(x.sign(), [-1, -1, 0, 1, 1])
    close(x.relu(), [0, 0, 0, 0.5, 2])
    close(x.clamp(-1, 1), [-1, -0.5, 0, 0.5, 1])
    close(x.clamp(min=0), [0, 0, 0, 0.5, 2])
    close(x.clamp(max=0), [-2, -0.5, 0, 0, 0])
    close(x.exp(), [math.exp(v) for v in (-2, -0.5, 0, 0.5, 2)])
    close(x.sigmoid(), [1 / (1 + math.exp(-v)) for v in (-2, -0.5, 0, 0.5, 2)])
    close(x.tanh(), [math.tanh(v) for v in (-2, -0.5, 0, 0.5, 2)])
    p = ag.tensor([0.25, 1., 4.])
    close(p.sqrt(), [0.5, 1, 2])
    close(p.rsqrt(), [2, 1, 0.5])
    close(p.log(), [math.log(0.25), 0, math.log(4)])
    close(p.log1p(), [math.log1p(0.25), math.log(2), math.log(5)])
    close(p.expm1(), [math.expm1(0.25), math.e - 1, math.expm1(4)], tol=1e-5)
    close(p.reciprocal(), [4, 1, 0.25])
    close(ag.tensor([0., math.pi / 2]).sin(), [0, 1])
    close(ag.tensor([0., math.pi]).cos(), [1, -1])
    close(ag.tensor([math.pi / 4]).tan(), [1])


def test_unary_ops_on_integers_give_float():
    x = ag.tensor([1, 4])
    assert x.sqrt().dtype is ag.float32
    close(x.sqrt(), [1, 2])
    assert x.abs().dtype is ag.int64


def test_maximum_minimum_where_values():
    a = ag.tensor([1., 5., 3.])
    b = ag.tensor([4., 2., 3.])
    close(ag.maximum(a, b), [4, 5, 3])
    close(ag.minimum(a, b), [1, 2, 3])
    close(ag.where(a > b, a, b), [4, 5, 3])
    close(ag.where(a > b, a, 0.), [0, 5, 0])
    w = ag.where(a > 2, 1.0, 0.0)
    assert w.dtype is ag.float32
    close(w, [0, 1, 1])


# -- reductions ------------------------------------------------------------------------

def test_sum_mean_prod_values():
    x = ag.tensor([[1., 2., 3.], [4., 5., 6.]])
    close(x.sum(), 21)
    close(x.sum(0), [5, 7, 9])
    close(x.sum(1, keepdim=True), [[6], [15]])
    assert x.sum(1, keepdim=True).shape == (2, 1)
    close(x.sum((0, 1)), 21)
    close(x.mean(), 3.5)
    close(x.mean(1), [2, 5])
    close(x.prod(), 720)
    close(x.prod(0), [4, 10, 18])
    assert ag.tensor([1, 2]).sum().dtype is ag.int64
    assert ag.tensor([True, True, False]).sum().item() == 2
    with pytest.raises(RuntimeError):
        ag.tensor([1, 2]).mean()


def test_var_std_values():
    x = ag.tensor([1., 2., 3., 4.])
    close(x.var(), 5 / 3)
    close(x.var(correction=0), 1.25)
    close(x.std(), math.sqrt(5 / 3))
    close(x.std(correction=0), math.sqrt(1.25))
    m = ag.tensor([[1., 3.], [2., 6.]])
    close(m.var(0), [0.5, 4.5])
    close(m.var(1, correction=0), [1, 4])


def test_max_min_values_and_indices():
    x = ag.tensor([[1., 7., 3.], [9., 2., 5.]])
    assert x.max().item() == 9 and x.min().item() == 1
    v, i = x.max(1)
    close(v, [7, 9])
    assert i.tolist() == [1, 0] and i.dtype is ag.int64
    r = x.min(0, keepdim=True)
    close(r.values, [[1, 2, 3]])
    assert r.indices.tolist() == [[0, 1, 0]]
    close(x.amax(0), [9, 7, 5])
    close(x.amin((0, 1)), 1)
    assert x.argmax().item() == 3
    assert x.argmin(1).tolist() == [0, 1]


def test_logsumexp_norm_cumsum_values():
    x = ag.tensor([[0., math.log(3.)], [1., 1.]])
    close(ag.logsumexp(x, 1), [math.log(4), 1 + math.log(2)])
    v = ag.tensor([3., -4.])
    close(v.norm(), 5)
    close(v.norm(1), 7)
    close(v.norm(float("inf")), 4)
    close(v.norm(3), (27 + 64) ** (1 / 3))
    close(ag.tensor([[3., 4.], [6., 8.]]).norm(dim=1), [5, 10])
    close(ag.tensor([1., 2., 3.]).cumsum(0), [1, 3, 6])
    assert ag.tensor([1, 2, 3]).cumsum(0).tolist() == [1, 3, 6]


def test_logsumexp_is_stable_for_large_inputs():
    x = leaf([1000., 1000.])
    out = ag.logsumexp(x, 0)
    close(out, 1000 + math.log(2))
    out.backward()
    close(x.grad, [0.5, 0.5])
    y = ag.tensor([-1000., -1000.])
    close(ag.logsumexp(y, 0), -1000 + math.log(2))


def test_sigmoid_of_extremes_is_finite():
    x = leaf([-100., 100.])
    y = x.sigmoid()
    close(y, [0, 1])
    y.sum().backward()
    assert all(math.isfinite(v) for v in x.grad.tolist())
    close(x.grad, [0, 0])
    close(ag.tensor([-100., 100.], dtype=ag.float32).sigmoid(), [0, 1])


def test_softmax_rows_sum_to_one_and_stay_finite():
    ag.manual_seed(0)
    x = ag.randn(4, 5)
    s = x.softmax(1)
    close(s.sum(1), [1] * 4)
    big = ag.tensor([[1000., 1000., 0.], [-1000., 0., 1000.]])
    s = big.softmax(-1)
    close(s, [[0.5, 0.5, 0], [0, 0, 1]])
    ls = big.log_softmax(-1)
    close(ls, [[-math.log(2), -math.log(2), -1000 - math.log(2)], [-2000, -1000, 0]])
    close(ag.tensor([1., 2.]).softmax(0), [1 / (1 + math.e), math.e / (1 + math.e)])


# -- gradients against analytic formulas ---------------------------------------------------

def test_grad_of_sum_of_squares_is_2x():
    g = grad_of(lambda x: (x ** 2).sum(), [1., -2., 3.])
    close(g, [2, -4, 6])


def test_grad_of_product_rule_and_quotient():
    ga, gb = grad_of(lambda a, b: (a * b).sum(), [1., 2.], [3., 4.])
    close(ga, [3, 4])
    close(gb, [1, 2])
    ga, gb = grad_of(lambda a, b: (a / b).sum(), [1., 2.], [4., 8.])
    close(ga, [0.25, 0.125])
    close(gb, [-1 / 16, -2 / 64])


def test_grad_of_broadcast_operands_is_summed():
    ga, gb = grad_of(lambda a, b: (a * b).sum(), [[1., 2., 3.], [4., 5., 6.]], [10., 20., 30.])
    close(ga, [[10, 20, 30], [10, 20, 30]])
    close(gb, [5, 7, 9])


def test_grad_of_matmul():
    a = [[1., 2.], [3., 4.]]
    b = [[5., 6., 7.], [8., 9., 10.]]
    ga, gb = grad_of(lambda x, y: (x @ y).sum(), a, b)
    close(ga, [[18, 27], [18, 27]])  # ones(2,3) @ b.T
    close(gb, [[4, 4, 4], [6, 6, 6]])  # a.T @ ones(2,3)


def test_max_ties_split_gradient_evenly_for_full_reduction():
    close(grad_of(lambda x: x.max(), [1., 3., 3.]), [0, 0.5, 0.5])
    close(grad_of(lambda x: x.min(), [[2., 2.], [2., 5.]]), [[1 / 3, 1 / 3], [1 / 3, 0]])
    close(grad_of(lambda x: x.amax(), [1., 3., 3.]), [0, 0.5, 0.5])
    close(grad_of(lambda x: x.amax(1).sum(), [[1., 3., 3.], [4., 0., 0.]]),
          [[0, 0.5, 0.5], [1, 0, 0]])


def test_max_with_dim_sends_gradient_to_the_index():
    x = leaf([[1., 3., 2.], [5., 4., 6.]])
    v, i = x.max(1)
    v.sum().backward()
    close(x.grad, [[0, 1, 0], [0, 0, 1]])


def test_maximum_ties_give_half_to_each():
    ga, gb = grad_of(lambda a, b: ag.maximum(a, b).sum(), [1., 2., 3.], [1., 1., 5.])
    close(ga, [0.5, 1, 0])
    close(gb, [0.5, 0, 1])
    ga, gb = grad_of(lambda a, b: ag.minimum(a, b).sum(), [2.], [2.])
    close(ga, [0.5])
    close(gb, [0.5])


def test_integer_array_indexing_with_repeats_accumulates():
    close(grad_of(lambda x: x[[0, 0, 1]].sum(), [1., 2., 3.]), [2, 1, 0])
    close(grad_of(lambda x: x[ag.tensor([2, 2, 2, 0])].sum(), [1., 2., 3.]), [1, 0, 3])
    close(grad_of(lambda x: x.index_select(0, ag.tensor([1, 1])).sum(), [1., 2.]), [0, 2])
    close(grad_of(lambda x: x.gather(0, ag.tensor([0, 0, 1])).sum(), [1., 2.]), [2, 1])


def test_bool_mask_indexing_values_and_grad():
    x = leaf([[1., 2.], [3., 4.]])
    m = ag.tensor([[True, False], [False, True]])
    y = x[m]
    close(y, [1, 4])
    (y * ag.tensor([10., 20.], dtype=F64)).sum().backward()
    close(x.grad, [[10, 0], [0, 20]])


def test_kink_conventions():
    close(grad_of(lambda x: x.abs().sum(), [-1., 0., 2.]), [-1, 0, 1])
    close(grad_of(lambda x: x.relu().sum(), [-1., 0., 2.]), [0, 0, 1])
    # clamp passes the gradient at the bounds themselves
    close(grad_of(lambda x: x.clamp(0., 1.).sum(), [-1., 0., 0.5, 1., 2.]), [0, 1, 1, 1, 0])
    close(grad_of(lambda x: x.sign().sum(), [-1., 2.]), [0, 0])
    close(grad_of(lambda x: (x ** 2).sum(), [0.]), [0])
    close(grad_of(lambda x: (x ** 0.5).sum(), [4.]), [0.25])


def test_prod_gradient_with_zeros():
    close(grad_of(lambda x: x.prod(), [2., 0., 3.]), [0, 6, 0])
    close(grad_of(lambda x: x.prod(), [0., 0., 3.]), [0, 0, 0])
    close(grad_of(lambda x: x.prod(), [2., 4., 3.]), [12, 6, 8])
    close(grad_of(lambda x: x.prod(1).sum(), [[2., 0.], [3., 4.]]), [[0, 2], [4, 3]])


def test_pow_gradients():
    ga, gb = grad_of(lambda a, b: (a ** b).sum(), [2., 3.], [3., 2.])
    close(ga, [12, 6])
    close(gb, [8 * math.log(2), 9 * math.log(3)])
    # d(0 ** b)/db is taken as 0 for b >= 0, as in PyTorch
    ga, gb = grad_of(lambda a, b: (a ** b).sum(), [0.], [2.])
    close(ga, [0])
    close(gb, [0])
    close(grad_of(lambda b: (2.0 ** b).sum(), [3.]), [8 * math.log(2)])


def test_remainder_and_floor_divide_gradients():
    ga, gb = grad_of(lambda a, b: (a % b).sum(), [7.5], [2.])
    close(ga, [1])
    close(gb, [-3])
    ga, gb = grad_of(lambda a, b: (a // b).sum(), [7.5], [2.])
    close(ga, [0])
    close(gb, [0])


def test_var_std_norm_gradients():
    # d var / dx = 2 (x - mean) / (n - 1)
    close(grad_of(lambda x: x.var(), [1., 2., 3., 4.]), [-1, -1 / 3, 1 / 3, 1])
    close(grad_of(lambda x: x.var(correction=0), [1., 3.]), [-1, 1])
    # d std / dx = (x - mean) / ((n - c) std)
    close(grad_of(lambda x: x.std(correction=0), [1., 3.]), [-0.5, 0.5])
    close(grad_of(lambda x: x.norm(), [3., 4.]), [0.6, 0.8])
    close(grad_of(lambda x: x.norm(1), [3., -4.]), [1, -1])
    close(grad_of(lambda x: x.norm(float("inf")), [3., -4.]), [0, -1])


def test_softmax_and_log_softmax_gradients():
    # the sum of a softmax row is constant: zero gradient
    close(grad_of(lambda x: x.softmax(0).sum(), [1., 2., 3.]), [0, 0, 0])
    # d sum(log_softmax)/dx = 1 - n softmax
    s = [math.exp(v) / sum(math.exp(u) for u in (1., 2.)) for v in (1., 2.)]
    close(grad_of(lambda x: x.log_softmax(0).sum(), [1., 2.]), [1 - 2 * s[0], 1 - 2 * s[1]])


def test_cumsum_and_flip_gradients():
    close(grad_of(lambda x: (x.cumsum(0) * ag.tensor([1., 10., 100.], dtype=F64)).sum(),
                  [1., 2., 3.]), [111, 110, 100])
    close(grad_of(lambda x: (x.flip(0) * ag.tensor([1., 2.], dtype=F64)).sum(), [5., 6.]),
          [2, 1])


def test_where_gradient_is_routed():
    ga, gb = grad_of(lambda a, b: ag.where(a > 1, a, b).sum(), [0., 2., 3.], [5., 5., 5.])
    close(ga, [0, 1, 1])
    close(gb, [1, 0, 0])


# -- shape ops --------------------------------------------------------------------------------

def test_shape_op_values():
    x = ag.arange(6).reshape(2, 3)
    assert x.T.tolist() == [[0, 3], [1, 4], [2, 5]]
    assert x.flip(1).tolist() == [[2, 1, 0], [5, 4, 3]]
    assert x.repeat(1, 2).tolist() == [[0, 1, 2, 0, 1, 2], [3, 4, 5, 3, 4, 5]]
    assert ag.tensor([1, 2]).repeat(2, 2).tolist() == [[1, 2, 1, 2], [1, 2, 1, 2]]
    assert [p.tolist() for p in x.split(2, 1)] == [[[0, 1], [3, 4]], [[2], [5]]]
    assert [p.tolist() for p in x.chunk(3, 1)] == [[[0], [3]], [[1], [4]], [[2], [5]]]
    assert [p.tolist() for p in x.unbind(1)] == [[0, 3], [1, 4], [2, 5]]
    assert ag.cat([x, x], 0).shape == (4, 3)
    assert ag.stack([x, x], 2).shape == (2, 3, 2)
    assert x.unsqueeze(1).shape == (2, 1, 3)
    assert x.reshape(3, 1, 2).squeeze().shape == (3, 2)
    assert x.permute(1, 0).tolist() == x.T.tolist()
    assert x.expand(2, 2, 3).shape == (2, 2, 3)
    assert x.gather(1, ag.tensor([[2, 0], [1, 1]])).tolist() == [[2, 0], [4, 4]]
    assert x.index_select(1, ag.tensor([2, 0])).tolist() == [[2, 0], [5, 3]]
    assert x[:, None, 1].shape == (2, 1)
    assert x[..., -1].tolist() == [2, 5]
    assert x[ag.tensor([1, 0]), ag.tensor([2, 2])].tolist() == [5, 2]
    assert x.mT.tolist() == x.T.tolist()


def test_cat_and_stack_promote_dtypes():
    out = ag.cat([ag.tensor([1, 2]), ag.tensor([0.5])])
    assert out.dtype is ag.float32
    close(out, [1, 2, 0.5])
    assert ag.stack([ag.tensor([1]), ag.tensor([True])]).dtype is ag.int64


def test_split_backward_with_unused_pieces():
    x = leaf([1., 2., 3., 4.])
    a, b = x.split(2)
    (a * 3).sum().backward()
    close(x.grad, [3, 3, 0, 0])


def test_matmul_values():
    a = ag.tensor([[1., 2.], [3., 4.]])
    v = ag.tensor([1., 1.])
    close(a @ a, [[7, 10], [15, 22]])
    close(a @ v, [3, 7])
    close(v @ a, [4, 6])
    close(v @ v, 2)
    close(ag.outer(v, ag.tensor([1., 2., 3.])), [[1, 2, 3], [1, 2, 3]])
    close(ag.mv(a, v), [3, 7])
    b = ag.stack([a, a + 1])
    assert (b @ a).shape == (2, 2, 2)
    close((b @ a)[1], [[11, 16], [19, 28]])


# -- regressions: bugs found by these tests ------------------------------------------------------

@pytest.mark.parametrize("name, fn", [
    ("sum", lambda x: x.sum(0)), ("sum-neg", lambda x: x.sum(-1, keepdim=True)),
    ("mean", lambda x: x.mean(0)), ("prod", lambda x: x.prod(0)),
    ("amax", lambda x: x.amax(0)), ("max", lambda x: x.max(0).values),
    ("min", lambda x: x.min(-1)[0]), ("logsumexp", lambda x: x.logsumexp(0)),
    ("cumsum", lambda x: x.cumsum(0)), ("softmax", lambda x: x.softmax(0) * x),
    ("log_softmax", lambda x: x.log_softmax(0) + x), ("flip", lambda x: x.flip(0)),
    ("norm", lambda x: x.norm(dim=0)), ("var", lambda x: x.var(0, correction=0) + x),
])
def test_zero_dim_tensor_accepts_dim_0_and_minus_1(name, fn):
    x = leaf(2.0)
    out = fn(x)
    assert out.shape == ()
    out.backward()
    assert x.grad.shape == () and math.isfinite(x.grad.item())
    assert ag.autograd.gradcheck(fn, (leaf(1.5),))


def test_zero_dim_argmax_and_max_indices():
    assert ag.tensor(3.0).argmax(0).item() == 0
    r = ag.tensor(3.0).max(0)
    assert r.values.item() == 3.0 and r.indices.item() == 0 and r.indices.dtype is ag.int64
    with pytest.raises(IndexError):
        ag.tensor(3.0).sum(1)


def test_scalar_base_pow_gradient_at_zero_and_negative_base():
    x = leaf([-1., 0., 2.])
    (0.0 ** x).sum().backward()
    assert x.grad.tolist() == [-math.inf, 0.0, 0.0]
    x = leaf([2.])
    ((-2.0) ** x).sum().backward()
    assert math.isnan(x.grad.item())


def test_clamp_of_integer_tensor_with_float_bound_promotes():
    out = ag.clamp(ag.tensor([1, 2, 3]), min=1.5)
    assert out.dtype is ag.float32
    close(out, [1.5, 2, 3])
    out = ag.tensor([1, 2, 3]).clamp(max=2)
    assert out.dtype is ag.int64 and out.tolist() == [1, 2, 2]


def test_where_with_two_scalars():
    c = ag.tensor([True, False])
    assert ag.where(c, 1.0, 0.0).dtype is ag.float32
    assert ag.where(c, 1, 0).dtype is ag.int64 and ag.where(c, 1, 0).tolist() == [1, 0]
    assert ag.where(c, 1, 2.5).tolist() == [1.0, 2.5]


def test_linalg_errors_name_the_calling_op():
    with pytest.raises(RuntimeError, match="^mv"):
        ag.mv(ag.ones(2, 3), ag.ones(2))
    with pytest.raises(RuntimeError, match="^mm"):
        ag.mm(ag.ones(2, 3), ag.ones(2, 3))
