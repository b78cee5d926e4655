"""First-order array formulas of the commonest elementwise rules (issue 27): a plain backward
through ``a * b``, ``a + b``, ``exp``, ``log``, ``sqrt``, ``rsqrt``, ``sin``, ``cos``, ``-x``,
``a - b``, ``a / b`` and ``softmax`` computes each gradient on native arrays instead of
recording Tensor ops that nothing keeps.

Each formula is its rule's recorded vjp for real float32/float64 gradients, the same array
operations in the same order (so the values are the vjp's bit for bit, which the tests check
against reference mode), and answers None ("take the vjp") for anything else: complex
gradients (the vjp conjugates), float16/bfloat16 (the operators compute those in float32;
the product alone keeps its earlier rule: any real dtype),
operands of another shape (the vjp contracts a broadcast one) and live scalars of
``arraygrad.compile``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from arraygrad.autograd.graph import SavedTensor
from arraygrad.backends.scalar_operands import scalar_operand
from arraygrad.tensor_sparse import CooData

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import FirstOrder, RuleNode

__all__ = ["operand_data", "real_dense", "times_operand", "unary", "unscaled", "negated",
           "quotient_by_other", "quotient_by_self", "softmax_grad"]


def operand_data(n: RuleNode, index: int, gd: Any, backend: Backend) -> Any:
    """Saved operand ``index`` of ``n`` as it meets the gradient array ``gd``: a Python number
    as the backend's 0-d operand of ``gd``'s dtype (what the ``*`` and ``/`` operators pass),
    a saved tensor of ``gd``'s shape and dtype as its array (version-checked); None for
    anything else (a broadcast operand, another dtype, a live scalar, nothing saved)."""
    other = n._saved[index]  # raw: a number is saved as itself, a tensor as SavedTensor
    kind = type(other)
    if kind is float or kind is int:
        return scalar_operand(backend, other, gd.dtype)
    if kind is SavedTensor:
        t = other.tensor
        vc = t._vc  # ``unpack``'s version check inline (it raises when it fails)
        od = (t if (0 if vc is None else vc[0]) == other.version else other.unpack(n))._data
        if od.shape == gd.shape and od.dtype == gd.dtype:
            return od
    return None


def real_dense(gd: Any, backend: Backend) -> bool:
    """Whether a gradient array is one the formulas take: a real float32/float64 array, not
    a sparse gradient's COO data (its vjp keeps it sparse)."""
    return gd.dtype in backend.wide_floating_natives and gd.__class__ is not CooData


def times_operand(index: int) -> FirstOrder:
    """The first order of a factor of ``a * b``: ``g * other`` on arrays when the other
    factor (saved at ``index``) is a Python number or a tensor of the gradient's shape and
    dtype; None ("take the vjp") otherwise (broadcasting: the vjp contracts instead of
    materialising; complex: the vjp conjugates)."""
    def first(gd: Any, n: RuleNode, backend: Backend) -> Any:
        if gd.dtype in backend.complex_natives:
            return None
        od = operand_data(n, index, gd, backend)
        return None if od is None else gd * od
    return first


def unary(saved: str, formula: Callable[[Any, Any, Any], Any]) -> FirstOrder:
    """The first order of a one-input rule: ``formula(gd, saved_array, xp)`` for a real
    float32/float64 gradient, ``saved`` naming what the rule saves (``"self"``/``"result"``)."""
    def first(gd: Any, n: RuleNode, backend: Backend) -> Any:
        if not real_dense(gd, backend):
            return None
        return formula(gd, n.saved_data(saved), backend.xp)
    return first


def unscaled(gd: Any, n: RuleNode, backend: Backend) -> Any:
    """``g``: ``a + b``'s gradient for ``b`` (the default ``alpha`` only), as the array it came
    as (a plain backward then wraps nothing for it)."""
    if not real_dense(gd, backend) or n.args.get("alpha", 1) != 1:
        return None
    return gd


def negated(gd: Any, n: RuleNode, backend: Backend) -> Any:
    """``-g``: ``neg``'s gradient, and ``a - b``'s for ``b`` (the default ``alpha`` only)."""
    if not real_dense(gd, backend) or n.args.get("alpha", 1) != 1:
        return None
    return -gd


def quotient_by_other(gd: Any, n: RuleNode, backend: Backend) -> Any:
    """``a / b``'s gradient for ``a``: ``g / b``."""
    if not real_dense(gd, backend):
        return None
    od = operand_data(n, 1, gd, backend)
    return None if od is None else gd / od


def quotient_by_self(gd: Any, n: RuleNode, backend: Backend) -> Any:
    """``a / b``'s gradient for ``b``: ``-g * a / (b * b)`` (a number's square taken as a
    Python number, as the vjp's ``n.other * n.other`` is)."""
    if not real_dense(gd, backend):
        return None
    sd = operand_data(n, 0, gd, backend)
    other = n._saved[1]
    kind = type(other)
    if kind is float or kind is int:
        square = scalar_operand(backend, other * other, gd.dtype)
    else:
        od = operand_data(n, 1, gd, backend)
        square = None if od is None else od * od
    if sd is None or square is None:
        return None
    return -gd * sd / square


def softmax_grad(gd: Any, n: RuleNode, backend: Backend) -> Any:
    """``softmax``'s gradient ``y * (g - sum(g * y))`` along its dim (a 0-d one: the vjp,
    whose Tensor sum takes dim 0 of a 0-d tensor as PyTorch does; the standard's may not)."""
    if not real_dense(gd, backend) or not gd.ndim:
        return None
    yd = n.saved_data("result")
    return yd * (gd - backend.xp.sum(gd * yd, axis=n.args["dim"], keepdims=True))
