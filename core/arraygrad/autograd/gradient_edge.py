"""``GradientEdge``: a place in the graph where a gradient flows, usable where autograd takes
a tensor (``autograd.grad``'s inputs and outputs, ``backward``'s inputs); and
``increment_version``, for in-place writes autograd cannot see.

>>> edge = get_gradient_edge(h)           # h: an intermediate result
>>> (g,) = autograd.grad(loss, edge)      # the same as autograd.grad(loss, h)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, NamedTuple

if TYPE_CHECKING:
    from arraygrad.autograd.graph import Node
    from arraygrad.tensor import Tensor

__all__ = ["GradientEdge", "get_gradient_edge", "increment_version"]


class GradientEdge(NamedTuple):
    """The edge into ``node``'s input ``output_nr``: where the gradient of a tensor enters the
    graph (its ``grad_fn`` and ``output_nr``, or a leaf's ``AccumulateGrad`` and 0).

    ``ownership_token``: a node that keeps the graph alive when ``node`` alone would not
    (PyTorch's, for Python-defined nodes; arraygrad's nodes hold their graph themselves)."""

    node: Node
    output_nr: int
    ownership_token: Node | None = None


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The gradient edge of ``tensor``: ``autograd.grad(loss, get_gradient_edge(t))`` is
    ``autograd.grad(loss, t)``, and stays so after ``t`` itself is gone."""
    edge = tensor._gradient_edge() if tensor.requires_grad else None
    if edge is None:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does "
                           "not require gradients")
    node, output_nr = edge
    return GradientEdge(node, output_nr)


def edge_tuple(value: Any) -> tuple[Node, int] | None:
    """``(node, output_nr)`` of a ``GradientEdge`` (None for anything else): the engine's
    form of an edge."""
    if isinstance(value, GradientEdge):
        return (value.node, value.output_nr)
    return None


def increment_version(tensor: Tensor | Iterable[Tensor]) -> None:
    """Mark ``tensor`` (or each tensor of an iterable) as modified in place, for a write
    autograd cannot see (through ``data_ptr``, DLPack or NumPy): a saved value it aliases
    then raises at backward instead of giving a wrong gradient. An inference tensor has no
    version counter and is left alone, as in PyTorch."""
    # a tensor is recognised by its version counter: this module sits below arraygrad.tensor
    tensors = (tensor,) if hasattr(tensor, "_bump_version") else tuple(tensor)
    for t in tensors:
        if not hasattr(t, "_bump_version"):
            raise TypeError("increment_version(): expected Tensors, got "
                            f"{type(t).__name__}")
        if not t.is_inference():
            t._bump_version()
