"""``jvp`` and ``linearize``: Jacobian-vector products, as ``torch.func``'s.

``jvp(f, primals, tangents)`` runs ``f`` once on dual tensors (``autograd.forward_ad``):
every op carries the tangent forward, no backward pass. The primals become tensors
that track gradients inside the call (a ``Scope``, as ``grad``'s inputs), so a
``grad``/``vjp``/``jacrev`` inside ``f`` differentiates tensors that still carry their
tangent: ``jvp`` of a gradient is forward-over-reverse (Hessian-vector products,
``jacfwd(jacrev(f))``).

arraygrad has one forward-AD dual level (as ``forward_ad`` in PyTorch 2.13); a ``jvp``
called while one is open (``jvp`` inside ``jvp``, ``jacfwd(jacfwd(f))``, or inside
the user's ``dual_level``) computes ``J v`` by reverse mode instead, with the
double-vjp trick ``J v = d/du <J^T u, v>``: the same values, and its ops carry the
outer dual level's tangents, so the nesting composes.

``linearize(f, *primals)`` runs ``f`` once and returns ``jvp_fn``: ``J v`` for any
``v`` from the kept graph of ``u -> J^T u`` (one backward per call, ``f`` is not run
again).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from arraygrad.autograd import forward_ad as fwad
from arraygrad.autograd.api import grad as _autograd_grad
from arraygrad.autograd.grad_mode import enable_grad, is_grad_enabled
from arraygrad.func._argnums import Argnums, replace_args, slice_argnums, wrap_argnums
from arraygrad.func._scope import Scope
from arraygrad._pytree import TreeSpec, tree_flatten, tree_unflatten
from arraygrad.tensor import Tensor

__all__ = ["jvp", "jvp_with_argnums", "linearize", "check_tensors"]

_API = "jvp(f, primals, tangents)"


def check_tensors(flat: list[Any], argname: str) -> None:
    """PyTorch's errors when ``flat`` (the flat primals or tangents) is empty or holds a
    non-tensor."""
    if not flat:
        raise RuntimeError(f"{_API}: Expected {argname} to contain at least one Tensor.")
    for t in flat:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"{_API}: Expected {argname} to only contain Tensors, got {type(t)}")


def _check_outputs(flat_out: list[Any]) -> None:
    if (len(flat_out) == 1 and flat_out[0] is None) or not flat_out:
        raise RuntimeError(f"{_API}: Expected f to be a function that has non-empty output "
                           f"(got output = {flat_out})")
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{_API}: expected f(*args) to return only tensors, got "
                               f"unsupported type {type(o)}")


def _independent(strict: bool) -> None:
    if strict:
        raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is "
                           "independent of the inputs. This is not allowed with strict=True.")


def _split_aux(out: Any, has_aux: bool) -> tuple[Any, Any]:
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{_API}: output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return out


def _differentiable(scope: Scope, x: Tensor) -> Tensor:
    """``scope.differentiable(x)``, keeping a tangent ``x`` carries at the open dual level
    (a private leaf is a ``detach``, which drops it)."""
    tangent = fwad.tangent_of(x) if fwad.state.dual_level >= 0 else None
    inner = scope.differentiable(x)
    if tangent is not None and fwad.tangent_of(inner) is None:
        fwad.set_tangent(inner, tangent, fwad.state.dual_level)
    return inner


_Prepared = tuple[list[Tensor], list[Tensor], TreeSpec, "Argnums | None"]


def _prepare(primals: Any, tangents: Any, argnums: Argnums | None) -> _Prepared:
    """The flat differentiated primals and tangents, their structure and the wrapped argnums,
    with PyTorch's errors."""
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_API}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    if argnums is not None:
        argnums = wrap_argnums(argnums, len(primals))
    diff_args = primals if argnums is None else slice_argnums(primals, argnums)
    flat_primals, primals_spec = tree_flatten(diff_args)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(f"{_API}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents "
                           f"also must be. Got primals with structure {primals_spec} and tangents "
                           f"with structure {tangents_spec}")
    check_tensors(flat_primals, "primals")
    check_tensors(flat_tangents, "tangents")
    for p, t in zip(flat_primals, flat_tangents):
        if tuple(t.shape) != tuple(p.shape):  # make_dual's check, before anything runs
            raise RuntimeError(
                "Trying to set a forward gradient that has a different size than that of the "
                f"original Tensor, this is not supported. Tensor is of size {list(p.shape)} while "
                f"the given forward gradient is of size {list(t.shape)}.")
    return flat_primals, flat_tangents, primals_spec, argnums


def _forward_mode(func: Callable[..., Any], primals: tuple[Any, ...], diff: list[Tensor],
                  flat_tangents: list[Tensor], spec: TreeSpec, argnums: Argnums | None,
                  strict: bool, has_aux: bool) -> tuple[list[Tensor], list[Tensor], TreeSpec, Any]:
    """Outputs, output tangents, output structure and aux, by forward-mode AD."""
    with fwad.dual_level():
        duals = tree_unflatten([fwad.make_dual(d, t) for d, t in zip(diff, flat_tangents)], spec)
        args = duals if argnums is None else replace_args(primals, argnums, duals)
        out, aux = _split_aux(func(*args), has_aux)
        flat_out, out_spec = tree_flatten(out)
        _check_outputs(flat_out)
        outs, tans = [], []
        for o in flat_out:
            primal, tangent = fwad.unpack_dual(o)
            if tangent is None:
                _independent(strict)
                tangent = primal.new_zeros(primal.shape)
            outs.append(primal)
            tans.append(tangent)
    return outs, tans, out_spec, aux


def _transpose_twice(flat_out: Sequence[Tensor], diff: Sequence[Tensor]) -> Callable[..., Any]:
    """``v -> J v`` (a list per output, None where independent) by the double-vjp trick:
    ``u -> J^T u`` is linear in ``u``, and its VJP with ``v`` is ``J v``. The graph of
    ``J^T u`` is built once and kept."""
    dummies = [o.new_zeros(o.shape).requires_grad_() for o in flat_out]
    pairs = [(o, u) for o, u in zip(flat_out, dummies) if o.requires_grad]
    vjps: tuple[Tensor | None, ...]  # (allow_unused: None for an unused input)
    if pairs:
        vjps = _autograd_grad([o for o, _ in pairs], list(diff), [u for _, u in pairs],
                              create_graph=True, allow_unused=True)
    else:
        vjps = (None,) * len(diff)

    def apply(flat_tangents: Sequence[Tensor]) -> list[Tensor | None]:
        used = [(g, t) for g, t in zip(vjps, flat_tangents) if g is not None and g.requires_grad]
        if not used:
            return [None] * len(dummies)
        return list(_autograd_grad([g for g, _ in used], dummies, [t for _, t in used],
                                   retain_graph=True, create_graph=True, allow_unused=True))

    return apply


def _reverse_mode(func: Callable[..., Any], primals: tuple[Any, ...], diff: list[Tensor],
                  flat_tangents: list[Tensor], spec: TreeSpec, argnums: Argnums | None,
                  strict: bool, has_aux: bool) -> tuple[list[Tensor], list[Tensor], TreeSpec, Any]:
    """``_forward_mode``'s results by the double-vjp trick (a dual level is already open)."""
    args_diff = tree_unflatten(diff, spec)
    args = args_diff if argnums is None else replace_args(primals, argnums, args_diff)
    out, aux = _split_aux(func(*args), has_aux)
    flat_out, out_spec = tree_flatten(out)
    _check_outputs(flat_out)
    jv = _transpose_twice(flat_out, diff)(flat_tangents)
    tans = []
    for o, t in zip(flat_out, jv):
        if t is None:
            _independent(strict)
            t = o.new_zeros(o.shape)
        tans.append(t)
    return list(flat_out), tans, out_spec, aux


def jvp_with_argnums(func: Callable[..., Any], primals: Any, tangents: Any,
                     argnums: Argnums | None, *, strict: bool = False,
                     has_aux: bool = False) -> tuple[Any, ...]:
    """``jvp`` with tangents for the primals at ``argnums`` only (None: all of them);
    ``jacfwd`` uses it. The errors are ``jvp``'s."""
    flat_primals, flat_tangents, spec, argnums = _prepare(primals, tangents, argnums)
    scope = Scope(is_grad_enabled())
    with enable_grad():  # the transform runs under an outer no_grad too
        diff = [_differentiable(scope, p) for p in flat_primals]
        run = _reverse_mode if fwad.state.dual_level >= 0 else _forward_mode
        outs, tans, out_spec, aux = run(func, primals, diff, flat_tangents, spec, argnums,
                                        strict, has_aux)
        result = (scope.unwrap_tree(tree_unflatten(outs, out_spec)),
                  scope.unwrap_tree(tree_unflatten(tans, out_spec)))
        if has_aux:
            return (*result, scope.unwrap_tree(aux))
    return result


def jvp(func: Callable[..., Any], primals: Any, tangents: Any, *, strict: bool = False,
        has_aux: bool = False) -> tuple[Any, ...]:
    """``(func(*primals), J v)``: the output and the Jacobian-vector product with ``tangents``.

    ``primals`` is a tuple (pytrees of tensors inside), ``tangents`` has its structure
    and shapes. The output's tangent has the output's structure (zeros where it does
    not depend on the primals; an error instead with ``strict=True``). With ``has_aux``
    ``func`` returns ``(output, aux)`` and the result is ``(output, jvp_out, aux)``.

    >>> jvp(arraygrad.sin, (arraygrad.tensor([0., 1.]),), (arraygrad.ones(2),))[1]
    tensor([1.0000, 0.5403])
    """
    return jvp_with_argnums(func, primals, tangents, None, strict=strict, has_aux=has_aux)


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the JVP at ``primals`` with
    ``tangents`` (shaped, typed and placed as the primals).

    ``func`` runs once; each ``jvp_fn`` call is one backward pass through the kept graph
    of its linearization, so ``func`` is not run again.

    >>> out, jvp_fn = linearize(arraygrad.sin, arraygrad.tensor([0., 1.]))
    >>> jvp_fn(arraygrad.ones(2))
    tensor([1.0000, 0.5403])
    """
    flat_primals, primals_spec = tree_flatten(primals)
    scope = Scope(is_grad_enabled())
    with enable_grad():
        diff = [_differentiable(scope, p) for p in flat_primals]
        out = func(*tree_unflatten(diff, primals_spec))
        flat_out, out_spec = tree_flatten(out)
        apply = _transpose_twice(flat_out, diff)
        output = scope.unwrap_tree(out)
    meta = [(tuple(p.shape), p.device, p.dtype) for p in flat_primals]

    def jvp_fn(*tangents: Any) -> Any:
        """The JVP with ``tangents`` (as many as the primals, of their structure)."""
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangents_spec} to have the same argspec "
                               f"as the primals {primals_spec}")
        for idx, (t, (shape, device, dtype)) in enumerate(zip(flat_tangents, meta)):
            for what, got, want in (("shape", tuple(t.shape), shape), ("device", t.device, device),
                                    ("dtype", t.dtype, dtype)):
                if got != want:
                    raise RuntimeError(f"tangent:{idx} with {what} {got} in flattened pytree "
                                       f"doesn't match the {what} {want} of the corresponding "
                                       "primal.")
        with enable_grad():
            jv = apply(flat_tangents)
            result = [o.new_zeros(o.shape) if t is None else t for o, t in zip(flat_out, jv)]
            return scope.unwrap_tree(tree_unflatten(result, out_spec))

    return output, jvp_fn
