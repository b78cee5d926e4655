"""The public API for op plugins: define a differentiable op the way the core's own ops are.

An op computes its result on native arrays through ``backend_of(t).xp`` (or a
per-backend kernel, called through ``dispatch_kernel``), then records it with its *rule*: one entry of
the rule table (``defop``) naming PyTorch-style its node, what its backward saves and one
vector-Jacobian product per input, written in Tensor operations so that
``create_graph=True`` records them too. Broadcast undoing and dtype cast-back are the
recorder's. See docs/adding-an-op.md.

>>> SOFTSIGN = defop("SoftsignBackward0", saves=("self",),
...                  vjp=(lambda g, n: g / (1 + n.self.abs()) ** 2,))
>>> def softsign(x):
...     xp, data = backend_of(x).xp, native(x)
...     return SOFTSIGN.record(data / (1 + xp.abs(data)), backend_of(x), (x,))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arraygrad.ops.legacy import backward_node, record
from arraygrad.ops.legacy import LEGACY_OUTPUT as OUTPUT
from arraygrad.ops.promotion import same_backend
from arraygrad.plugins.registry import dispatch_kernel, get_kernel
from arraygrad.ops.rule import Rule, defop, fast_paths, reference_mode, rules

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.tensor import Tensor

__all__ = ["defop", "Rule", "rules", "fast_paths", "reference_mode", "get_kernel", "dispatch_kernel",
           "native", "backend_of", "same_backend", "OUTPUT", "backward_node", "record"]


def native(t: Tensor) -> Tensor:
    """The tensor's native array (the backend's own array object)."""
    return t._data


def backend_of(t: Tensor) -> Backend:
    """The tensor's backend (``.xp`` is its Array API namespace, ``.name`` its registry name)."""
    return t._backend
