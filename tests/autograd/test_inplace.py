"""In-place ops: version counters, rebasing history (also through views), and the errors."""

import pytest
from hypothesis import example, given, settings, strategies as st

import arraygrad as ag


def test_every_inplace_op_matches_its_out_of_place_twin():
    cases = [("add_", (2.,)), ("sub_", (1.5,)), ("mul_", (3.,)), ("div_", (4.,)),
             ("pow_", (2.,)), ("clamp_", (-0.5, 0.5)), ("exp_", ()), ("relu_", ()),
             ("neg_", ()), ("sigmoid_", ()), ("tanh_", ()), ("zero_", ()), ("fill_", (7.,))]
    for name, args in cases:
        x = ag.tensor([-1., 0.25, 2.], requires_grad=True)
        y = x * 1
        getattr(y, name)(*args)
        y.sum().backward()
        x2 = ag.tensor([-1., 0.25, 2.], requires_grad=True)
        ref = {"zero_": lambda t: t * 0, "fill_": lambda t: t * 0 + 7.,
               "clamp_": lambda t: t.clamp(*args)}.get(name) or (
            lambda t: getattr(t, name[:-1])(*args))
        ref(x2 * 1).sum().backward()
        assert y.tolist() == pytest.approx(ref(ag.tensor([-1., 0.25, 2.])).tolist()), name
        assert x.grad.tolist() == pytest.approx(x2.grad.tolist()), name


def test_augmented_assignment_family():
    x = ag.tensor([2.], requires_grad=True)
    y = x * 1
    y += 1
    y *= 3
    y -= 1
    y /= 2
    y **= 2
    y.backward()
    # y = ((3(x+1) - 1)/2)^2 -> dy/dx = 2 * (3(x+1)-1)/2 * 3/2
    assert y.item() == 16.0 and x.grad.item() == pytest.approx(12.0)


def test_copy_and_setitem_route_gradients_to_the_source():
    src = ag.tensor([1., 2.], requires_grad=True)
    z = ag.zeros(2)
    z.copy_(src * 3)
    z.sum().backward()
    assert src.grad.tolist() == [3., 3.]
    w = ag.tensor(5., requires_grad=True)
    t = ag.zeros(3)
    t[1] = w
    (t * ag.tensor([1., 2., 3.])).sum().backward()
    assert w.grad.item() == 2.0


def test_version_counter_shared_with_views_and_detach_not_data():
    x = ag.ones(4)
    v = x[1:3]
    d = x.detach()
    raw = x.data
    v.add_(1)
    assert x._version == v._version == d._version == 1 and raw._version == 0
    assert x.tolist() == [1., 2., 2., 1.]


def test_version_error_names_op_and_versions():
    a = ag.tensor([1., 2.], requires_grad=True)
    b = a.sigmoid()  # saves its output
    b.mul_(2)
    with pytest.raises(RuntimeError, match=r"SigmoidBackward0.*is at version 1; expected version 0"):
        b.sum().backward()


def test_inplace_on_slice_of_non_leaf():
    x = ag.tensor([1., 2., 3., 4.], requires_grad=True)
    y = x * 2
    y[1:3].mul_(10)
    assert y.tolist() == [2., 40., 60., 8.]
    y.sum().backward()
    assert x.grad.tolist() == [2., 20., 20., 2.]


def test_inplace_on_transposed_view_rebases_base():
    x = ag.tensor([[1., 2.], [3., 4.]], requires_grad=True)
    y = x.clone()
    y.t()[0].mul_(3)  # first column times 3
    assert y.tolist() == [[3., 2.], [9., 4.]]
    y.sum().backward()
    assert x.grad.tolist() == [[3., 1.], [3., 1.]]


def test_sibling_view_grad_fn_is_regenerated_after_base_changed():
    x = ag.tensor([1., 2., 3.], requires_grad=True)
    y = x * 1
    a, b = y[0:2], y[1:3]
    a.mul_(2)
    assert b.tolist() == [4., 3.]
    b.sum().backward()
    assert x.grad.tolist() == [0., 2., 1.]


def test_value_requiring_grad_written_into_view_of_plain_tensor():
    w = ag.tensor([5.], requires_grad=True)
    z = ag.zeros(3)
    z[1:2].copy_(w)
    assert z.requires_grad and z.tolist() == [0., 5., 0.]
    z.sum().backward()
    assert w.grad.tolist() == [1.]


def test_inplace_errors():
    leaf = ag.tensor([1., 2.], requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf Variable"):
        leaf[0].mul_(2)
    with pytest.raises(RuntimeError, match="more than one element"):
        ag.zeros(3).expand(2, 3).add_(1)
    s0, _ = (leaf * 1).split(1)
    with pytest.raises(RuntimeError, match="returns multiple views"):
        s0.mul_(2)
    i = ag.tensor([1, 2])
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.add_(1.5)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        ag.zeros(2).add_(ag.zeros(3, 2))


def test_view_contiguity_rules():
    x = ag.randn(3, 4)
    assert x.stride() == (4, 1) and x.is_contiguous()
    t = x.t()
    assert t.stride() == (1, 4) and not t.is_contiguous()
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.view(-1)
    assert t.reshape(-1).tolist() == t.contiguous().view(-1).tolist()
    assert x[1:3].is_contiguous() and not x[:, 1:3].is_contiguous()
    with pytest.raises(RuntimeError):
        x[:, 1:3].view(6)
    assert x.unsqueeze(1).view(3, 4).is_contiguous()
    assert x.expand(2, 3, 4).stride() == (0, 4, 1)
    assert x.t().t().is_contiguous()


def test_requires_grad_on_non_leaf_cannot_be_turned_off():
    y = ag.tensor([1.], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad_(False)


OPS = ["add", "mul", "sub", "exp", "tanh", "pow", "slice_mul", "setitem", "read"]


def _run(program, inplace: bool):
    """Apply ``program`` in place (arraygrad's machinery) or functionally (the reference)."""
    x = ag.tensor([0.5, -0.3, 0.8, 0.1], dtype=ag.float64, requires_grad=True)
    y = x * 1
    saved = []
    for op in program:
        if op == "read":  # something saved for backward that later in-place ops may modify
            saved.append(y * y if inplace else y * y)
            continue
        if inplace:
            {"add": lambda: y.add_(0.5), "mul": lambda: y.mul_(1.5), "sub": lambda: y.sub_(0.2),
             "exp": lambda: y.exp_(), "tanh": lambda: y.tanh_(), "pow": lambda: y.pow_(2),
             "slice_mul": lambda: y[1:3].mul_(2.0),
             "setitem": lambda: y.__setitem__(0, 0.25)}[op]()
        else:
            y = {"add": lambda: y + 0.5, "mul": lambda: y * 1.5, "sub": lambda: y - 0.2,
                 "exp": lambda: y.exp(), "tanh": lambda: y.tanh(), "pow": lambda: y ** 2,
                 "slice_mul": lambda: y * ag.tensor([1., 2., 2., 1.], dtype=ag.float64),
                 # ``where``, not ``y * mask + value``: an overflowed y[0] (inf) times 0
                 # is NaN, while the assignment drops it (value and gradient)
                 "setitem": lambda: ag.where(ag.tensor([True, False, False, False]),
                                             ag.tensor(0.25, dtype=ag.float64), y)}[op]()
    total = y.sum() + sum((s.sum() for s in saved), ag.tensor(0., dtype=ag.float64))
    total.backward()
    return y.tolist(), x.grad.tolist()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(OPS), min_size=1, max_size=6))
@example(["exp", "exp", "exp", "exp", "tanh"])  # overflows to inf: NaN gradients on both sides
@example(["setitem", "add", "exp", "exp", "exp", "exp"])  # y[0] overflows after the assignment
@example(["add", "exp", "exp", "exp", "exp", "setitem"])  # ... and before it
def test_random_inplace_programs_match_functional_or_raise_version_error(program):
    ref_value, ref_grad = _run(program, inplace=False)
    try:
        value, grad = _run(program, inplace=True)
    except RuntimeError as e:
        # only legal when something saved was modified afterwards
        assert "modified by an inplace operation" in str(e)
        assert "read" in program[:-1]
        return
    # NaN where the reference has NaN (and only there) is a match
    assert value == pytest.approx(ref_value, nan_ok=True)
    assert grad == pytest.approx(ref_grad, nan_ok=True)
