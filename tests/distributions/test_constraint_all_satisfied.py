"""``Constraint._all_satisfied``: the arrays' answer of the commonest constraints (what a
distribution's validation reads) is ``check(value).all()``'s, on every kind of value."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.distributions import constraints as C
from arraygrad.ops.rule import reference_mode

_CONSTRAINTS = [C.real, C.positive, C.greater_than(2), C.greater_than(-0.5), C.simplex,
                C.integer_interval(0, 3), C.independent(C.real, 1),
                C.independent(C.positive, 2), C.nonnegative_integer, C.unit_interval]

values = st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, 3.0, -1.0, 2.5, math.nan, math.inf,
                                   -math.inf, 1e-7]), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_CONSTRAINTS), values, st.sampled_from([(-1,), (2, -1), (-1, 1)]),
       st.sampled_from(["float32", "float64", "int64"]))
def test_the_same_answer_as_the_check(constraint, vals, shape, dtype):
    if dtype == "int64":
        vals = [v if math.isfinite(v) else 0.0 for v in vals]
    if shape == (2, -1):
        vals = vals * 2
    v = ag.tensor(vals, dtype=getattr(ag, dtype)).reshape(*shape)
    try:
        want = bool(constraint.check(v).all())
    except ValueError:  # too few dims for the event: refused alike
        with pytest.raises(ValueError):
            constraint._all_satisfied(v)
        return
    assert constraint._all_satisfied(v) is want
    with reference_mode():
        assert constraint._all_satisfied(v) is want


def test_a_simplex_row_by_row_and_a_tensor_bound():
    rows = ag.tensor([[0.25, 0.75], [0.5, 0.5000001]])
    assert C.simplex._all_satisfied(rows)
    assert not C.simplex._all_satisfied(ag.tensor([[0.25, 0.75], [0.5, 0.6]]))
    bound = C.greater_than(ag.tensor([0.0, 1.0]))  # a tensor bound: the Tensor form
    assert bound._all_satisfied(ag.tensor([0.5, 1.5])) and not bound._all_satisfied(ag.tensor([0.5, 0.5]))


def test_too_few_dims_raise_as_the_check_does():
    c = C.independent(C.real, 2)
    with pytest.raises(ValueError, match="Expected value.dim"):
        c.check(ag.ones(3))
    with pytest.raises(ValueError, match="Expected value.dim"):
        c._all_satisfied(ag.ones(3))


def test_a_distribution_still_refuses_invalid_parameters_and_samples():
    with pytest.raises(ValueError, match="Simplex"):
        ag.distributions.Categorical(probs=ag.tensor([0.5, -0.1, 0.6]))
    with pytest.raises(ValueError, match="GreaterThan|positive"):
        ag.distributions.Normal(ag.tensor(0.0), ag.tensor(-1.0))
    d = ag.distributions.Categorical(probs=ag.tensor([0.5, 0.5]))
    with pytest.raises(ValueError, match="support"):
        d.log_prob(ag.tensor(2))
    assert d.log_prob(ag.tensor(1)).item() == pytest.approx(math.log(0.5))
