"""``gradcheck`` of functions of complex tensors, as PyTorch checks them: by finite
differences of the real and imaginary parts.

A complex input that requires grad becomes two real leaves (its parts, rebuilt with
``complex``), a complex output its parts (``view_as_real``); the real function is then
checked as any other. With PyTorch's convention (docs/complex.md) a complex input's gradient
is ``dL/dx + i dL/dy``, which is exactly what the real function's gradients in ``x`` and
``y`` are, so the check is the convention's.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.autograd.gradcheck_jacobians import as_tuple

__all__ = ["complex_among", "as_real_function"]


def _complex(t: Any) -> bool:
    from arraygrad.tensor import Tensor  # the autograd package loads before tensor.py ends

    return isinstance(t, Tensor) and t.dtype.is_complex


def complex_among(inputs: tuple[Any, ...], outputs: tuple[Any, ...]) -> bool:
    """Whether a complex tensor is among ``inputs`` (requiring grad) or ``outputs``."""
    return (any(_complex(t) and t.requires_grad for t in inputs)
            or any(_complex(o) for o in outputs))


def as_real_function(func: Callable[..., Any], inputs: tuple[Any, ...]
                     ) -> tuple[Callable[..., Any], tuple[Any, ...]]:
    """``(real_func, real_inputs)``: each complex input requiring grad replaced by its two
    parts (real leaves of its precision), each complex output by ``view_as_real`` of it."""
    from arraygrad.ops.complex_views import complex as make_complex, view_as_real

    layout: list[int] = []  # per input: how many real arguments stand for it (1 or 2)
    real_inputs: list[Any] = []
    for t in inputs:
        if _complex(t) and t.requires_grad:
            parts = view_as_real(t.detach())
            real_inputs += [parts[..., 0].clone().requires_grad_(),
                            parts[..., 1].clone().requires_grad_()]
            layout.append(2)
        else:
            real_inputs.append(t)
            layout.append(1)

    def real_func(*args: Any) -> Any:
        rebuilt, i = [], 0
        for n in layout:
            rebuilt.append(args[i] if n == 1 else make_complex(args[i], args[i + 1]))
            i += n
        outs = func(*rebuilt)
        parts = tuple(view_as_real(o) if _complex(o) else o for o in as_tuple(outs))
        return parts if isinstance(outs, (tuple, list)) else parts[0]

    return real_func, tuple(real_inputs)
