"""``gradcheck`` and ``gradgradcheck``: analytic derivatives against finite differences.

Checks run in the inputs' dtype (use float64). For each output and each input that requires
grad, the numerical Jacobian (central differences) is compared with the one reverse mode
gives (``check_backward_ad``, one backward per output element, run twice: the two must agree
within ``nondet_tol``) and, with ``check_forward_ad``, the one forward mode gives (one dual
pass per input element). ``fast_mode`` compares ``v^T J u`` for random unit vectors instead of
whole Jacobians. Then, as PyTorch: ``check_batched_grad`` (the VJPs by ``vmap`` against one
each), ``check_batched_forward_grad`` (the JVPs likewise), ``check_grad_dtypes`` (each
gradient has its input's dtype) and ``check_undefined_grad`` (zero output gradients give zero
input gradients). A sparse input is checked through its specified values, with
``masked=True`` (``sparse.as_sparse_gradcheck``). A function of complex tensors is checked as
PyTorch checks it, by finite differences of the real and imaginary parts (``gradcheck_complex``).

On a mismatch the error names the output and input indices and shows both Jacobians
(PyTorch's layout: one row per input element).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Callable, Sequence

from arraygrad.autograd import gradcheck_batched as _extra
from arraygrad.autograd import gradcheck_complex as _parts
from arraygrad.autograd import gradcheck_jacobians as _jac
from arraygrad.autograd.gradcheck_batched import GradcheckError
from arraygrad.autograd.gradcheck_jacobians import Jacobian, as_tuple

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


def _differentiable_outputs(outputs: Sequence[Any]) -> list[Tensor]:
    from arraygrad.tensor import Tensor

    return [o for o in outputs if isinstance(o, Tensor) and o.requires_grad]


def _check_inputs(inputs: tuple[Any, ...]) -> list[int]:
    """The indices of the inputs that require grad (warning for those not float64)."""
    from arraygrad import dtypes
    from arraygrad.tensor import Tensor

    diff = [k for k, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    for k in diff:
        if inputs[k].dtype not in (dtypes.float64, dtypes.complex128):
            warnings.warn(f"Input #{k} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", stacklevel=4)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    return diff


def _matrix(jac: Jacobian) -> Any:
    from arraygrad.creation import tensor
    from arraygrad import dtypes

    return tensor(jac, dtype=dtypes.float64) if jac and jac[0] else tensor([], dtype=dtypes.float64)


def _mismatch(analytical: Any, numerical: Any, output_idx: int, input_idx: int,
              forward_ad: bool) -> str:
    mode = "computed with forward mode " if forward_ad else ""
    return (f"Jacobian {mode}mismatch for output {output_idx:d} with respect to input "
            f"{input_idx:d},\nnumerical:{numerical}\nanalytical:{analytical}\n")


def _close(a: float, n: float, atol: float, rtol: float) -> bool:
    return abs(a - n) <= atol + rtol * abs(n)


def _compare(analytical: Jacobian, numerical: Jacobian, i: int, k: int, atol: float,
             rtol: float, forward_ad: bool) -> None:
    for a_row, n_row in zip(analytical, numerical):
        if not all(_close(a, n, atol, rtol) for a, n in zip(a_row, n_row)):
            raise GradcheckError(_mismatch(_matrix(analytical), _matrix(numerical), i, k,
                                           forward_ad))


def _no_differentiable_outputs(func: Callable[..., Any], inputs: tuple[Any, ...],
                               diff: list[int], eps: float) -> None:
    """No output requires grad: the numerical gradient must be zero (PyTorch's check)."""
    outs = as_tuple(func(*inputs))
    which = [i for i, o in enumerate(outs) if _jac._is_float(o)]
    for k in diff:
        for jac in _jac.numerical(func, inputs, k, which, eps):
            if any(v != 0 for row in jac for v in row):
                raise GradcheckError("Numerical gradient for function expected to be zero")


def _slow(func: Callable[..., Any], inputs: tuple[Any, ...], outputs: tuple[Any, ...],
          diff: list[int], eps: float, atol: float, rtol: float, nondet_tol: float,
          check_grad_dtypes: bool, forward_ad: bool, backward_ad: bool) -> None:
    backward_outs = [i for i, o in enumerate(outputs) if _differentiable_outputs([o])]
    float_outs = [i for i, o in enumerate(outputs) if _jac._is_float(o)]
    analytical = {i: _backward_checked(outputs[i], inputs, diff, nondet_tol, check_grad_dtypes)
                  for i in backward_outs} if backward_ad else {}
    # forward mode checks every floating output, reverse mode those that require grad
    which = float_outs if forward_ad else backward_outs
    for k in diff:
        numerical = dict(zip(which, _jac.numerical(func, inputs, k, which, eps)))
        if forward_ad:
            for i, jac in zip(float_outs, _jac.forward(func, inputs, k, float_outs)):
                _compare(jac, numerical[i], i, k, atol, rtol, True)
        for i in backward_outs if backward_ad else ():
            _compare(analytical[i][k], numerical[i], i, k, atol, rtol, False)


def _backward_checked(output: Tensor, inputs: tuple[Any, ...], diff: list[int],
                      nondet_tol: float, check_grad_dtypes: bool) -> dict[int, Jacobian]:
    """The reverse-mode Jacobians of ``output``, computed twice: PyTorch's reentrancy check."""
    first, dtypes_ok = _jac.backward(output, inputs, diff)
    second, _ = _jac.backward(output, inputs, diff)
    if not dtypes_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    for k in diff:
        for row1, row2 in zip(first[k], second[k]):
            if any(abs(a - b) > nondet_tol for a, b in zip(row1, row2)):
                raise GradcheckError(
                    "Backward is not reentrant, i.e., running backward with same input and "
                    "grad_output multiple times gives different values, although analytical "
                    f"gradient matches numerical gradient.The tolerance for nondeterminism was "
                    f"{nondet_tol}.")
    return first


def _unit_vector(like: Tensor, generator: Any) -> Tensor:
    """A random vector with ``like``'s element count and dtype, entries >= 0, norm 1."""
    from arraygrad.creation import rand

    vec = rand(like.numel(), generator=generator, dtype=like.dtype, device=like.device)
    return vec / vec.norm()


def _fast(func: Callable[..., Any], inputs: tuple[Any, ...], outputs: tuple[Any, ...],
          diff: list[int], eps: float, atol: float, rtol: float, nondet_tol: float,
          check_grad_dtypes: bool, forward_ad: bool, backward_ad: bool) -> None:
    from arraygrad.random import Generator

    gen = Generator().manual_seed(0)  # its own stream: the caller's random numbers are kept
    us = {k: _unit_vector(inputs[k], gen) for k in diff}
    outs = [i for i, o in enumerate(outputs)
            if (_differentiable_outputs([o]) if backward_ad else _jac._is_float(o))]
    vs = {i: _unit_vector(outputs[i], gen) for i in outs}

    def check(a: float, n: float, i: int, k: int, fwd: bool) -> None:
        adjusted = atol * float(us[k].sum()) * float(vs[i].sum())
        if not _close(a, n, adjusted, rtol):
            raise GradcheckError(
                _mismatch(a, n, i, k, fwd) + "\nThe above quantities relating the numerical "
                "and analytical jacobians are computed in fast mode (v^T J u for random unit "
                "vectors u and v); run gradcheck with fast_mode=False for whole Jacobians.")

    for k in diff:
        numerical = _jac.numerical_uv(func, inputs, k, us[k], vs, eps)
        if forward_ad:
            for i, a in _jac.forward_uv(func, inputs, k, us[k], vs).items():
                check(a, numerical[i], i, k, True)
        if backward_ad:
            for i in outs:
                first, dtypes_ok = _jac.backward_uv(outputs[i], vs[i], inputs, diff, us)
                second, _ = _jac.backward_uv(outputs[i], vs[i], inputs, diff, us)
                if not dtypes_ok and check_grad_dtypes:
                    raise GradcheckError("Gradient has dtype mismatch")
                if abs(first[k] - second[k]) > nondet_tol:
                    raise GradcheckError(
                        "Backward is not reentrant, i.e., running backward with same input and "
                        "grad_output multiple times gives different values, although analytical "
                        "gradient matches numerical gradient.The tolerance for nondeterminism "
                        f"was {nondet_tol}.")
                check(first[k], numerical[i], i, k, False)


def _check_settings(modes: dict[str, bool], needs: dict[str, tuple[bool, str]]) -> None:
    """AssertionError, with PyTorch's messages, unless one of the two ``modes`` is on and
    every setting of ``needs`` that is on has the mode it names on."""
    if not any(modes.values()):
        first, second = modes
        raise AssertionError(f"Expected at least one of {first} or {second} to be True")
    for setting, (on, mode) in needs.items():
        if on and not modes[mode]:
            raise AssertionError(f"Setting {setting}=True requires {mode} to be True")


def gradcheck(func: Callable[..., Any], inputs: Tensor | Sequence[Any], *, eps: float = 1e-6,
              atol: float = 1e-5, rtol: float = 1e-3, raise_exception: bool = True,
              nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False,
              masked: bool | None = None) -> bool:
    """Whether ``func``'s derivatives match finite differences at ``inputs`` (see the module
    docstring for what each switch checks).

    Inputs that require grad should be float64. Returns True, or raises
    ``GradcheckError`` (or returns False with ``raise_exception=False``).

    >>> x = arraygrad.randn(3, dtype=arraygrad.float64, requires_grad=True)
    >>> gradcheck(lambda t: (t * t).sum(), (x,), check_forward_ad=True)
    True
    """
    _check_settings({"check_forward_ad": check_forward_ad,
                     "check_backward_ad": check_backward_ad},
                    {"check_batched_grad": (check_batched_grad, "check_backward_ad"),
                     "check_batched_forward_grad": (check_batched_forward_grad,
                                                    "check_forward_ad")})
    if any(getattr(x, "is_sparse", False) is True for x in as_tuple(inputs)):
        if not masked:
            raise ValueError("gradcheck: a sparse input is checked through its specified values "
                             "only: pass masked=True (or use sparse.as_sparse_gradcheck); "
                             "PyTorch's unmasked check over every element is not supported")
        from arraygrad.sparse import as_sparse_gradcheck

        return bool(as_sparse_gradcheck(gradcheck)(
            func, inputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception,
            nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
            check_grad_dtypes=check_grad_dtypes, check_backward_ad=check_backward_ad,
            fast_mode=fast_mode))
    try:
        _gradcheck(func, as_tuple(inputs), eps, atol, rtol, nondet_tol, check_undefined_grad,
                   check_grad_dtypes, check_batched_grad, check_batched_forward_grad,
                   check_forward_ad, check_backward_ad, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _gradcheck(func: Callable[..., Any], inputs: tuple[Any, ...], eps: float, atol: float,
               rtol: float, nondet_tol: float, check_undefined_grad: bool,
               check_grad_dtypes: bool, check_batched_grad: bool,
               check_batched_forward_grad: bool, check_forward_ad: bool,
               check_backward_ad: bool, fast_mode: bool) -> None:
    diff = _check_inputs(inputs)
    outputs = as_tuple(func(*inputs))
    if _parts.complex_among(inputs, outputs):  # checked by their real and imaginary parts
        func, inputs = _parts.as_real_function(func, inputs)
        diff = _check_inputs(inputs)
        outputs = as_tuple(func(*inputs))
    if not _differentiable_outputs(outputs):
        _no_differentiable_outputs(func, inputs, diff, eps)
    else:
        (_fast if fast_mode else _slow)(func, inputs, outputs, diff, eps, atol, rtol,
                                        nondet_tol, check_grad_dtypes, check_forward_ad,
                                        check_backward_ad)
    if check_batched_forward_grad:
        _extra.batched_forward_grad(func, inputs, diff)
    if not check_backward_ad:
        return
    if check_batched_grad:
        for i, o in enumerate(_differentiable_outputs(outputs)):
            _extra.batched_grad(inputs, o, i, diff)
    if check_undefined_grad and _differentiable_outputs(outputs):
        _extra.undefined_grad(func, inputs, diff)


def _grad_outputs_for(outputs: list[Tensor], noncontiguous: bool) -> tuple[Tensor, ...]:
    """Random gradients in [-1, 1) shaped as ``outputs`` (float64 for a non-float output),
    requiring grad; with ``noncontiguous``, each is a strided view of a larger tensor."""
    from arraygrad import dtypes
    from arraygrad.creation import rand

    found = []
    for o in outputs:
        dtype = o.dtype if o.dtype.is_floating_point or o.dtype.is_complex else dtypes.float64
        if noncontiguous and o.dim() > 0:
            full = rand(*o.shape[:-1], 2 * o.shape[-1], dtype=dtype, device=o.device) * 2 - 1
            g = full[..., ::2].detach()
        else:
            g = (rand(*o.shape, dtype=dtype, device=o.device) * 2 - 1).detach()
        found.append(g.requires_grad_())
    return tuple(found)


def gradgradcheck(func: Callable[..., Any], inputs: Tensor | Sequence[Any],
                  grad_outputs: Tensor | Sequence[Tensor] | None = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """``gradcheck`` of the first-order gradient (``autograd.grad(create_graph=True)``):
    checks second derivatives, reverse over reverse (``check_rev_over_rev``) and/or forward
    over reverse (``check_fwd_over_rev``).

    ``grad_outputs`` default to random tensors in [-1, 1) that require grad (strided views
    with ``gen_non_contig_grad_outputs``).
    """
    from arraygrad.autograd.api import grad

    _check_settings({"check_fwd_over_rev": check_fwd_over_rev,
                     "check_rev_over_rev": check_rev_over_rev},
                    {"check_undefined_grad": (check_undefined_grad, "check_rev_over_rev"),
                     "check_batched_grad": (check_batched_grad, "check_rev_over_rev")})
    inputs = as_tuple(inputs)
    if grad_outputs is None:
        grad_outputs = _grad_outputs_for(_differentiable_outputs(as_tuple(func(*inputs))),
                                         gen_non_contig_grad_outputs)
    grad_outputs = as_tuple(grad_outputs)
    n_out = len(grad_outputs)
    diff_in = {i for i, x in enumerate(inputs) if _differentiable_outputs([x])}
    diff_go = {i for i, x in enumerate(grad_outputs) if x.requires_grad}

    def first_order(*args: Any) -> tuple[Tensor, ...]:
        # gradcheck detaches the inputs for forward AD: their requires_grad is restored here
        ins = tuple(x.requires_grad_() if i in diff_in else x
                    for i, x in enumerate(args[:-n_out] if n_out else args))
        gos = tuple(x.requires_grad_() if i in diff_go else x
                    for i, x in enumerate(args[len(args) - n_out:]))
        outs = _differentiable_outputs(as_tuple(func(*ins)))
        gs = grad(outs, [x for i, x in enumerate(ins) if i in diff_in], gos, create_graph=True,
                  allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_order, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)
