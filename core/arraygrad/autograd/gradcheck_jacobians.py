"""The Jacobians ``gradcheck`` compares, per (output, input) pair, as lists of floats.

A Jacobian ``J`` of output ``i`` with respect to input ``k`` is stored as PyTorch lays it
out: ``J[j][r]`` is d output_i[r] / d input_k[j] (one row per input element, flattened).

- ``numerical``: central differences ``(f(x + eps e_j) - f(x - eps e_j)) / 2 eps``;
- ``backward``: one ``autograd.grad`` per output element (reverse mode);
- ``forward``: one dual-number pass per input element (``autograd.forward_ad``);

and, for ``fast_mode``, the same three as scalars ``v^T J u`` for random unit vectors
``u`` (per input) and ``v`` (per output): one difference along ``u``, one backward with ``v``,
one dual pass with tangent ``u``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["as_tuple", "floats", "numerical", "backward", "forward", "numerical_uv",
           "backward_uv", "forward_uv", "Jacobian"]

Jacobian = list[list[float]]  # [input element][output element]


def as_tuple(x: Any) -> tuple[Any, ...]:
    """A function's inputs or outputs as a tuple (a list becomes one, a value a 1-tuple)."""
    if isinstance(x, list):
        return tuple(x)
    return x if isinstance(x, tuple) else (x,)


def floats(t: Tensor) -> list[float]:
    """``t``'s values, flattened, as Python floats (a sparse tensor's dense values)."""
    if t.is_sparse:  # a sparse output or gradient (arraygrad.sparse)
        t = t.to_dense()
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def _is_float(o: Any) -> bool:
    from arraygrad.tensor import Tensor

    return isinstance(o, Tensor) and o.dtype.is_floating_point


def _fresh(inputs: tuple[Any, ...]) -> list[Any]:
    """Detached copies of the tensor inputs, keeping ``requires_grad``; a tensor passed twice
    stays one tensor."""
    from arraygrad.tensor import Tensor

    copies: dict[int, Tensor] = {}
    for t in inputs:
        if isinstance(t, Tensor) and id(t) not in copies:
            copies[id(t)] = t.detach().requires_grad_(t.requires_grad)
    return [copies.get(id(t), t) for t in inputs]


def _shifted(x: Tensor, direction: Any, scale: float) -> Tensor:
    """``x + scale * direction`` as a new leaf (``direction``: a flat index, or a flat tensor
    of ``x``'s size), with ``x``'s ``requires_grad``."""
    from arraygrad.tensor import wrap

    xp = x._backend.xp
    flat = xp.reshape(xp.asarray(x._data, copy=True), (-1,))
    if isinstance(direction, int):
        flat = x._backend.write(flat, direction, scale, "add")
    else:
        flat = flat + scale * xp.reshape(direction._data, (-1,))
    out = wrap(xp.reshape(flat, x._data.shape), x._backend)
    return out.requires_grad_(x.requires_grad)


def _outputs_at(fn: Callable[..., Any], inputs: tuple[Any, ...], k: int, shifted: Tensor,
                which: Sequence[int]) -> list[list[float]]:
    """The flattened values of outputs ``which`` of ``fn`` with input ``k`` replaced."""
    x = inputs[k]
    args = [shifted if a is x else f for a, f in zip(inputs, _fresh(inputs))]
    outs = as_tuple(fn(*args))
    return [floats(outs[i]) for i in which]


def numerical(fn: Callable[..., Any], inputs: tuple[Any, ...], k: int, which: Sequence[int],
              eps: float) -> list[Jacobian]:
    """Per output in ``which``: its numerical Jacobian with respect to input ``k``.

    Runs with grad mode on, on fresh leaves, so ``fn`` may itself differentiate (as
    ``gradgradcheck``'s first-order function does)."""
    x = inputs[k]
    jacobians: list[Jacobian] = [[] for _ in which]
    for j in range(x.numel()):
        plus = _outputs_at(fn, inputs, k, _shifted(x, j, eps), which)
        minus = _outputs_at(fn, inputs, k, _shifted(x, j, -eps), which)
        for jac, p, m in zip(jacobians, plus, minus):
            jac.append([(a - b) / (2 * eps) for a, b in zip(p, m)])
    return jacobians


def backward(output: Tensor, inputs: tuple[Any, ...],
             diff: Sequence[int]) -> tuple[dict[int, Jacobian], bool]:
    """Per differentiable input: the Jacobian of ``output`` by one backward per output
    element; and whether every gradient had its input's dtype."""
    from arraygrad.autograd.api import grad

    diff_inputs = [inputs[k] for k in diff]
    n = output.numel()
    jac = {k: [[0.0] * n for _ in range(inputs[k].numel())] for k in diff}
    dtypes_ok = True
    for r in range(n):
        seed = _basis(output, r)
        gs = grad(output, diff_inputs, seed, retain_graph=True, allow_unused=True)
        for k, g in zip(diff, gs):
            if g is None:
                continue
            dtypes_ok = dtypes_ok and g.dtype == inputs[k].dtype
            for j, value in enumerate(floats(g)):
                jac[k][j][r] = value
    return jac, dtypes_ok


def _basis(like: Tensor, index: int) -> Tensor:
    """A tensor shaped like ``like``, zero but for a one at flat ``index``."""
    from arraygrad.tensor import wrap

    xp = like._backend.xp
    flat = xp.zeros((like.numel(),), dtype=like._data.dtype)
    flat = like._backend.write(flat, index, 1)
    return wrap(xp.reshape(flat, like._data.shape), like._backend)


def _dual_outputs(fn: Callable[..., Any], inputs: tuple[Any, ...], k: int,
                  tangent: Tensor, which: Sequence[int]) -> list[list[float]]:
    """The flattened tangents of outputs ``which`` of ``fn`` when input ``k`` carries
    ``tangent`` (zeros for an output without one)."""
    from arraygrad.autograd import forward_ad

    from arraygrad.tensor import Tensor

    with forward_ad.dual_level():
        args = [forward_ad.make_dual(a.detach(), tangent) if i == k else
                (a.detach() if isinstance(a, Tensor) else a) for i, a in enumerate(inputs)]
        outs = as_tuple(fn(*args))
        found = []
        for i in which:
            t = forward_ad.unpack_dual(outs[i]).tangent
            found.append(floats(t) if t is not None else [0.0] * outs[i].numel())
    return found


def forward(fn: Callable[..., Any], inputs: tuple[Any, ...], k: int,
            which: Sequence[int]) -> list[Jacobian]:
    """Per output in ``which``: its Jacobian with respect to input ``k`` by forward-mode AD,
    one dual pass per element of the input."""
    x = inputs[k]
    jacobians: list[Jacobian] = [[] for _ in which]
    for j in range(x.numel()):
        for jac, column in zip(jacobians, _dual_outputs(fn, inputs, k, _basis(x, j), which)):
            jac.append(column)
    return jacobians


# -- fast mode: v^T J u --------------------------------------------------------------------

def _dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b))


def numerical_uv(fn: Callable[..., Any], inputs: tuple[Any, ...], k: int, u: Tensor,
                 vs: dict[int, Tensor], eps: float) -> dict[int, float]:
    """Per output ``i`` of ``vs``: ``v_i^T J_ik u`` from one central difference along ``u``."""
    which = list(vs)
    x = inputs[k]
    plus = _outputs_at(fn, inputs, k, _shifted(x, u, eps), which)
    minus = _outputs_at(fn, inputs, k, _shifted(x, u, -eps), which)
    return {i: _dot(floats(vs[i]), [(a - b) / (2 * eps) for a, b in zip(p, m)])
            for i, p, m in zip(which, plus, minus)}


def backward_uv(output: Tensor, v: Tensor, inputs: tuple[Any, ...], diff: Sequence[int],
                us: dict[int, Tensor]) -> tuple[dict[int, float], bool]:
    """Per differentiable input ``k``: ``(v^T J_k) u_k`` from one backward with ``v``; and
    whether every gradient had its input's dtype."""
    from arraygrad.autograd.api import grad

    gs = grad(output, [inputs[k] for k in diff], v.reshape(tuple(output.shape)),
              retain_graph=True, allow_unused=True)
    found = {k: 0.0 if g is None else _dot(floats(g), floats(us[k])) for k, g in zip(diff, gs)}
    ok = all(g is None or g.dtype == inputs[k].dtype for k, g in zip(diff, gs))
    return found, ok


def forward_uv(fn: Callable[..., Any], inputs: tuple[Any, ...], k: int, u: Tensor,
               vs: dict[int, Tensor]) -> dict[int, float]:
    """Per output ``i`` of ``vs``: ``v_i^T (J_ik u)`` from one dual pass with tangent ``u``."""
    x = inputs[k]
    tangents = _dual_outputs(fn, inputs, k, u.reshape(tuple(x.shape)), list(vs))
    return {i: _dot(floats(vs[i]), t) for i, t in zip(vs, tangents)}
