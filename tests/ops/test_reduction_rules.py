"""The reductions as rules (``ops.reduction`` through ``ops.rule``).

Every node class a reduction records is its rule's node in the rule table, the
``_saved_<name>`` attributes hold what PyTorch's do, and gradients (first and second
order, with and without fast paths) match PyTorch's, including the cases the recorder
now handles for the rules: the cast back of ``sum``/``cumsum`` with a ``dtype``, the
0-dim ``max(x, dim)``, and ``prod`` with zeros.
"""

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.ops.rule import reference_mode, rules

try:  # the comparisons with PyTorch skip without it; the other checks here always run
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

X = np.array([[0.5, -1.5, 2.0, 0.25], [3.0, 1.0, -0.75, 2.0], [-2.0, 0.5, 1.25, -1.0]])

# name -> (arraygrad op, torch op); each reduces a (3, 4) float64 tensor
CASES = {
    "sum": (lambda x: x.sum(), lambda x: x.sum()),
    "sum_dim": (lambda x: x.sum(1), lambda x: x.sum(1)),
    "sum_keepdim": (lambda x: ag.sum(x, (0, 1), keepdim=True),
                    lambda x: torch.sum(x, (0, 1), keepdim=True)),
    "mean": (lambda x: x.mean(), lambda x: x.mean()),
    "mean_dim": (lambda x: x.mean(0, keepdim=True), lambda x: x.mean(0, keepdim=True)),
    "prod": (lambda x: x.prod(), lambda x: x.prod()),
    "prod_dim": (lambda x: x.prod(1), lambda x: x.prod(1)),
    "max": (lambda x: x.max(), lambda x: x.max()),
    "min": (lambda x: x.min(), lambda x: x.min()),
    "max_dim": (lambda x: x.max(1).values, lambda x: x.max(1).values),
    "min_dim": (lambda x: x.min(0, keepdim=True).values, lambda x: x.min(0, keepdim=True).values),
    "amax": (lambda x: x.amax(1), lambda x: x.amax(1)),
    "amin": (lambda x: x.amin((0, 1)), lambda x: x.amin((0, 1))),
    "var": (lambda x: x.var(1), lambda x: x.var(1)),
    "std": (lambda x: x.std(0, correction=0), lambda x: x.std(0, correction=0)),
    "logsumexp": (lambda x: x.logsumexp(1), lambda x: x.logsumexp(1)),
    "norm": (lambda x: x.norm(p=3, dim=1), lambda x: torch.norm(x, p=3, dim=1)),
    "cumsum": (lambda x: x.cumsum(1), lambda x: x.cumsum(1)),
}

# the node names arraygrad records (PyTorch's; torch.norm's is LinalgVectorNormBackward0 now)
NAMES = {
    "sum": "SumBackward0", "sum_dim": "SumBackward1", "sum_keepdim": "SumBackward1",
    "mean": "MeanBackward0", "mean_dim": "MeanBackward1", "prod": "ProdBackward0",
    "prod_dim": "ProdBackward1", "max": "MaxBackward1", "min": "MinBackward1",
    "max_dim": "MaxBackward0", "min_dim": "MinBackward0", "amax": "AmaxBackward0",
    "amin": "AminBackward0", "var": "VarBackward0", "std": "StdBackward0",
    "logsumexp": "LogsumexpBackward0", "norm": "NormBackward1", "cumsum": "CumsumBackward0",
}


def _pair():
    x = ag.tensor(X, requires_grad=True)
    t = torch.tensor(X, requires_grad=True)
    return x, t


@needs_torch
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_reduction_node_is_its_rules_node(case):
    x, _ = _pair()
    fn = CASES[case][0](x).grad_fn
    name = NAMES[case]
    assert fn.name() == name
    assert type(fn) is rules()[name].node
    assert len(fn.next_functions) == 1 and type(fn.next_functions[0][0]).__name__ == "AccumulateGrad"


@needs_torch
@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("case", sorted(CASES))
def test_gradients_match_torch_first_and_second_order(case, fast):
    ours, theirs = CASES[case]
    with reference_mode(not fast):
        x, t = _pair()
        y, u = ours(x), theirs(t)
        np.testing.assert_allclose(y.detach().numpy(), u.detach().numpy(), rtol=1e-12)
        w = np.linspace(0.5, 1.5, u.numel()).reshape(tuple(u.shape))
        (gx,) = ag.autograd.grad((y * ag.tensor(w)).sum(), x, create_graph=True)
        (gt,) = torch.autograd.grad((u * torch.tensor(w)).sum(), t, create_graph=True)
        np.testing.assert_allclose(gx.detach().numpy(), gt.detach().numpy(), rtol=1e-10)
        # a gradient that is constant in x (amax's, sum's) may have no graph at all
        (ggx,) = (ag.autograd.grad((gx * gx).sum(), x, allow_unused=True)
                  if gx.requires_grad else (None,))
        (ggt,) = (torch.autograd.grad((gt * gt).sum(), t, allow_unused=True)
                  if gt.requires_grad else (None,))
        if ggt is None or ggx is None:
            assert not np.any(ggt.numpy() if ggx is None and ggt is not None else 0)
            assert ggx is None or not np.any(ggx.numpy())
        else:
            np.testing.assert_allclose(ggx.numpy(), ggt.numpy(), rtol=1e-8, atol=1e-12)


@needs_torch
def test_saved_attributes_are_pytorchs():
    x, t = _pair()
    for ours, theirs in [(x.sum(1, keepdim=True), t.sum(1, keepdim=True)),
                         (x.mean((0, 1)), t.mean((0, 1))), (x.prod(1), t.prod(1)),
                         (x.amax(0), t.amax(0)), (x.var(1, correction=0), t.var(1, correction=0)),
                         (x.logsumexp(0), t.logsumexp(0))]:
        a, b = ours.grad_fn, theirs.grad_fn
        assert a.name() == b.name()
        for attr in ("dim", "keepdim", "correction"):
            if hasattr(b, f"_saved_{attr}"):
                theirs_value = getattr(b, f"_saved_{attr}")
                if attr == "dim" and isinstance(theirs_value, int):
                    theirs_value = (theirs_value,)  # torch.prod takes one dim; ours a tuple too
                assert getattr(a, f"_saved_{attr}") == theirs_value, attr
        if hasattr(b, "_saved_self"):
            assert a._saved_self is x
        if hasattr(b, "_saved_self_sym_sizes"):
            assert a._saved_self_sym_sizes == tuple(b._saved_self_sym_sizes)
    assert x.sum().grad_fn._saved_self_sym_sizes == (3, 4)
    assert not hasattr(x.sum().grad_fn, "_saved_dim")  # PyTorch's SumBackward0 has none
    s = x.std(1)
    np.testing.assert_array_equal(s.grad_fn._saved_result.detach().numpy(), s.detach().numpy())
    assert s.grad_fn._saved_result.grad_fn is s.grad_fn
    m = x.max(1)
    assert m.values.grad_fn._saved_dim == 1 and m.values.grad_fn._saved_keepdim is False
    np.testing.assert_array_equal(m.values.grad_fn._saved_indices.numpy(), m.indices.numpy())
    assert x.cumsum(-1).grad_fn._saved_dim == 1
    assert x.norm(p=1, dim=0).grad_fn._saved_p == 1.0


@needs_torch
def test_saved_values_are_freed_by_backward():
    x, _ = _pair()
    y = x.prod(1)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="freed"):
        y.grad_fn._saved_self


@needs_torch
def test_saved_input_is_version_checked():
    x, _ = _pair()
    a = x * 1
    y = a.prod()
    a.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("op", ["sum", "cumsum"])
def test_dtype_argument_casts_the_gradient_back(op, fast):
    with reference_mode(not fast):
        x = ag.tensor([1.0, 2.0, 3.0], dtype=ag.float32, requires_grad=True)
        y = x.sum(dtype=ag.float64) if op == "sum" else x.cumsum(0, dtype=ag.float64)
        assert y.dtype is ag.float64
        y.sum().backward()
        assert x.grad.dtype is ag.float32
        np.testing.assert_array_equal(x.grad.numpy(), [1, 1, 1] if op == "sum" else [3, 2, 1])


@pytest.mark.parametrize("is_max", [True, False])
def test_zero_dim_max_with_dim_is_the_one_max_rule(is_max):
    x = ag.tensor(2.5, requires_grad=True)
    values, indices = (x.max if is_max else x.min)(0)
    name = "MaxBackward0" if is_max else "MinBackward0"
    assert values.grad_fn.name() == name and type(values.grad_fn) is rules()[name].node
    assert indices.grad_fn is None and int(indices) == 0
    (values * 3).backward()
    assert float(x.grad) == 3.0


@needs_torch
def test_prod_with_zeros_matches_torch():
    data = np.array([[0.0, 2.0, 3.0], [0.0, 0.0, 4.0], [1.0, 2.0, 5.0]])
    x = ag.tensor(data, requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    for dim in (None, 0, 1):
        y = x.prod() if dim is None else x.prod(dim)
        u = t.prod() if dim is None else t.prod(dim)
        (gx,) = ag.autograd.grad(y.sum(), x)
        (gt,) = torch.autograd.grad(u.sum(), t)
        np.testing.assert_allclose(gx.numpy(), gt.numpy())


def test_every_rule_of_the_module_is_in_the_table():
    from arraygrad.ops import reduction
    from arraygrad.ops.rule import Rule

    table = rules()
    defined = [v for v in vars(reduction).values() if isinstance(v, Rule)]
    defined += [r for v in vars(reduction).values() if isinstance(v, tuple)
                for r in v if isinstance(r, Rule)]
    assert {r.name for r in defined} == set(NAMES.values())
    for r in defined:
        assert table[r.name] is r
