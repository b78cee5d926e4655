"""``alias``: a new tensor object over the same elements, a view recorded as PyTorch's
``AliasBackward0`` (what ``Tensor.as_subclass`` and ``Tensor.new(tensor)`` return)."""

from __future__ import annotations

from arraygrad.ops.rule import ELEMENTWISE, defop, identity
from arraygrad.ops.views import make_view
from arraygrad.tensor import Tensor

__all__ = ["alias"]

ALIAS = defop("AliasBackward0", jvp=ELEMENTWISE, vjp=(identity,))


def alias(input: Tensor) -> Tensor:
    """``input``'s elements as another tensor: same memory, strides, version counter and
    history (a view of ``input``)."""
    out = ALIAS.record(input._data, input._backend, (input,))
    return make_view(out, input, alias, input._strides)
