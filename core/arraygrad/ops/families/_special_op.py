"""How a special function becomes an op: argument checks, integer inputs made floating, a
plugin's or the backend's kernel for the op when one answers (``dispatch_kernel``: a kernel
that declines or raises falls back), else the portable Array API code, then the rule's node --
or no node at all for the functions PyTorch does not differentiate (``bessel_j0``, the
orthogonal polynomials, ...), whose results never require grad, as in PyTorch.

Kernels take and return native arrays of the op's floating dtype: one array for a unary op,
two (broadcastable, numbers made 0-d arrays) for a binary one.
"""

from __future__ import annotations

from numbers import Number
from typing import Any, Callable

from arraygrad.ops.casting import in_opmath, unary_float_data
from arraygrad.ops.complex_checks import refuse_complex_forward
from arraygrad.ops.promotion import operands
from arraygrad.plugins.registry import dispatch_kernel
from arraygrad.tensor import Tensor, wrap

__all__ = ["unary_op", "binary_op", "check_tensor", "kernel_data"]


def check_tensor(op: str, value: Any, position: int = 1, name: str = "input") -> None:
    """PyTorch's TypeError for a non-tensor argument."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def kernel_data(name: str, backend: Any, data_fn: Callable[[Any, Any], Any], a: Any) -> Any:
    """The unary special function ``name`` of native array ``a`` (floating): the kernel
    registered under ``name`` when one answers, else ``data_fn(xp, a)``, in ``a``'s dtype
    (a meta array: an empty one of its shape). The ops' forward, and formulas' (gelu's erf)."""
    xp = backend.xp
    if not backend.holds_data:  # meta: the input's shape, and no series to sum
        return xp.empty_like(a)
    out = dispatch_kernel(name, backend, lambda arr: data_fn(xp, arr), a)
    return out if out.dtype == a.dtype else xp.astype(out, a.dtype)


def unary_op(name: str, rule: Any, data_fn: Callable[[Any, Any], Any],
             doc: str) -> Callable[[Tensor], Tensor]:
    """The float unary op ``name``: ``data_fn(xp, array)`` (or the kernel registered under
    ``name``), recorded by ``rule`` (None: not differentiable)."""
    def op(input: Tensor) -> Tensor:
        check_tensor(name, input)
        # no special function takes complex numbers in PyTorch (nor do the kernels here)
        refuse_complex_forward(name, input)
        backend = input._backend

        def forward(xp: Any, a: Any) -> Any:
            return kernel_data(name, backend, data_fn, a)

        # integers in the default float dtype; float16/bfloat16 in float32, rounded once
        data = unary_float_data(input, forward)
        if rule is None:
            return wrap(data, backend)
        return rule.record(data, backend, (input,))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


def binary_operands(name: str, input: Any, other: Any,
                    tensors_only: bool = False) -> tuple[Any, Any, Any]:
    """``(backend, a, b)``: both operands as native arrays of their promoted floating dtype
    (a Python number becomes a 0-d array), at least one of them a tensor (both, with
    ``tensors_only``)."""
    if tensors_only:
        check_tensor(name, input, 1, "input")
        check_tensor(name, other, 2, "other")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"{name}() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}): at least one "
                        "Tensor is expected")
    for value in (input, other):
        if not isinstance(value, (Tensor, Number)) or isinstance(value, bool):
            raise TypeError(f"{name}(): expected a Tensor or a number, got "
                            f"{type(value).__name__}")
    backend, ad, bd, _, _ = operands(name, input, other, floating=True)
    xp = backend.xp
    like = ad if hasattr(ad, "shape") else bd
    a = ad if hasattr(ad, "shape") else xp.asarray(ad, dtype=like.dtype)
    b = bd if hasattr(bd, "shape") else xp.asarray(bd, dtype=like.dtype)
    return backend, a, b


def binary_op(name: str, rules: Any, data_fn: Callable[[Any, Any, Any], Any], doc: str,
              polynomial: bool = False, tensors_only: bool = False,
              label: str | None = None) -> Callable[[Any, Any], Tensor]:
    """The float binary op ``name(input, other)`` (tensors or numbers, broadcast and promoted):
    ``data_fn(xp, a, b)`` (or the kernel registered under ``name``), recorded by ``rules``:
    None (not differentiable), one rule, or three (PyTorch's node for two tensors, for a
    number first, for a number second: ``XlogyBackward0/1/2``). ``polynomial``: the arguments
    are PyTorch's ``(x, n)``; ``tensors_only``: numbers are refused (``igamma``); ``label``:
    the function's name in messages (default ``name``)."""
    shown = label or name
    if rules is not None and not isinstance(rules, tuple):
        rules = (rules, rules, rules)

    def compute(input: Any, other: Any) -> Tensor:
        backend, a, b = binary_operands(shown, input, other, tensors_only)
        if a.dtype in backend.complex_natives:
            refuse_complex_forward(name, wrap(a, backend))
        xp = backend.xp

        def forward(p: Any, q: Any) -> Any:
            if not backend.holds_data:  # meta: the broadcast shape, and no series to sum
                return xp.empty_like(xp.broadcast_arrays(p, q)[0])
            out = dispatch_kernel(name, backend, lambda u, v: data_fn(xp, u, v), p, q)
            return out if out.dtype == p.dtype else xp.astype(out, p.dtype)

        data = in_opmath(backend, forward, a, b)  # float16/bfloat16: in float32, rounded once
        if rules is None:
            return wrap(data, backend)
        rule = rules[0 if isinstance(input, Tensor) and isinstance(other, Tensor)
                     else 1 if isinstance(other, Tensor) else 2]
        return rule.record(data, backend, (input, other))

    def of_x_n(x: Any, n: Any) -> Tensor:
        return compute(x, n)

    def of_input_other(input: Any, other: Any) -> Tensor:
        return compute(input, other)

    op = of_x_n if polynomial else of_input_other
    op.__name__ = op.__qualname__ = label or name
    op.__doc__ = doc
    return op
