"""The backward formulas of tanh, sigmoid and relu as ops of their own.

``g * (1 - y * y)`` written with three Tensor ops costs three dispatches in every
backward pass; as one op it costs one, and it stays differentiable (its own rule),
so double backward still works. PyTorch does the same (``TanhBackwardBackward0``...).
Each formula also exists on arrays (``*_grad_data``): the ``first_order`` rule of
``tanh``, ``sigmoid`` and ``relu``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.backends.scalar_operands import scalar_operand
from arraygrad.transform_state import array_kernel
from arraygrad.ops.conjugate import conj_of
from arraygrad.ops.rule import ELEMENTWISE, defop

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode

__all__ = [
    "tanh_backward", "sigmoid_backward", "threshold_backward", "tanh_grad_data",
    "sigmoid_grad_data", "threshold_grad_data", "tanh_first_order", "sigmoid_first_order",
    "relu_first_order",
]


def _conj_data(backend: Backend, d: Any) -> Any:
    """A complex array's conjugate (PyTorch's convention: the vjp of a holomorphic ``f`` is
    ``g * conj(f'(z))``); a real one itself."""
    return backend.xp.conj(d) if d.dtype in backend.complex_natives else d


def tanh_grad_data(backend: Backend, gd: Any, yd: Any) -> Any:
    """``g * (1 - y**2)`` on arrays (not ``g - g*y*y``: an infinite ``g`` where ``y**2 < 1``
    must stay infinite, as in PyTorch, not become ``inf - inf``); complex: ``g *
    conj(1 - y**2)``."""
    d = scalar_operand(backend, 1, yd.dtype) - yd * yd
    # (``_conj_data``'s test inline: tanh's backward is the chain benchmarks' hot formula)
    return gd * (backend.xp.conj(d) if d.dtype in backend.complex_natives else d)


# for complex y the op is g * conj(1 - y*y): holomorphic in g, antiholomorphic in y
TANH_BACKWARD = defop("TanhBackwardBackward0", jvp=ELEMENTWISE, inputs=("grad_output", "output"),
                      saves=("grad_output", "output"), complex=True,
                      vjp=(lambda gg, n: gg * (1 - n.output * n.output),
                           lambda gg, n: conj_of(gg) * n.grad_output * conj_of(n.output) * -2))


def tanh_backward(g: Tensor, y: Tensor) -> Tensor:
    """``g * (1 - y**2)``: the gradient through ``y = tanh(x)``."""
    return TANH_BACKWARD.record(tanh_grad_data(g._backend, g._data, y._data), g._backend, (g, y))


def sigmoid_grad_data(backend: Backend, gd: Any, yd: Any) -> Any:
    """``g * y * (1 - y)`` on arrays; complex: ``g * conj(y * (1 - y))``."""
    return gd * _conj_data(backend, yd * (scalar_operand(backend, 1, yd.dtype) - yd))


SIGMOID_BACKWARD = defop("SigmoidBackwardBackward0", jvp=ELEMENTWISE, inputs=("grad_output", "output"),
                         saves=("grad_output", "output"), complex=True,
                         vjp=(lambda gg, n: gg * n.output * (1 - n.output),
                              lambda gg, n: conj_of(gg) * n.grad_output * (1 - 2 * conj_of(n.output))))


def sigmoid_backward(g: Tensor, y: Tensor) -> Tensor:
    """``g * y * (1 - y)``: the gradient through ``y = sigmoid(x)``."""
    return SIGMOID_BACKWARD.record(sigmoid_grad_data(g._backend, g._data, y._data), g._backend,
                                   (g, y))


@array_kernel
def threshold_grad_data(backend: Backend, gd: Any, yd: Any) -> Any:
    """``g`` where ``y > 0`` or ``y`` is NaN, else 0, on arrays."""
    # a multiply by the 0/1 mask: branch-free, and ~15x faster than NumPy's where on
    # random masks (an infinite gradient where y <= 0 gives NaN here, 0 in PyTorch);
    # the mask is a fresh array, so the product is written into it. ``y != 0`` (y is a relu
    # output, >= 0 or NaN) passes the gradient at NaN as PyTorch's ``y <= 0 ? 0 : g`` does
    mask = backend.xp.astype(yd != 0, gd.dtype)
    mask *= gd
    return mask


# the relu output is saved, not an input: the mask it gives is piecewise constant
THRESHOLD_BACKWARD = defop("ThresholdBackwardBackward0", jvp=ELEMENTWISE, inputs=("grad_output",),
                           saves=("output",), vjp=(lambda gg, n: gg * (n.output != 0),))


def threshold_backward(g: Tensor, y: Tensor) -> Tensor:
    """``g`` where ``y > 0``, else 0: the gradient through ``y = relu(x)``."""
    return THRESHOLD_BACKWARD.record(threshold_grad_data(g._backend, g._data, y._data),
                                     g._backend, (g,), output=y)


# The first-order rules of tanh, sigmoid and relu (``(g_array, node, backend)``): the formulas
# above on the node's saved result, with no Tensor around it.

def tanh_first_order(gd: Any, node: RuleNode, backend: Backend) -> Any:
    """``tanh``'s first-order backward on arrays."""
    return tanh_grad_data(backend, gd, node.saved_data("result"))


def sigmoid_first_order(gd: Any, node: RuleNode, backend: Backend) -> Any:
    """``sigmoid``'s first-order backward on arrays."""
    return sigmoid_grad_data(backend, gd, node.saved_data("result"))


def relu_first_order(gd: Any, node: RuleNode, backend: Backend) -> Any:
    """``relu``'s first-order backward on arrays."""
    return threshold_grad_data(backend, gd, node.saved_data("result"))
