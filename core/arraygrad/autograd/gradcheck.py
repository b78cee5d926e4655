"""``gradcheck`` and ``gradgradcheck``: analytic Jacobians against finite differences.

Checks run in the inputs' dtype (use float64): the numerical Jacobian comes
from central differences ``(f(x + eps) - f(x - eps)) / 2 eps``, the analytic
one from one backward per output element. On a mismatch the error names the
output and input indices and shows both Jacobians.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised by ``gradcheck`` when analytic and numerical gradients differ."""


def _as_tuple(x: Any) -> tuple[Any, ...]:
    if isinstance(x, list):
        return tuple(x)
    return x if isinstance(x, tuple) else (x,)


def _differentiable_outputs(outputs: Sequence[Any]) -> list[Tensor]:
    from arraygrad.tensor import Tensor

    return [o for o in outputs if isinstance(o, Tensor) and o.requires_grad]


def _flat_values(t: Tensor) -> list[float]:
    return [float(v) for v in _flatten_list(t.detach().tolist())]


def _flatten_list(v: Any) -> list[Any]:
    if isinstance(v, list):
        out = []
        for item in v:
            out.extend(_flatten_list(item))
        return out
    return [v]


def _numerical_jacobian(fn: Callable[..., Any], inputs: tuple[Any, ...], index: int,
                        eps: float) -> list[list[float]]:
    """Columns: d(all outputs flattened) / d(input[index] element j).

    Runs with grad mode on, on fresh leaves, so ``fn`` may itself differentiate
    (as ``gradgradcheck``'s first-order function does).
    """
    from arraygrad.tensor import Tensor, wrap

    copies: dict[int, Tensor] = {}  # keyed by identity, so a tensor passed twice stays one tensor
    for t in inputs:
        if isinstance(t, Tensor) and id(t) not in copies:
            copies[id(t)] = t.detach().requires_grad_(t.requires_grad)
    fresh = [copies.get(id(t), t) for t in inputs]
    x = inputs[index]
    xp = x._backend.xp
    columns = []
    for j in range(x.numel()):
        vals = []
        for sign in (1.0, -1.0):
            flat = xp.reshape(xp.asarray(x._data, copy=True), (-1,))
            flat[j] = flat[j] + sign * eps
            perturbed = wrap(xp.reshape(flat, x._data.shape), x._backend)
            perturbed.requires_grad_(x.requires_grad)
            # the same tensor passed twice is perturbed in both places
            args = [perturbed if a is x else f for a, f in zip(inputs, fresh)]
            outs = _as_tuple(fn(*args))
            vals.append([v for o in outs if isinstance(o, Tensor) and o.dtype.is_floating_point
                         for v in _flat_values(o)])
        columns.append([(a - b) / (2 * eps) for a, b in zip(*vals)])
    return columns  # columns[j][i]


def _analytical_jacobian(fn: Callable[..., Any], inputs: tuple[Any, ...],
                         diff_indices: list[int]) -> tuple[dict[int, list[list[float]]], int]:
    """Per differentiable input: columns[j][i] = d out_i / d in_j, via one backward per output element."""
    from arraygrad.autograd.api import grad
    from arraygrad.creation import zeros_like
    from arraygrad.tensor import Tensor, wrap

    outputs = _as_tuple(fn(*inputs))
    float_outs = [o for o in outputs if isinstance(o, Tensor) and o.dtype.is_floating_point]
    diff_inputs = [inputs[k] for k in diff_indices]
    sizes = [o.numel() for o in float_outs]
    total = sum(sizes)
    jac = {k: [[0.0] * total for _ in range(inputs[k].numel())] for k in diff_indices}
    row = 0
    for o_idx, out in enumerate(float_outs):
        for e in range(out.numel()):
            if out.requires_grad:
                seed = zeros_like(out)
                xp = seed._backend.xp
                flat = xp.reshape(seed._data, (-1,))
                flat[e] = 1.0
                seed = wrap(xp.reshape(flat, out._data.shape), out._backend)
                gs = grad(out, diff_inputs, seed, retain_graph=True, allow_unused=True)
                for k, g in zip(diff_indices, gs):
                    if g is None:
                        continue
                    for j, v in enumerate(_flat_values(g)):
                        jac[k][j][row] = v
            row += 1
    return jac, total


def _format_matrix(columns: Sequence[Sequence[float]]) -> str:
    if not columns:
        return "[]"
    rows = list(zip(*columns))
    return "\n".join("[" + ", ".join(f"{v: .6f}" for v in r) + "]" for r in rows)


def gradcheck(func: Callable[..., Any], inputs: Tensor | Sequence[Any], *, eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True,
              nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              fast_mode: bool = False) -> bool:
    """Whether ``func``'s analytic gradients match finite differences at ``inputs``.

    Inputs that require grad should be float64. Returns True, or raises
    ``GradcheckError`` (or returns False with ``raise_exception=False``).

    >>> x = arraygrad.randn(3, dtype=arraygrad.float64, requires_grad=True)
    >>> gradcheck(lambda t: (t * t).sum(), (x,))
    True
    """
    from arraygrad import dtypes
    from arraygrad.tensor import Tensor

    inputs = _as_tuple(inputs)
    diff_indices = [k for k, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    if not diff_indices:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    for k in diff_indices:
        if inputs[k].dtype is not dtypes.float64:
            import warnings

            warnings.warn(f"Input #{k} requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of double "
                          "precision floating point.", UserWarning, stacklevel=2)
    outputs = _as_tuple(func(*inputs))
    if not _differentiable_outputs(outputs):
        raise GradcheckError("gradcheck: none of the outputs requires grad")
    analytic, _ = _analytical_jacobian(func, inputs, diff_indices)
    for k in diff_indices:
        numeric = _numerical_jacobian(func, inputs, k, eps)
        for j, (a_col, n_col) in enumerate(zip(analytic[k], numeric)):
            for i, (a, n) in enumerate(zip(a_col, n_col)):
                if not abs(a - n) <= atol + rtol * abs(n):
                    if not raise_exception:
                        return False
                    raise GradcheckError(
                        f"Jacobian mismatch for output {0 if len(outputs) == 1 else 'flat'} with "
                        f"respect to input {k} (first difference at output element {i}, input "
                        f"element {j}: analytical {a!r} vs numerical {n!r}),\n"
                        f"numerical:\n{_format_matrix(numeric)}\n"
                        f"analytical:\n{_format_matrix(analytic[k])}\n")
    return True


def gradgradcheck(func: Callable[..., Any], inputs: Tensor | Sequence[Any],
                  grad_outputs: Tensor | Sequence[Tensor] | None = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, fast_mode: bool = False) -> bool:
    """``gradcheck`` of the first-order gradient: checks second derivatives.

    ``grad_outputs`` default to random float64 tensors that require grad.
    """
    from arraygrad.autograd.api import grad
    from arraygrad.creation import randn_like
    from arraygrad.tensor import Tensor

    inputs = _as_tuple(inputs)
    outputs = _as_tuple(func(*inputs))
    diff_outs = _differentiable_outputs(outputs)
    if grad_outputs is None:
        grad_outputs = tuple(randn_like(o).requires_grad_(True) for o in diff_outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_in = [k for k, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]

    def first_order(*args: Any) -> tuple[Tensor, ...]:
        ins, gos = args[:n_in], args[n_in:]
        outs = _differentiable_outputs(_as_tuple(func(*ins)))
        gs = grad(outs, [ins[k] for k in diff_in], gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_order, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
