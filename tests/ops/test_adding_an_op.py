"""docs/adding-an-op.md, executed: a throwaway op defined as the guide says (one rule, one
forward, one conformance case) passes every conformance check on the NumPy and strict
backends, in both fast-path modes."""

import pytest

import arraygrad as ag
from arraygrad.conformance.cases._make import case
from arraygrad.conformance.declarations import collect
from arraygrad.conformance.context import make_context
from arraygrad.conformance.op_checks import CHECKS
from arraygrad.extend import defop, reference_mode, rules, same_backend

HYPOT = defop(
    "ThrowawayHypotBackward0",
    inputs=("self", "other"),
    saves=("self", "other", "result"),
    vjp=(lambda g, n: g * n.self / n.result,
         lambda g, n: g * n.other / n.result),
)


def hypot(input, other):
    """``sqrt(input**2 + other**2)`` elementwise, with broadcasting."""
    backend = same_backend("hypot", input, other)  # RuntimeError naming both devices
    xp = backend.xp
    data = xp.sqrt(input._data ** 2 + other._data ** 2)
    return HYPOT.record(data, backend, (input, other))


CASE = case("hypot", "broadcast", hypot, [(2, 3), (3,)], "away")


@pytest.mark.parametrize("reference", [False, True], ids=["fast", "reference"])
@pytest.mark.parametrize("backend", ["numpy", "strict"])
@pytest.mark.parametrize("check", sorted(CHECKS))
def test_throwaway_op_passes_conformance(backend, check, reference):
    ctx = make_context(backend, collect())
    with reference_mode(reference):
        try:
            CHECKS[check](ctx, CASE)
        except pytest.skip.Exception as skipped:
            # only the devices check may skip (the cpu backend is the reference device)
            assert check == "devices", f"{check} skipped: {skipped}"


def test_rule_is_in_the_table_and_node_reads_like_pytorch():
    x = ag.tensor([3.0, 0.5], requires_grad=True)
    y = ag.tensor([4.0], requires_grad=True)
    out = hypot(x, y)
    assert rules()["ThrowawayHypotBackward0"] is HYPOT
    assert out.grad_fn.name() == "ThrowawayHypotBackward0"
    assert out.grad_fn._saved_result.tolist() == [5.0, pytest.approx(4.0311288)]
    out.sum().backward()
    # the recorder undid the broadcast of y: its gradient has y's shape
    assert y.grad.shape == (1,)
    assert y.grad.item() == pytest.approx(4 / 5 + 4 / 4.0311288)


def test_only_needed_inputs_run_their_vjp():
    calls = []
    rule = defop("ThrowawayCountingBackward0", inputs=("self", "other"),
                 vjp=(lambda g, n: calls.append("self") or g,
                      lambda g, n: calls.append("other") or g))
    x = ag.tensor([1.0], requires_grad=True)
    y = ag.tensor([2.0])
    out = rule.record(x._data + y._data, x._backend, (x, y))
    out.backward()
    assert calls == ["self"] and out.grad_fn.next_functions[1] == (None, 0)


def test_one_op_one_rule_a_key_defined_twice_is_refused():
    defop("ThrowawayTwiceBackward0", vjp=(lambda g, n: g,))
    with pytest.raises(ValueError, match="exists already"):
        defop("ThrowawayTwiceBackward0", vjp=(lambda g, n: g,))
    # the same PyTorch node name under another key is fine (mm and bias-free linear)
    other = defop("ThrowawayTwiceBackward0", key="ThrowawayTwiceOther", vjp=(lambda g, n: g,))
    assert other.node.__name__ == "ThrowawayTwiceBackward0"
