"""PyTorch's ``torch._foreach_*`` functions: one op over a list of tensors, as optimizers and
training code call them (``_foreach_mul_(params, 0.9)``, ``_foreach_add_(exp_avgs, grads,
alpha=1 - beta)``, ``_foreach_norm(grads)``...).

Each runs the op tensor by tensor with the Tensor methods, so the in-place forms go through the
in-place machinery (version counters, the leaf checks, recording) exactly as the methods do;
out-of-place forms return a tuple, in-place forms the list given. The second operand may be,
as in PyTorch: a number, a list of numbers (one per tensor), a tensor (one for all; a 0-d one
for the ``Number`` overloads) or a list of tensors.
"""

from __future__ import annotations

from numbers import Number
from typing import Any, Callable, Sequence

from arraygrad.tensor import Tensor

__all__ = ["FUNCTIONS"]


def _tensors(value: Any, name: str = "self") -> list[Tensor]:
    if isinstance(value, Tensor) or not isinstance(value, (list, tuple)):
        raise TypeError(f"_foreach: argument '{name}' must be a list of Tensors, not "
                        f"{type(value).__name__}")
    if not value:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for t in value:
        if not isinstance(t, Tensor):
            raise TypeError(f"_foreach: argument '{name}' must be a list of Tensors, but found "
                            f"an element of type {type(t).__name__}")
    return list(value)


def _spread(operand: Any, n: int) -> list[Any]:
    """The per-tensor second operands: a list or tuple is one per tensor, else one for all."""
    if isinstance(operand, (list, tuple)):
        if len(operand) != n:
            kind = "tensor" if operand and isinstance(operand[0], Tensor) else "scalar"
            raise RuntimeError(f"Tensor list must have same number of elements as {kind} list.")
        return list(operand)
    return [operand] * n


def _unary(name: str, inplace: bool) -> Callable[..., Any]:
    method = f"{name}_" if inplace else name

    def fn(self: Sequence[Tensor]) -> Any:
        ts = _tensors(self)
        results = tuple(getattr(t, method)() for t in ts)
        return self if inplace else results

    fn.__name__ = fn.__qualname__ = f"_foreach_{method}"
    fn.__doc__ = f"``t.{method}()`` for each tensor ``t`` of the list."
    return fn


# PyTorch has no ``Tensor.maximum_``: the in-place forms clamp (the same values, NaN included)
_INPLACE_METHOD = {"maximum": "clamp_min_", "minimum": "clamp_max_"}


def _binary(name: str, inplace: bool, with_alpha: bool = False) -> Callable[..., Any]:
    method = _INPLACE_METHOD.get(name, f"{name}_") if inplace else name

    def apply(self: Sequence[Tensor], other: Any, alpha: Any) -> Any:
        ts = _tensors(self)
        others = _spread(other, len(ts))
        if alpha != 1:
            results = tuple(getattr(t, method)(o, alpha=alpha) for t, o in zip(ts, others))
        else:
            results = tuple(getattr(t, method)(o) for t, o in zip(ts, others))
        return self if inplace else results

    if with_alpha:  # PyTorch's add and sub alone take ``alpha``
        def fn(self: Sequence[Tensor], other: Any, *, alpha: Any = 1) -> Any:
            return apply(self, other, alpha)
    else:
        def fn(self: Sequence[Tensor], other: Any) -> Any:  # type: ignore[misc]
            return apply(self, other, 1)

    fn.__name__ = fn.__qualname__ = f"_foreach_{name}{'_' if inplace else ''}"
    fn.__doc__ = (f"``t.{name}(o)`` for each tensor ``t`` of the list{' (in place)' if inplace else ''}"
                  f", ``o`` the matching second operand (a number, a list of numbers, a tensor or "
                  f"a list of tensors).")
    return fn


def _pointwise(name: str, inplace: bool) -> Callable[..., Any]:
    """``addcmul``/``addcdiv``: ``value`` a number, one number per tensor, or a 1-D tensor
    of them."""
    method = f"{name}_" if inplace else name

    def fn(self: Sequence[Tensor], tensor1: Sequence[Tensor], tensor2: Sequence[Tensor],
           value: Any = 1) -> Any:
        ts = _tensors(self)
        a, b = _tensors(tensor1, "tensor1"), _tensors(tensor2, "tensor2")
        if len(a) != len(ts) or len(b) != len(ts):
            raise RuntimeError("Tensor lists must have the same number of tensors, got "
                               f"{len(ts)}, {len(a)} and {len(b)}")
        values = value.tolist() if isinstance(value, Tensor) else value
        results = tuple(getattr(t, method)(x, y, value=v)
                        for t, x, y, v in zip(ts, a, b, _spread(values, len(ts))))
        return self if inplace else results

    fn.__name__ = fn.__qualname__ = f"_foreach_{method}"
    fn.__doc__ = f"``t.{method}(t1, t2, value=v)`` for each tensor of the lists."
    return fn


def _lerp(inplace: bool) -> Callable[..., Any]:
    method = "lerp_" if inplace else "lerp"

    def fn(self: Sequence[Tensor], tensors1: Sequence[Tensor], weight: Any) -> Any:
        ts = _tensors(self)
        ends = _tensors(tensors1, "tensors1")
        if len(ends) != len(ts):
            raise RuntimeError("Tensor lists must have the same number of tensors, got "
                               f"{len(ts)} and {len(ends)}")
        results = tuple(getattr(t, method)(e, w)
                        for t, e, w in zip(ts, ends, _spread(weight, len(ts))))
        return self if inplace else results

    fn.__name__ = fn.__qualname__ = f"_foreach_{method}"
    fn.__doc__ = f"``t.{method}(end, weight)`` for each tensor of the lists."
    return fn


def _foreach_pow(self: Any, exponent: Any) -> tuple[Tensor, ...]:
    """``t ** e`` for each tensor (or ``self ** t`` when ``self`` is a number)."""
    if isinstance(self, Number):
        return tuple(t.__rpow__(self) for t in _tensors(exponent, "exponent"))
    ts = _tensors(self)
    return tuple(t.pow(e) for t, e in zip(ts, _spread(exponent, len(ts))))


def _foreach_pow_(self: Sequence[Tensor], exponent: Any) -> Any:
    """``t.pow_(e)`` for each tensor of the list."""
    ts = _tensors(self)
    for t, e in zip(ts, _spread(exponent, len(ts))):
        t.pow_(e)
    return self


def _foreach_norm(self: Sequence[Tensor], ord: Any = 2, dtype: Any = None) -> tuple[Tensor, ...]:
    """The ``ord``-norm of each tensor (flattened), as 0-d tensors."""
    from arraygrad import linalg

    return tuple(linalg.vector_norm(t, ord, dtype=dtype) for t in _tensors(self))


def _foreach_powsum(self: Sequence[Tensor], ord: Any = 2, dtype: Any = None) -> tuple[Tensor, ...]:
    """``sum(|t| ** ord)`` of each tensor, as 0-d tensors."""
    out = []
    for t in _tensors(self):
        a = t.abs() if dtype is None else t.to(dtype).abs()
        out.append(a.pow(ord).sum())
    return tuple(out)


def _foreach_max(self: Sequence[Tensor]) -> tuple[Tensor, ...]:
    """The largest element of each tensor, as 0-d tensors."""
    return tuple(t.max() for t in _tensors(self))


def _foreach_mm(self: Sequence[Tensor], other: Sequence[Tensor]) -> tuple[Tensor, ...]:
    """``a @ b`` for each pair of matrices of the two lists."""
    ts = _tensors(self)
    return tuple(a.mm(b) for a, b in zip(ts, _spread(_tensors(other, "other"), len(ts))))


def _foreach_clone(self: Sequence[Tensor]) -> tuple[Tensor, ...]:
    """A copy of each tensor."""
    return tuple(t.clone() for t in _tensors(self))


def _foreach_copy_(self: Sequence[Tensor], src: Sequence[Tensor], non_blocking: bool = False) -> Any:
    """``t.copy_(s)`` for each pair of the lists."""
    ts = _tensors(self)
    for t, s in zip(ts, _spread(_tensors(src, "src"), len(ts))):
        t.copy_(s)
    return self


def _foreach_zero_(self: Sequence[Tensor]) -> Any:
    """``t.zero_()`` for each tensor."""
    for t in _tensors(self):
        t.zero_()
    return self


_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
          "floor", "frac", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round",
          "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc")
_BINARY = ("mul", "div", "maximum", "minimum", "clamp_max", "clamp_min")

FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{f"_foreach_{n}": _unary(n, False) for n in _UNARY},
    **{f"_foreach_{n}_": _unary(n, True) for n in _UNARY},
    # the special plugin's ``Tensor.lgamma`` (no ``lgamma_`` there yet)
    "_foreach_lgamma": _unary("lgamma", False),
    **{f"_foreach_{n}": _binary(n, False) for n in _BINARY},
    **{f"_foreach_{n}_": _binary(n, True) for n in _BINARY},
    **{f"_foreach_{n}": _binary(n, False, True) for n in ("add", "sub")},
    **{f"_foreach_{n}_": _binary(n, True, True) for n in ("add", "sub")},
    **{f"_foreach_{n}": _pointwise(n, False) for n in ("addcmul", "addcdiv")},
    **{f"_foreach_{n}_": _pointwise(n, True) for n in ("addcmul", "addcdiv")},
    "_foreach_lerp": _lerp(False), "_foreach_lerp_": _lerp(True),
    "_foreach_pow": _foreach_pow, "_foreach_pow_": _foreach_pow_,
    "_foreach_norm": _foreach_norm, "_foreach_powsum": _foreach_powsum,
    "_foreach_max": _foreach_max, "_foreach_mm": _foreach_mm, "_foreach_clone": _foreach_clone,
    "_foreach_copy_": _foreach_copy_, "_foreach_zero_": _foreach_zero_,
}
