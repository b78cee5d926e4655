"""``nn.grad``: the gradients of a convolution with respect to its input and to its weight,
given the gradient of its output (``conv2d_input``, ``conv2d_weight``...).

Each is the vector-Jacobian product of the convolution, taken by autograd through
``nn.functional``'s convolution (linear in the differentiated operand, so any value of it
gives the same product); the result is differentiable where its operands require grad.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from arraygrad.autograd import grad
from arraygrad.autograd.grad_mode import enable_grad
from arraygrad.creation import zeros
from arraygrad.nn._functional.conv import conv1d, conv2d, conv3d
from arraygrad.tensor import Tensor

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _vjp(conv: Callable[..., Tensor], input: Tensor, weight: Tensor, grad_output: Tensor,
         wrt: Tensor, stride: Any, padding: Any, dilation: Any, groups: int) -> Tensor:
    keep = grad_output.requires_grad or (input if wrt is weight else weight).requires_grad
    with enable_grad():
        out = conv(input, weight, None, stride, padding, dilation, groups)
        if tuple(out.shape) != tuple(grad_output.shape):
            raise RuntimeError(f"nn.grad: grad_output of shape {tuple(grad_output.shape)} does "
                               f"not match the convolution's output {tuple(out.shape)}")
        (result,) = grad(out, (wrt,), grad_output, create_graph=keep)
    assert result is not None  # the convolution uses every element of ``wrt``
    return result


def _input_grad(conv: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def fn(input_size: Sequence[int], weight: Tensor, grad_output: Tensor, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
        input = zeros(*input_size, dtype=grad_output.dtype, device=grad_output.device,
                      requires_grad=True)
        return _vjp(conv, input, weight, grad_output, input, stride, padding, dilation, groups)

    fn.__doc__ = (f"The gradient of ``{conv.__name__}`` with respect to its input (of "
                  "``input_size``), given ``weight`` and the output's gradient ``grad_output``.")
    return fn


def _weight_grad(conv: Callable[..., Tensor]) -> Callable[..., Tensor]:
    def fn(input: Tensor, weight_size: Sequence[int], grad_output: Tensor, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
        weight = zeros(*weight_size, dtype=grad_output.dtype, device=grad_output.device,
                       requires_grad=True)
        return _vjp(conv, input, weight, grad_output, weight, stride, padding, dilation, groups)

    fn.__doc__ = (f"The gradient of ``{conv.__name__}`` with respect to its weight (of "
                  "``weight_size``), given ``input`` and the output's gradient ``grad_output``.")
    return fn


conv1d_input, conv1d_weight = _input_grad(conv1d), _weight_grad(conv1d)
conv2d_input, conv2d_weight = _input_grad(conv2d), _weight_grad(conv2d)
conv3d_input, conv3d_weight = _input_grad(conv3d), _weight_grad(conv3d)
for _name in __all__:
    globals()[_name].__name__ = globals()[_name].__qualname__ = _name
