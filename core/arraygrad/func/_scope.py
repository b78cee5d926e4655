"""The *scope* of one call of a gradient transform (``grad``, ``vjp``, ``jvp``), emulated on
arraygrad's one autograd graph.

PyTorch's functorch wraps the tensors of each transform call in a new level, so
that (a) ``f`` sees its differentiated inputs track gradients inside the
transform only, (b) a tensor captured from outside is a constant with respect
to those inputs, and (c) the results are "unwrapped": differentiable outside
exactly when they depend on something that requires grad outside. arraygrad has
one graph, so a ``Scope`` gets the same three effects (arraygrad keeps the word "level"
for vmap's, and "dual level" for forward AD's: ``transform_state``):

(a) an input that does not require grad outside becomes a private leaf
    (``detach().requires_grad_()``), one that does becomes a differentiable
    alias (``view_as``) so that the results stay connected to the outer graph;
(b) the gradients are taken with ``autograd.grad`` with respect to those
    tensors only, so paths through a captured tensor are never counted;
(c) a result is detached unless its graph reaches a leaf that requires grad and
    is not one of the scope's private leaves (or the outer grad mode was off).
    Nested transforms compose: an inner transform sees the outer one's private
    leaf as an outer tensor that requires grad, and keeps its results attached.
"""

from __future__ import annotations

from typing import Any

from arraygrad.autograd.api import grad as _autograd_grad
from arraygrad.autograd.graph import AccumulateGrad
from arraygrad._pytree import tree_map
from arraygrad.tensor import Tensor

__all__ = ["Scope", "vjps_or_zeros"]


class Scope:
    """One call of a transform: the private leaves it made and the outer grad mode."""

    def __init__(self, outer_grad_enabled: bool) -> None:
        self.outer_grad_enabled = outer_grad_enabled
        # id -> tensor: holding the tensor keeps the id from being reused while the scope lives
        self._private: dict[int, Tensor] = {}

    def differentiable(self, x: Any) -> Tensor:
        """The tensor ``f`` receives for the differentiated input ``x`` (see (a) above)."""
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        if x.requires_grad:
            return x.view_as(x)
        inner = x.detach().requires_grad_()
        self._private[id(inner)] = inner
        return inner

    def differentiable_tree(self, tree: Any) -> Any:
        """``differentiable`` on every leaf of the pytree ``tree``."""
        return tree_map(self.differentiable, tree)

    def _reaches_outer(self, t: Tensor, inner: set[int]) -> bool:
        """Whether ``t``'s graph reaches a leaf that requires grad outside this scope.

        ``inner`` holds the ids of nodes already found not to reach one (the results of
        one call share most of their graph, so each node is walked once per call); a
        walk that finds none adds the nodes it saw.
        """
        if t.grad_fn is None:
            return id(t) not in self._private
        stack: list[Any] = [t.grad_fn]
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if id(node) in seen or id(node) in inner:
                continue
            seen.add(id(node))
            if isinstance(node, AccumulateGrad):
                if id(node.variable) not in self._private:
                    return True
                continue
            # ``_next`` holds an edge to output 0 as the bare node, others as (node, nr)
            for edge in node._next:
                if edge is not None:
                    stack.append(edge[0] if type(edge) is tuple else edge)
        inner.update(seen)
        return False

    def _unwrap_one(self, value: Any, inner: set[int]) -> Any:
        if not isinstance(value, Tensor) or not value.requires_grad:
            return value
        if self.outer_grad_enabled and self._reaches_outer(value, inner):
            return value
        return value.detach()

    def unwrap(self, value: Any) -> Any:
        """``value`` as the caller of the transform sees it (see (c) above); non-tensors
        are returned as they are."""
        return self._unwrap_one(value, set())

    def unwrap_tree(self, tree: Any) -> Any:
        """``unwrap`` on every leaf of the pytree ``tree``."""
        inner: set[int] = set()  # valid during this call only: the tree keeps its nodes alive
        return tree_map(lambda v: self._unwrap_one(v, inner), tree)

def vjps_or_zeros(outputs: list[Tensor], inputs: list[Tensor],
                  cotangents: list[Tensor] | None, *, retain_graph: bool,
                  create_graph: bool) -> list[Tensor]:
    """VJPs of ``outputs`` w.r.t. ``inputs`` (``cotangents`` None: of scalar outputs), zeros
    where an input is unused or no output requires grad, as functorch's ``_autograd_grad``."""
    given: list[Any] = list(cotangents) if cotangents is not None else [None] * len(outputs)
    pairs = [(o, c) for o, c in zip(outputs, given) if o.requires_grad]
    if not pairs or not inputs:
        return [t.new_zeros(t.shape) for t in inputs]
    grad_outputs = None if cotangents is None else [c for _, c in pairs]
    result = _autograd_grad([o for o, _ in pairs], inputs, grad_outputs,
                            retain_graph=retain_graph, create_graph=create_graph,
                            allow_unused=True)
    return [t.new_zeros(t.shape) if g is None else g for t, g in zip(inputs, result)]
