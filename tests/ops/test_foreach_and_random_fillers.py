"""``torch._foreach_*`` (and ``torch._utils``' flatten helpers) against PyTorch, and the random
fillers ``cauchy_``, ``log_normal_``, ``geometric_`` (their distributions, PyTorch's errors,
``generator=``) and ``random_``/``uniform_`` with PyTorch's keyword ``from``."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _lists(m):
    return [m.tensor([1., 2.]), m.tensor([3., -4., 5.])]


def _compare(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _compare(o, t)
        return
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


FOREACH = {
    "add_scalar": lambda m, a: m._foreach_add(a, 1),
    "add_scalars": lambda m, a: m._foreach_add(a, [1., 2.]),
    "add_tensor": lambda m, a: m._foreach_add(a, m.tensor(2.)),
    "add_list_alpha": lambda m, a: m._foreach_add(a, a, alpha=2),
    "add_": lambda m, a: m._foreach_add_(a, [m.ones(2), m.ones(3)], alpha=-0.5),
    "sub_": lambda m, a: m._foreach_sub_(a, a, alpha=0.5),
    "mul_": lambda m, a: m._foreach_mul_(a, 0.9),
    "div": lambda m, a: m._foreach_div(a, [2., 4.]),
    "div_": lambda m, a: m._foreach_div_(a, a),
    "norm": lambda m, a: m._foreach_norm(a),
    "norm_1": lambda m, a: m._foreach_norm(a, 1),
    "norm_inf": lambda m, a: m._foreach_norm(a, float("inf")),
    "max": lambda m, a: m._foreach_max(a),
    "powsum": lambda m, a: m._foreach_powsum(a, 3),
    "pow_scalar_base": lambda m, a: m._foreach_pow(2., a),
    "pow": lambda m, a: m._foreach_pow(a, 2),
    "pow_": lambda m, a: m._foreach_pow_(a, [2, 3]),
    "lerp": lambda m, a: m._foreach_lerp(a, [m.zeros(2), m.zeros(3)], 0.25),
    "lerp_tensors": lambda m, a: m._foreach_lerp_(a, [m.zeros(2), m.zeros(3)],
                                                   [m.full((2,), .5), m.full((3,), .1)]),
    "addcmul_": lambda m, a: m._foreach_addcmul_(a, a, a, value=0.5),
    "addcdiv_scalars": lambda m, a: m._foreach_addcdiv(a, a, [m.ones(2) * 2, m.ones(3) * 4],
                                                       [1., 2.]),
    "addcdiv_tensor": lambda m, a: m._foreach_addcdiv_(a, a, a, m.tensor([1., 3.])),
    "maximum_": lambda m, a: m._foreach_maximum_(a, 2.5),
    "minimum": lambda m, a: m._foreach_minimum(a, [m.zeros(2), m.zeros(3)]),
    "clamp_max_": lambda m, a: m._foreach_clamp_max_(a, 1.5),
    "clamp_min": lambda m, a: m._foreach_clamp_min(a, [0., 1.]),
    "sqrt_abs": lambda m, a: m._foreach_sqrt(m._foreach_abs(a)),
    "neg_": lambda m, a: m._foreach_neg_(a),
    "zero_": lambda m, a: m._foreach_zero_(a),
    "copy_": lambda m, a: m._foreach_copy_(a, [m.ones(2), m.ones(3)]),
    "exp": lambda m, a: m._foreach_exp(a),
    "lgamma": lambda m, a: m._foreach_lgamma(m._foreach_abs_(a)),
    "sign_": lambda m, a: m._foreach_sign_(a),
    "clone": lambda m, a: m._foreach_clone(a),
    "mm": lambda m, a: m._foreach_mm([m.ones(2, 3)], [m.ones(3, 2)]),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(FOREACH))
def test_foreach_matches_torch(name):
    ours, theirs = _lists(ag), _lists(torch)
    result_o, result_t = FOREACH[name](ag, ours), FOREACH[name](torch, theirs)
    _compare(ours, theirs)  # the in-place forms changed the lists alike
    _compare(result_o, result_t)
    assert isinstance(result_o, (tuple, list))


def test_foreach_inplace_returns_the_list_and_records():
    params = [ag.ones(2, requires_grad=True)]
    with pytest.raises(RuntimeError, match="leaf Variable"):
        ag._foreach_mul_(params, 2)
    ys = [p * 1 for p in params]
    assert ag._foreach_mul_(ys, 3) is ys
    ys[0].sum().backward()
    assert params[0].grad.tolist() == [3.0, 3.0]
    with ag.no_grad():
        ag._foreach_add_(params, [ag.ones(2)], alpha=0.5)
    assert params[0].tolist() == [1.5, 1.5] and params[0]._version == 1


@pytest.mark.parametrize("call,message", [
    (lambda: ag._foreach_add(_lists(ag), [1.]), "same number of elements as scalar list"),
    (lambda: ag._foreach_add([], 1), "at least one tensor"),
    (lambda: ag._foreach_add(ag.ones(2), 1), "list of Tensors"),
])
def test_foreach_errors(call, message):
    with pytest.raises((RuntimeError, TypeError), match=message):
        call()


@needs_torch
def test_flatten_dense_tensors_match_torch():
    import torch._utils as tu

    shapes = [(2, 2), (3,), ()]
    ours = ag._utils._flatten_dense_tensors([ag.ones(s) * i for i, s in enumerate(shapes)])
    theirs = tu._flatten_dense_tensors([torch.ones(s) * i for i, s in enumerate(shapes)])
    assert ours.tolist() == theirs.tolist()
    parts = ag._utils._unflatten_dense_tensors(ours, [ag.empty(s) for s in shapes])
    assert [tuple(p.shape) for p in parts] == shapes and parts[1].tolist() == [1., 1., 1.]
    parts[0].fill_(7)
    assert ours[0].item() == 7  # views of the flat buffer, as PyTorch's


def test_cauchy_log_normal_geometric_distributions():
    ag.manual_seed(0)
    n = 200_000
    c = ag.zeros(n, dtype=ag.float64).cauchy_(1.0, 2.0).numpy()
    assert abs(np.median(c) - 1.0) < 0.05
    assert abs((np.quantile(c, 0.75) - np.quantile(c, 0.25)) / 2 - 2.0) < 0.05
    ln = np.log(ag.zeros(n, dtype=ag.float64).log_normal_(0.5, 0.3).numpy())
    assert abs(ln.mean() - 0.5) < 0.01 and abs(ln.std() - 0.3) < 0.01
    g = ag.zeros(n, dtype=ag.int64).geometric_(0.3).numpy()
    assert g.min() >= 1 and abs(g.mean() - 1 / 0.3) < 0.05
    assert abs((g == 1).mean() - 0.3) < 0.01


def test_random_fillers_take_a_generator():
    g1, g2 = ag.Generator().manual_seed(3), ag.Generator().manual_seed(3)
    for name, args in (("cauchy_", ()), ("log_normal_", ()), ("geometric_", (0.5,))):
        a = getattr(ag.zeros(4), name)(*args, generator=g1)
        b = getattr(ag.zeros(4), name)(*args, generator=g2)
        assert ag.equal(a, b)


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m: m.zeros(3).geometric_(0), lambda m: m.zeros(3).geometric_(1.0),
    lambda m: m.zeros(3).log_normal_(1, -1), lambda m: m.zeros(3).cauchy_(0, -1),
    lambda m: m.zeros(3, dtype=m.int64).cauchy_(), lambda m: m.zeros(3, dtype=m.int64).log_normal_(),
], ids=["geometric_0", "geometric_1", "log_normal_std", "cauchy_sigma", "cauchy_int",
        "log_normal_int"])
def test_filler_errors_match_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(ag)


def test_from_keyword_of_random_and_uniform():
    x = ag.zeros(1000).random_(**{"from": 2, "to": 5})
    assert set(x.tolist()) == {2.0, 3.0, 4.0}
    u = ag.zeros(1000).uniform_(**{"from": 2.0, "to": 3.0})
    assert 2.0 <= u.min().item() and u.max().item() < 3.0
    with pytest.raises(TypeError, match="multiple values for argument 'from'"):
        ag.zeros(2).random_(1, **{"from": 2})
