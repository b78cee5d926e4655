"""Custom ``autograd.Function``: ctx, needs_input_grad, several outputs, errors, double backward."""

import pytest

import arraygrad as ag
from arraygrad.autograd import Function


class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


def test_simple_function_and_grad_fn_name():
    x = ag.tensor([3.], requires_grad=True)
    y = Square.apply(x)
    assert y.grad_fn.name() == "SquareBackward"
    y.backward()
    assert x.grad.tolist() == [6.]


def test_double_backward_through_function_with_differentiable_backward():
    x = ag.tensor([3.], requires_grad=True)
    (g,) = ag.autograd.grad(Square.apply(x), x, create_graph=True)
    (g2,) = ag.autograd.grad(g, x)
    assert g.tolist() == [6.] and g2.tolist() == [2.]


def test_needs_input_grad_and_non_tensor_args():
    seen = {}

    class Scale(Function):
        @staticmethod
        def forward(ctx, x, y, factor):
            seen["needs"] = ctx.needs_input_grad
            ctx.factor = factor
            return x * y * factor

        @staticmethod
        def backward(ctx, g):
            return g * ctx.factor, None, None

    x = ag.tensor([1.], requires_grad=True)
    Scale.apply(x, ag.tensor([2.]), 5.0).sum().backward()
    assert seen["needs"] == (True, False, False)
    assert x.grad.tolist() == [5.]


def test_multiple_outputs_and_non_differentiable_output():
    class SortLike(Function):
        @staticmethod
        def forward(ctx, x):
            idx = x.argmax()
            ctx.mark_non_differentiable(idx)
            return x * 2, idx

        @staticmethod
        def backward(ctx, g, g_idx):
            return g * 2

    x = ag.tensor([1., 5.], requires_grad=True)
    y, idx = SortLike.apply(x)
    assert not idx.requires_grad and y.requires_grad
    y.sum().backward()
    assert x.grad.tolist() == [2., 2.]


def test_unused_output_gradient_is_materialized_as_zeros():
    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, ga, gb):
            return ga + 2 * gb

    x = ag.tensor([1.], requires_grad=True)
    a, _ = Two.apply(x)
    a.sum().backward()
    assert x.grad.tolist() == [1.]


def test_set_materialize_grads_false_passes_none():
    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 1, x * 2

        @staticmethod
        def backward(ctx, ga, gb):
            assert gb is None
            return ga

    x = ag.tensor([1.], requires_grad=True)
    a, _ = Two.apply(x)
    a.sum().backward()
    assert x.grad.tolist() == [1.]


def test_wrong_number_of_gradients_raises():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            return g

    x = ag.tensor([1.], requires_grad=True)
    with pytest.raises(RuntimeError, match="incorrect number of gradients"):
        Bad.apply(x, x).sum().backward()


def test_wrong_gradient_shape_raises():
    class Bad(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return ag.ones(5)

    x = ag.tensor([1., 2.], requires_grad=True)
    with pytest.raises(RuntimeError, match="invalid gradient at index 0"):
        Bad.apply(x).sum().backward()


def test_apply_under_no_grad_records_nothing():
    x = ag.tensor([1.], requires_grad=True)
    with ag.no_grad():
        y = Square.apply(x)
    assert y.grad_fn is None and not y.requires_grad


def test_setup_context_style():
    class Cube(Function):
        @staticmethod
        def forward(x):
            return x ** 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2 * g

    x = ag.tensor([2.], requires_grad=True)
    Cube.apply(x).backward()
    assert x.grad.tolist() == [12.]


def test_saved_output_has_no_reference_cycle_and_version_check():
    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    x = ag.tensor([0.], requires_grad=True)
    y = Exp.apply(x)
    y.backward()
    assert x.grad.tolist() == [1.]
    y2 = Exp.apply(x)
    y2.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y2.backward()


def test_gradcheck_on_function():
    x = ag.randn(4, dtype=ag.float64, requires_grad=True)
    assert ag.autograd.gradcheck(Square.apply, (x,))
    assert ag.autograd.gradgradcheck(Square.apply, (x,))


def test_once_differentiable_backward_records_nothing():
    class Sq(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @ag.autograd.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = ag.tensor([3.], requires_grad=True)
    (g,) = ag.autograd.grad(Sq.apply(x), x, create_graph=True)
    assert g.tolist() == [6.] and not g.requires_grad


def test_variable_alias():
    with pytest.warns(DeprecationWarning):
        v = ag.autograd.Variable(ag.ones(2), requires_grad=True)
    assert isinstance(v, ag.autograd.Variable) and isinstance(v, ag.Tensor)
    assert v.requires_grad and v.is_leaf


class AddOneInPlace(Function):
    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g


def test_mark_dirty_rebases_the_modified_input():
    a = ag.tensor([1., 2.], requires_grad=True)
    y = a * 2
    out = AddOneInPlace.apply(y)
    assert out is y and y.tolist() == [3., 5.]
    assert y.grad_fn.name() == "AddOneInPlaceBackward" and y._version == 1
    (y * 3).sum().backward()
    assert a.grad.tolist() == [6., 6.]


def test_mark_dirty_on_leaf_requiring_grad_raises():
    a = ag.tensor([1., 2.], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        AddOneInPlace.apply(a)


def test_mark_dirty_invalidates_earlier_saves():
    a = ag.tensor([1., 2.], requires_grad=True)
    y = a * 1
    z = y * y  # saves y
    AddOneInPlace.apply(y)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_mark_non_differentiable_on_returned_input():
    class Id(Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def backward(ctx, ga, gb):
            return ga, None

    x, y = Id.apply(ag.ones(2, requires_grad=True), ag.ones(2, requires_grad=True))
    assert x.requires_grad and not y.requires_grad


def test_gradcheck_accepts_a_list_of_inputs():
    x = ag.randn(3, dtype=ag.float64, requires_grad=True)
    assert ag.autograd.gradcheck(lambda t: (t * t).sum(), [x])
