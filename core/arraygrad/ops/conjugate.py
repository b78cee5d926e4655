"""Complex conjugation: ``conj``/``conj_physical`` as ops, and ``conj_of``, the conjugate the
complex rules' vjps take of what they read.

PyTorch's convention (docs/complex.md): the gradient of a complex tensor is the conjugate
Wirtinger derivative, so the vjp of a holomorphic ``f`` is ``g * conj(f'(z))`` and that of a
product ``a * b`` in ``a`` is ``g * conj(b)``. For real tensors ``conj_of`` is the identity,
so one formula serves both.

arraygrad keeps no lazy conjugate bit (docs/complex.md): ``conj()`` of a complex tensor is a
new tensor holding the conjugated values, and of a real tensor the tensor itself.
"""

from __future__ import annotations

from typing import Any

from arraygrad.ops.rule import defop
from arraygrad.tensor import Tensor

__all__ = ["conj", "conj_physical", "conj_of", "is_complex_tensor", "CONJ", "CONJ_PHYSICAL"]


def is_complex_tensor(t: Any) -> bool:
    """Whether ``t`` is a tensor of a complex dtype (one set lookup: for hot paths)."""
    return isinstance(t, Tensor) and t._data.dtype in t._backend.complex_natives


CONJ = defop("ConjBackward0", vjp=(lambda g, n: conj(g),), complex=True)
CONJ_PHYSICAL = defop("ConjPhysicalBackward0", vjp=(lambda g, n: conj_physical(g),),
                      complex=True)


def _conjugated(rule: Any, input: Tensor) -> Tensor:
    backend = input._backend
    data = input._data
    if data.dtype not in backend.complex_natives:
        return input
    return rule.record(backend.xp.conj(data), backend, (input,))


def conj(input: Tensor) -> Tensor:
    """The complex conjugate: a new tensor for a complex ``input`` (no lazy bit: see the module
    docstring), ``input`` itself for a real one, as PyTorch returns it."""
    return _conjugated(CONJ, input)


def conj_physical(input: Tensor) -> Tensor:
    """The conjugate computed now (``torch.conj_physical``): for a real tensor, the tensor."""
    return _conjugated(CONJ_PHYSICAL, input)


def conj_of(value: Any) -> Any:
    """``value``'s conjugate when it is complex (a complex tensor, recorded under
    ``create_graph``; a Python complex number), else ``value`` itself."""
    if isinstance(value, Tensor):
        return conj(value) if value._data.dtype in value._backend.complex_natives else value
    if isinstance(value, complex):
        return value.conjugate()
    return value
