"""A result of integer or bool dtype never requires grad, whatever its inputs (PyTorch: only
floating-point tensors can require gradients): casts, indices of ``max``/``sort``, and the
forward-mode tangents likewise."""

from __future__ import annotations

import pytest

import arraygrad as ag


@pytest.mark.parametrize("cast", [lambda x: x.int(), lambda x: x.long(), lambda x: x.bool(),
                                  lambda x: x.to(ag.int64), lambda x: x.type(ag.int32),
                                  lambda x: (x * 3).floor().long()])
def test_casting_to_an_integer_dtype_leaves_the_graph(cast) -> None:
    x = ag.tensor([1.5, -2.0], requires_grad=True)
    y = cast(x)
    assert not y.requires_grad and y.grad_fn is None


def test_float_casts_keep_the_graph() -> None:
    x = ag.tensor([1.5, -2.0], requires_grad=True)
    y = x.double()
    assert y.requires_grad and y.grad_fn is not None
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_indices_of_multi_output_ops_carry_no_gradient() -> None:
    x = ag.tensor([[1.0, 3.0], [2.0, 0.0]], requires_grad=True)
    values, indices = x.max(dim=1)
    assert values.requires_grad and not indices.requires_grad
    values, indices = x.sort(dim=1)
    assert values.requires_grad and not indices.requires_grad


def test_forward_mode_gives_integer_results_no_tangent() -> None:
    import arraygrad.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        x = fwAD.make_dual(ag.tensor([1.5, 2.5]), ag.tensor([1.0, 1.0]))
        assert fwAD.unpack_dual(x.long()).tangent is None
        assert fwAD.unpack_dual(x * 2).tangent is not None
