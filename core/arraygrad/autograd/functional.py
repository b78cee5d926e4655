"""``arraygrad.autograd.functional``: jacobian, hessian, vjp, jvp, hvp, vhp of whole functions.

Same semantics as ``torch.autograd.functional``: inputs are detached and made to
require grad inside, results do not require grad unless ``create_graph=True``,
``strict=True`` raises when an output is independent of an input (where
non-strict returns zeros). ``jacobian``/``hessian`` take one backward per output
element, or with ``vectorize=True`` map them with ``vmap`` (``functional_vectorized``),
also in forward mode (``strategy="forward-mode"``). ``jvp`` uses the double-vjp trick,
so it needs differentiable backward formulas, which every built-in op has.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

from arraygrad.autograd import batched_grad as _batched_grad  # noqa: F401  (registers itself)
from arraygrad.autograd.api import grad as _grad
from arraygrad.autograd.grad_mode import enable_grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

    _TensorOrTensors = Tensor | tuple[Tensor, ...]
    # one tensor, a tuple per input or per output, or a tuple of tuples (outputs x inputs)
    _Jacobian = Tensor | tuple[Tensor, ...] | tuple[tuple[Tensor, ...], ...]


def _as_tuple(x: Any, arg: str, fn: str) -> tuple[bool, tuple[Tensor, ...]]:
    from arraygrad.tensor import Tensor

    is_tuple = isinstance(x, (tuple, list))
    items = tuple(x) if is_tuple else (x,)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise TypeError(f"The {arg} given to {fn} must be either a Tensor or a tuple of "
                            f"Tensors but the value at index {i} has type {type(t).__name__}.")
    return is_tuple, items


def _require(inputs: tuple[Tensor, ...], create_graph: bool) -> tuple[Tensor, ...]:
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))  # a differentiable alias keeps the outer graph
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def _grads(outputs: Sequence[Tensor], inputs: Sequence[Tensor], grad_outputs: Sequence[Tensor],
           create_graph: bool, strict: bool, fn: str) -> tuple[Tensor, ...]:
    """VJPs of ``outputs`` w.r.t. ``inputs``; zeros (or an error if strict) where unused."""
    from arraygrad.creation import zeros_like

    diff = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not diff:
        if strict:
            raise RuntimeError(f"{fn}: the output of the user-provided function does not "
                               "require gradients (strict=True)")
        return tuple(zeros_like(t) for t in inputs)
    result = _grad([o for o, _ in diff], inputs, [g for _, g in diff], create_graph=True,
                   allow_unused=True)
    out = []
    for i, (t, g) in enumerate(zip(inputs, result)):
        if g is None:
            if strict:
                raise RuntimeError(f"{fn}: the output of the user-provided function is "
                                   f"independent of input {i}. This is not allowed in strict mode.")
            g = zeros_like(t)
        elif strict and create_graph and not g.requires_grad:
            raise RuntimeError(f"{fn}: the gradient with respect to input {i} is independent "
                               "of the inputs of the user-provided function (strict=True).")
        out.append(g)
    return tuple(out)


def _vectors(v: Any, refs: Sequence[Tensor], fn: str, what: str) -> tuple[Tensor, ...]:
    """``v`` as a tuple matching ``refs`` in shape; ones when None and ``refs`` is one scalar."""
    from arraygrad.creation import ones_like

    if v is None:
        if len(refs) != 1 or refs[0].numel() != 1:
            raise RuntimeError(f"The vector v can only be None if the {what} of the user-provided "
                               f"function is a single Tensor with a single element.")
        return (ones_like(refs[0]),)
    _, vs = _as_tuple(v, "v", fn)
    if len(vs) != len(refs):
        raise RuntimeError(f"{fn}: v has {len(vs)} elements but the function has {len(refs)} {what}s")
    for i, (vi, r) in enumerate(zip(vs, refs)):
        if tuple(vi.shape) != tuple(r.shape):
            raise RuntimeError(f"Mismatch in shape: v[{i}] has a shape of {vi.shape} and "
                               f"{what}[{i}] has a shape of {r.shape}.")
    return vs


def _vjp_of(grads: Sequence[Tensor], wrt: Sequence[Tensor], vs: Sequence[Tensor],
            create_graph: bool) -> tuple[Tensor | None, ...]:
    """The VJP of ``grads`` (a first derivative) with ``vs``, w.r.t. ``wrt`` (None where unused)."""
    pairs = [(gi, vi) for gi, vi in zip(grads, vs) if gi.requires_grad]
    if not pairs:
        return (None,) * len(wrt)
    return _grad([gi for gi, _ in pairs], wrt, [vi for _, vi in pairs],
                 create_graph=create_graph, allow_unused=True)


def _zeros_for_unused(values: Sequence[Tensor | None], likes: Sequence[Tensor], strict: bool,
                      message: str) -> list[Tensor]:
    """``values`` with None replaced by zeros shaped like ``likes`` (an error if ``strict``)."""
    from arraygrad.creation import zeros_like

    out = []
    for i, (v, like) in enumerate(zip(values, likes)):
        if v is None:
            if strict:
                raise RuntimeError(message.format(i))
            v = zeros_like(like)
        out.append(v)
    return out


def _finish(values: Sequence[Tensor], create_graph: bool) -> tuple[Tensor, ...]:
    return tuple(v if create_graph else v.detach() for v in values)


def _unwrap(is_tuple: bool, values: tuple[Tensor, ...]) -> _TensorOrTensors:
    return values if is_tuple else values[0]


def vjp(func: Callable[..., Any], inputs: _TensorOrTensors, v: _TensorOrTensors | None = None,
        create_graph: bool = False,
        strict: bool = False) -> tuple[_TensorOrTensors, _TensorOrTensors]:
    """``(func(inputs), v^T J)``: the vector-Jacobian product at ``inputs``.

    >>> vjp(lambda x: x ** 2, arraygrad.tensor([1., 2.]), arraygrad.ones(2))[1]
    tensor([2., 4.])
    """
    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _require(inputs, create_graph)
        out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "vjp")
        vs = _vectors(v, outputs, "vjp", "output")
        grads = _grads(outputs, inputs, vs, create_graph, strict, "vjp")
    return (_unwrap(out_tuple, _finish(outputs, create_graph)),
            _unwrap(in_tuple, _finish(grads, create_graph)))


def jvp(func: Callable[..., Any], inputs: _TensorOrTensors, v: _TensorOrTensors | None = None,
        create_graph: bool = False,
        strict: bool = False) -> tuple[_TensorOrTensors, _TensorOrTensors]:
    """``(func(inputs), J v)``: the Jacobian-vector product, by differentiating a VJP."""
    from arraygrad.creation import zeros_like

    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _require(inputs, create_graph)
        vs = _vectors(v, inputs, "jvp", "input")
        out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", "jvp")
        # u -> J^T u is linear in u; differentiating <J^T u, v> w.r.t. u gives J v.
        dummies = tuple(zeros_like(o).requires_grad_(True) for o in outputs)
        g = _grads(outputs, inputs, dummies, True, strict, "jvp")
        jv = _vjp_of(g, dummies, vs, create_graph)
        result = _zeros_for_unused(jv, outputs, strict,
                                   "jvp: output {} is independent of the inputs (strict=True)")
    return (_unwrap(out_tuple, _finish(outputs, create_graph)),
            _unwrap(out_tuple, _finish(result, create_graph)))


def _nest_jacobian(blocks: list[list[Tensor]], out_tuple: bool, in_tuple: bool) -> _Jacobian:
    """``blocks[output][input]`` nested as PyTorch returns them: a tuple level only where
    the outputs (inputs) were given as a tuple."""
    rows = [tuple(row) if in_tuple else row[0] for row in blocks]
    return tuple(rows) if out_tuple else rows[0]  # type: ignore[return-value]


def _loop_jacobian(outputs: Sequence[Tensor], inputs: Sequence[Tensor], create_graph: bool,
                   strict: bool) -> list[list[Tensor]]:
    """``blocks[output][input]``, one backward per output element."""
    from arraygrad.creation import zeros
    from arraygrad.ops.shape import stack

    blocks = []
    for i, out in enumerate(outputs):
        per_input: list[list[Tensor]] = [[] for _ in inputs]
        flat = out.reshape(-1)
        for e in range(flat.numel()):
            g: tuple[Tensor | None, ...]  # (allow_unused: None for an unused input)
            if out.requires_grad:
                g = _grad(flat[e], inputs, retain_graph=True, create_graph=create_graph,
                          allow_unused=True)
            else:
                g = (None,) * len(inputs)
            for j, (x, gj) in enumerate(zip(inputs, g)):
                if gj is None:
                    if strict:
                        raise RuntimeError(
                            f"jacobian: output {i} is independent of input {j} (strict=True)")
                    gj = zeros(tuple(x.shape), dtype=x.dtype, device=x.device)
                per_input[j].append(gj)
        row = []
        for j, x in enumerate(inputs):
            if per_input[j]:
                row.append(stack(per_input[j]).reshape(tuple(out.shape) + tuple(x.shape)))
            else:
                row.append(zeros(tuple(out.shape) + tuple(x.shape), dtype=x.dtype,
                                 device=x.device))
        blocks.append(row)
    return blocks


def jacobian(func: Callable[..., Any], inputs: _TensorOrTensors, create_graph: bool = False,
             strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode") -> _Jacobian:
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` has shape ``out_i.shape + in_j.shape``.

    A single input and output give a single tensor; tuples give tuples, as in PyTorch.
    ``vectorize=True`` computes all rows at once with ``vmap`` (reverse mode: one batched
    backward over the outputs' standard basis); ``strategy="forward-mode"`` (which needs
    ``vectorize=True``) computes the columns as JVPs instead, cheaper when the inputs have
    fewer elements than the outputs.
    """
    from arraygrad.autograd.functional_vectorized import (forward_jacobian,
                                                          reverse_jacobian_vectorized)

    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, "forward-mode" '
                             'tends to be more performant. Otherwise, prefer to use '
                             '"reverse-mode".')
    in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if strategy == "forward-mode":
        seen: list[bool] = []  # whether ``func`` returned a tuple

        def outputs_of(*xs: Tensor) -> tuple[Tensor, ...]:
            is_tuple, outs = _as_tuple(func(*xs), "outputs of the user-provided function",
                                       "jacobian")
            seen[:] = [is_tuple]
            return outs

        blocks = forward_jacobian(outputs_of, inputs, strict, vectorize, create_graph)
        return _nest_jacobian(blocks, seen[0], in_tuple)
    if vectorize and strict:  # refused before ``func`` runs
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           "`vectorized=True` are not supported together. Please either set "
                           "`strict=False` or `vectorize=False`.")
    with enable_grad():
        inputs = _require(inputs, create_graph)
        out_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                       "jacobian")
        if vectorize:
            blocks = reverse_jacobian_vectorized(outputs, inputs, create_graph)
        else:
            blocks = _loop_jacobian(outputs, inputs, create_graph, strict)
    blocks = [list(_finish(row, create_graph)) for row in blocks]
    return _nest_jacobian(blocks, out_tuple, in_tuple)


def hessian(func: Callable[..., Any], inputs: _TensorOrTensors, create_graph: bool = False,
            strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode") -> _Jacobian:
    """The Hessian of a scalar function: the Jacobian of its gradient.

    ``outer_jacobian_strategy="forward-mode"`` (with ``vectorize=True``) takes that
    Jacobian by forward mode: forward over reverse, as PyTorch.
    """
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    in_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def gradient(*xs: Tensor) -> tuple[Tensor, ...]:
        out = func(*xs)
        _, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor "
                               "containing a single element")
        from arraygrad.creation import ones_like

        # forward mode hands in inputs that already track gradients (``func.jvp``'s)
        return _grads(outs, xs, (ones_like(outs[0]),), True, strict, "hessian")

    # gradient returns a tuple (one per input), so jacobian gives rows per input
    jac = jacobian(gradient, inputs if in_tuple else inputs[0], create_graph=create_graph,
                   strict=strict, vectorize=vectorize, strategy=outer_jacobian_strategy)
    if in_tuple:
        return jac
    assert isinstance(jac, tuple)  # gradient returns a 1-tuple, so jacobian gives one
    return jac[0]


def vhp(func: Callable[..., Any], inputs: _TensorOrTensors, v: _TensorOrTensors | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[Tensor, _TensorOrTensors]:
    """``(func(inputs), v^T H)`` for a scalar function."""
    return _second_order(func, inputs, v, create_graph, strict, "vhp")


def hvp(func: Callable[..., Any], inputs: _TensorOrTensors, v: _TensorOrTensors | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[Tensor, _TensorOrTensors]:
    """``(func(inputs), H v)`` for a scalar function (H is symmetric, so the same as vhp)."""
    return _second_order(func, inputs, v, create_graph, strict, "hvp")


def _second_order(func: Callable[..., Any], inputs: _TensorOrTensors, v: _TensorOrTensors | None,
                  create_graph: bool, strict: bool, fn: str) -> tuple[Tensor, _TensorOrTensors]:
    from arraygrad.creation import ones_like

    with enable_grad():
        in_tuple, inputs = _as_tuple(inputs, "inputs", fn)
        inputs = _require(inputs, create_graph)
        vs = _vectors(v, inputs, fn, "input")
        out = func(*inputs)
        _, outs = _as_tuple(out, "outputs of the user-provided function", fn)
        if len(outs) != 1 or outs[0].numel() != 1:
            raise RuntimeError(f"The function given to {fn} should return a single Tensor "
                               "containing a single element")
        g = _grads(outs, inputs, (ones_like(outs[0]),), True, strict, fn)
        hv = _vjp_of(g, inputs, vs, create_graph)
        result = _zeros_for_unused(hv, inputs, strict,
                                   fn + ": the Hessian is independent of input {} (strict=True)")
    return (_finish(outs, create_graph)[0], _unwrap(in_tuple, _finish(result, create_graph)))
