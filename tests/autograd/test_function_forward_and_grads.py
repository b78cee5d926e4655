"""A custom Function's forward may read its input's values (``.numpy()`` under no_grad), and
a gradient returned for a non-tensor input is refused, as in PyTorch (issue 23, bugs 1, 4)."""

import pytest

import arraygrad as ag


class Doubler(ag.autograd.Function):
    """Computes on the input's host array, as a Function wrapping NumPy code does."""

    @staticmethod
    def forward(x):
        host = x.numpy()  # refused before: "Can't call numpy() on Tensor that requires grad"
        return ag.tensor(host * 2, dtype=x.dtype)

    @staticmethod
    def setup_context(ctx, inputs, output):
        pass

    @staticmethod
    def backward(ctx, g):
        return g * 2


class OldStyleDoubler(ag.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return ag.tensor(x.numpy() * 2, dtype=x.dtype)

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_numpy_in_forward_under_func_grad():
    g = ag.func.grad(lambda x: Doubler.apply(x).sum())(ag.ones(3))
    assert g.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("fn", [Doubler, OldStyleDoubler])
def test_numpy_in_forward_of_an_input_that_requires_grad(fn):
    x = ag.ones(3, requires_grad=True)
    y = fn.apply(x)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def test_numpy_in_forward_under_vjp_and_jacrev():
    _, vjp_fn = ag.func.vjp(Doubler.apply, ag.ones(3))
    assert vjp_fn(ag.ones(3))[0].tolist() == [2.0, 2.0, 2.0]
    assert ag.func.jacrev(Doubler.apply)(ag.ones(2)).tolist() == [[2.0, 0.0], [0.0, 2.0]]


def test_numpy_of_a_tensor_requiring_grad_is_refused_in_grad_mode_only():
    x = ag.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        x.numpy()
    with ag.no_grad():
        assert x.numpy().tolist() == [1.0, 1.0]


def test_matches_pytorch_numpy_rule():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    for lib in (ag, torch):
        x = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError):
            x.numpy()
        with lib.no_grad():
            x.numpy()


class GradForNumber(ag.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * 2, g  # a gradient for the number k


def test_gradient_for_a_non_tensor_input_is_refused():
    x = ag.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="returned a gradient different than None at position "
                                           "2, but the corresponding forward input was not a "
                                           "Variable"):
        GradForNumber.apply(x, 3).sum().backward()


def test_none_for_a_non_tensor_input_is_fine():
    class NoneForNumber(GradForNumber):
        @staticmethod
        def backward(ctx, g):
            return g * 2, None

    x = ag.ones(2, requires_grad=True)
    NoneForNumber.apply(x, 3).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_gradient_for_a_non_tensor_input_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")

    class TorchGradForNumber(torch.autograd.Function):
        forward = GradForNumber.forward
        backward = GradForNumber.backward

    x = torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as theirs:
        TorchGradForNumber.apply(x, 3).sum().backward()
    with pytest.raises(RuntimeError) as ours:
        GradForNumber.apply(ag.ones(2, requires_grad=True), 3).sum().backward()
    assert str(ours.value).replace("GradForNumber", "") == \
        str(theirs.value).replace("TorchGradForNumber", "")
