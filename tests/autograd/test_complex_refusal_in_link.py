"""A rule that does not declare complex support refuses complex inputs when it would record
a gradient, with PyTorch's NotImplementedError (docs/complex.md): the check now runs inside
the link's own loop over the inputs (issue 27: no second scan per recorded op), so these
hold its cases, real result included, and that nothing is linked when it refuses."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.ops.rule import Rule, identity


def _probe(exact: bool = False) -> Rule:
    # not in the rule table: a probe of the recorder alone
    return Rule("ProbeBackward0", inputs=("self", "other"), vjp=(identity, identity),
                exact=exact)


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("complex_needs_grad", [False, True])
def test_a_complex_input_of_a_real_result_is_refused(exact, complex_needs_grad):
    real = ag.tensor([1.0, 2.0], requires_grad=True)
    z = ag.tensor([1 + 2j, 3 - 1j], requires_grad=complex_needs_grad)
    data = np.array([0.5, 0.25], np.float32)  # a real result
    with pytest.raises(NotImplementedError, match="\"probe\" not implemented for 'ComplexFloat'"):
        _probe(exact).record(data, real._backend, (real, z))
    assert real.grad_fn is None and real.grad is None


def test_without_a_gradient_to_record_a_complex_input_is_not_checked():
    z = ag.tensor([1 + 2j, 3 - 1j])
    with ag.no_grad():
        out = _probe().record(np.array([1.0], np.float32), z._backend,
                              (ag.tensor([1.0], requires_grad=True), z))
    assert out.grad_fn is None


def test_a_declared_complex_rule_links_complex_inputs():
    rule = Rule("ProbeComplexBackward0", inputs=("self", "other"), vjp=(identity, identity),
                complex=True)
    z = ag.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    out = rule.record(np.array([1.0, 2.0], np.float32), z._backend, (z, None))
    assert type(out.grad_fn).__name__ == "ProbeComplexBackward0"
