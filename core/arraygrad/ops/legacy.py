"""The op-plugin API of arraygrad 0.1 (``backward_node`` + ``record``), kept for plugins
written against it: both now go through the rule table and its recorder.

``backward_node(name, fn)`` makes a rule whose one joint vjp is ``fn(node, grad)``;
``record(data, backend, rule, inputs, saved=..., args=...)`` records it, with ``saved``
read back through ``node.saved_tensors`` and ``args`` as ``node.args``. New code uses
``arraygrad.extend.defop`` (named saves and params, one vjp per input).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Callable, Sequence

from arraygrad.autograd.grad_mode import _state
from arraygrad.autograd.graph import SavedOutput, SavedTensor
from arraygrad.ops.rule import Rule, RuleNode
from arraygrad.tensor import Tensor, wrap

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = ["backward_node", "record", "LEGACY_OUTPUT"]

LEGACY_OUTPUT = object()
"""In ``record``'s ``saved``: the op's own result (``arraygrad.extend.OUTPUT`` in 0.1)."""


class LegacyNode(RuleNode):
    """A 0.1-style node: ``needs_input_grad(i)`` is a method there."""

    __slots__ = ()

    def needs_input_grad(self, i: int) -> bool:  # type: ignore[override]
        """Whether input ``i`` needs a gradient (0.1's method form)."""
        return self._next[i] is not None


def backward_node(name: str, backward: Callable[..., Any]) -> Rule:
    """A rule named ``name`` whose backward is ``backward(node, grad) -> grads``.

    Deprecated: define the op with ``arraygrad.extend.defop``."""
    warnings.warn(f"backward_node({name!r}) is deprecated: define the op with "
                  "arraygrad.extend.defop (see docs/adding-an-op.md)", DeprecationWarning,
                  stacklevel=2)
    return Rule(name, inputs=(), vjp=lambda g, node: backward(node, g), base=LegacyNode)


def record(data: Any, backend: Backend, rule: Rule, inputs: Sequence, saved: Sequence = (),
           args: Any = None) -> Tensor:
    """Wrap ``data`` and, when a gradient is needed, link a node of ``rule`` (0.1's API)."""
    if not (_state.enabled and any(isinstance(t, Tensor) and t._requires_grad for t in inputs)):
        return wrap(data, backend)
    out = wrap(data, backend)
    node = rule._link(tuple(inputs), {}, out)
    assert node is not None  # an input requires grad (tested above)
    node._saved = tuple(SavedOutput(out) if s is LEGACY_OUTPUT else
                        SavedTensor(s) if isinstance(s, Tensor) else s for s in saved)
    node.args = args
    return out
