"""Arithmetic with sparse COO operands: ``+ - * /``, negation, powers and the zero-preserving
functions of the values, as PyTorch runs them on sparse tensors.

Linear ops (a scalar factor, negation, sums) keep the operand's entries as they are, repeats
and order included, as PyTorch's do; their rules are the dense ops' where those read no
arrays (``AddBackward0``, ``SubBackward0``, ``NegBackward0``), else a sparse rule of the same
name. A function of the values that is not linear (``sqrt``, ``abs``, ``pow``...) needs one
value per position: it runs on the coalesced values (``values_of``), as PyTorch's result is
coalesced too.

Sums: sparse + sparse is sparse (coalesced when both are), a dense operand makes the sum dense
(PyTorch refuses ``sparse + dense`` with the sparse tensor first; arraygrad adds, as autograd's
own gradient sums need to). A product keeps the sparse operand's entries: each value times the
other operand's element at its position.
"""

from __future__ import annotations

from numbers import Number
from typing import Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import no_grad
from arraygrad.autograd.graph import AccumulateGrad
from arraygrad.ops import elementwise as ew
from arraygrad.ops.rule import defop
from arraygrad.sparse._index import coalesced_arrays, dense_array
from arraygrad.sparse._rules import coalesce, from_values, one_backend, values_at, values_of
from arraygrad.tensor import Tensor, wrap
from arraygrad.tensor_sparse import SparseTensor, make_sparse

__all__ = ["add", "sub", "mul", "div", "neg", "pow", "values_function", "as_dtype", "scaled"]


def _values(s: SparseTensor) -> Tensor:
    """The stored values of ``s`` as a tensor outside the graph (for forward computations)."""
    return wrap(s._data.values, s._backend)


def _like(s: SparseTensor, values: Any, coalesced: bool | None = None) -> SparseTensor:
    """A sparse tensor with the indices of ``s`` and other ``values`` (native)."""
    data = s._data
    return make_sparse(data.indices, values, data.shape, s._backend,
                       data.coalesced if coalesced is None else coalesced)


def as_dtype(t: Any, dtype: _dt.dtype) -> Any:
    """``t`` (a tensor, sparse or dense) in ``dtype``; numbers pass."""
    return t if not isinstance(t, Tensor) or t.dtype is dtype else t.to(dtype)


def _common(op: str, a: Any, b: Any) -> tuple[Any, Any, _dt.dtype]:
    """The operands in their promoted dtype, with the same-shape check of PyTorch's sparse
    kernels when both are tensors."""
    d = _dt.result_type(a, b)
    if isinstance(a, Tensor) and isinstance(b, Tensor) and a.ndim and b.ndim \
            and tuple(a.shape) != tuple(b.shape) and (op != "mul" or a.is_sparse == b.is_sparse):
        raise RuntimeError(f"{op}: expected sizes of 'self' and 'other' to match, but "
                           f"{list(a.shape)} != {list(b.shape)}")
    return as_dtype(a, d), as_dtype(b, d), d


def scaled(t: Tensor, alpha: Any) -> Tensor:
    """``t * alpha``, or ``t`` itself for 1 (no node)."""
    return t if alpha == 1 else t * alpha


def add(input: Any, other: Any, alpha: Any = 1, *, merge: bool = True) -> Tensor:
    """``input + alpha * other`` where one operand is sparse. Two sparse operands with the
    same indices add their values; two coalesced ones merge into a coalesced sum (both as
    PyTorch's); otherwise, or without ``merge``, the sum holds the entries of both."""
    return _sum("add", ew.ADD, input, other, alpha, merge)


def sub(input: Any, other: Any, alpha: Any = 1) -> Tensor:
    """``input - alpha * other`` where one operand is sparse (entries as ``add``'s)."""
    return _sum("sub", ew.SUB, input, other, alpha, True)


def _same_pattern(xp: Any, a: Any, b: Any) -> bool:
    return a is b or (a.shape == b.shape and bool(xp.all(a == b)))


def _sum(op: str, rule: Any, input: Any, other: Any, alpha: Any, merge: bool) -> Tensor:
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise RuntimeError(f"{op}(sparse, dense) is not supported. Use {op}(dense, sparse) "
                           "instead.")
    a, b, _ = _common(op, input, other)
    sign = alpha if op == "add" else -alpha
    backend = one_backend(op, a, b)
    if a.is_sparse and b.is_sparse:
        xp = backend.xp
        da, db = a._data, b._data
        if da.indices.shape[0] != db.indices.shape[0]:
            raise RuntimeError(f"{op}: expected 'self' and 'other' to have same sparse "
                               f"dimensions, but got {da.indices.shape[0]} and "
                               f"{db.indices.shape[0]}")
        with no_grad():
            bv = scaled(_values(b), sign)._data
        both = da.coalesced and db.coalesced
        if merge and _same_pattern(xp, da.indices, db.indices):
            indices, values = da.indices, da.values + bv
        else:
            indices = xp.concat([da.indices, db.indices], axis=1)
            values = xp.concat([da.values, bv], axis=0)
            both = both and merge
            if both:  # two coalesced operands merge into a coalesced sum
                indices, values = coalesced_arrays(backend, indices, values,
                                                   da.shape[:da.indices.shape[0]])
        out = make_sparse(indices, values, da.shape, backend, both)
        return rule.record_result(out, (a, b), alpha=alpha)
    dense_a = _dense(a)
    dense_b = _dense(b)
    with no_grad():
        data = (wrap(dense_a, backend) + scaled(wrap(dense_b, backend), sign))._data
    return rule.record(data, backend, (a, b), alpha=alpha)


def _dense(t: Tensor) -> Any:
    if not t.is_sparse:
        return t._data
    data = t._data
    return dense_array(t._backend, data.indices, data.values, data.shape)


def _other_grad(g: Tensor, n: Any) -> Tensor:
    """``g * self``: sparse on the pattern of ``self``, as PyTorch's, when the other factor
    is a sparse tensor or a dense leaf (whose ``.grad`` takes it); dense when it is made by a
    dense op, whose rule takes dense gradients, or was broadcast (the recorder sums it back to
    its shape densely)."""
    grad = g * n.self
    if not grad.is_sparse or n.other_is_sparse:
        return grad
    shape = n.input_shape(1)
    broadcast = shape is not None and tuple(shape) != tuple(grad.shape)
    if broadcast or not isinstance(n._next[1], AccumulateGrad):
        grad = grad.to_dense()
    return grad


MUL = defop("MulBackward0", key="sparse_mul", inputs=("self", "other"), saves=("self", "other"),
            params={"other_is_sparse": False}, uses=(("other",), ("self",)),
            vjp=(lambda g, n: g * n.other, _other_grad))


def mul(input: Any, other: Any) -> SparseTensor:
    """The product of a sparse operand and a number, a dense tensor (broadcast to the sparse
    shape) or another sparse tensor: sparse, on the entries of the (first) sparse operand."""
    if not (isinstance(input, SparseTensor)):
        input, other = other, input  # a product commutes: the sparse operand first
    if isinstance(other, Tensor) and other.ndim == 0 and not other.is_sparse \
            and not other._requires_grad:
        other = other.item()
    elif not isinstance(other, (Tensor, Number)):
        raise TypeError(f"mul(): argument 'other' must be Tensor or Number, not "
                        f"{type(other).__name__}")
    s, other, _ = _common("mul", input, other)
    if isinstance(other, Tensor):
        one_backend("mul", s, other)
    with no_grad():
        if isinstance(other, Tensor):
            at = other if other.is_sparse else other.expand(*s.shape)
            values = _values(s) * values_at(at, wrap(s._data.indices, s._backend), s._data.shape)
        else:
            values = _values(s) * other
    return MUL.record_result(_like(s, values._data), (s, other),
                             other_is_sparse=isinstance(other, SparseTensor))


DIV = defop("DivBackward0", key="sparse_div", inputs=("self", "other"), saves=("other",),
            vjp=(lambda g, n: g / n.other, None))


def div(input: Tensor, other: Any, *, rounding_mode: Any = None) -> SparseTensor:
    """A sparse tensor divided by a number or a 0-d dense tensor (PyTorch's only divisors)."""
    if not isinstance(input, SparseTensor):
        raise RuntimeError("Sparse division requires a sparse dividend; convert the divisor "
                           "with .to_dense() first")
    if isinstance(other, Tensor):
        if other.is_sparse or other.ndim:
            raise RuntimeError("Sparse division requires a scalar or zero-dim dense tensor "
                               f"divisor (got shape {list(other.shape)} for divisor)")
        if other._requires_grad:
            raise NotImplementedError("div: the gradient of a sparse tensor's divisor is not "
                                      "supported; divide by a number or a detached tensor")
        other = other.item()
    s = input if _dt.result_type(input, other).is_floating_point or rounding_mode else \
        input.to(_dt.get_default_dtype())
    with no_grad():
        values = ew.div(_values(s), other, rounding_mode=rounding_mode)
    return DIV.record_result(_like(s, values._data), (s, other))


def neg(input: SparseTensor) -> SparseTensor:
    """``-input``, entry by entry."""
    return ew.NEG.record_result(_like(input, -input._data.values), (input,))


def values_function(name: str, fn: Callable[..., Tensor]) -> Callable[..., SparseTensor]:
    """The sparse version of a function ``fn`` of the values with ``fn(0) == 0``: ``fn`` of the
    coalesced values, in the graph through them."""
    def method(input: SparseTensor, *args: Any, **kwargs: Any) -> SparseTensor:
        c = coalesce(input)
        values = fn(values_of(c), *args, **kwargs)
        return from_values(wrap(c._data.indices, c._backend), values, c._data.shape, True)

    method.__name__ = name
    method.__doc__ = f"``{name}`` of the specified values (it keeps zeros zero)."
    return method


def pow(input: SparseTensor, exponent: Any) -> SparseTensor:
    """The values raised to a number (not zero: ``0 ** 0`` would make the result dense)."""
    if isinstance(exponent, Tensor):
        if exponent.ndim or exponent.is_sparse:
            raise RuntimeError("pow: a sparse tensor takes a scalar exponent")
        exponent = exponent.item()
    if exponent == 0:
        raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would make "
                           "the result tensor dense")
    return values_function("pow", ew.pow)(input, exponent)
