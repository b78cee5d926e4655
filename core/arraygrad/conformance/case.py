"""``OpCase``: one op checked on any backend, declared once as data.

A case names the op (the row of the report), a function of tensors, and how
to make its inputs; the suite runs it on the backend under test and compares
with the same function on the NumPy backend in float64 (the reference),
checks gradients by finite differences and, where promised, double backward.

>>> OpCase("mul", "mul/broadcast", lambda a, b: a * b,
...        inputs=lambda make: (make((2, 3)), make((3,))))
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

__all__ = ["OpCase", "InputMaker", "CHECK_KINDS"]

CHECK_KINDS = ("forward", "grad", "double_grad", "dtypes", "devices")
"""The columns of the conformance report."""


class InputMaker:
    """Makes a case's input tensors on one backend, reproducibly.

    ``make(shape, low=-1.0, high=1.0, requires_grad=True, dtype=None, kind="float")``:
    uniform values in ``[low, high)`` from a fixed seed; ``kind="int"`` gives
    integers in ``[low, high)`` (no grad), ``kind="bool"`` a random mask.
    """

    def __init__(self, device, dtype, seed: int = 0):
        import arraygrad as ag

        self.device = device
        self.dtype = dtype
        self.generator = ag.Generator(device).manual_seed(seed)
        self._ag = ag

    def __call__(self, shape, low: float = -1.0, high: float = 1.0, requires_grad: bool = True,
                 dtype=None, kind: str = "float"):
        ag = self._ag
        shape = tuple(shape)
        if kind == "int":
            return ag.randint(int(low), int(high), shape, generator=self.generator,
                              device=self.device)
        u = ag.rand(*shape, generator=self.generator, device=self.device, dtype=ag.float64
                    if self._has_float64() else ag.float32)
        if kind == "bool":
            return u > 0.5
        t = (u * (high - low) + low).to(dtype or self.dtype)
        return t.requires_grad_(requires_grad) if requires_grad else t

    def _has_float64(self) -> bool:
        return self.dtype is self._ag.float64


@dataclass(frozen=True)
class OpCase:
    """One conformance case.

    ``op``: the op's name (a row of the report). ``name``: unique case id.
    ``fn(*tensors)``: returns a tensor or a tuple of tensors.
    ``inputs(make)``: the input tensors, made with an ``InputMaker``.
    ``checks``: which check kinds apply; ``double_grad`` only where the op promises it.
    ``rtol``/``atol``: forward tolerances in float64 (float32 runs use 1e3 times wider atol
    and 1e-3 rtol at least). ``grad_atol``/``grad_rtol``: for finite differences.
    """

    op: str
    name: str
    fn: Callable
    inputs: Callable
    checks: tuple = ("forward", "grad", "double_grad", "dtypes")
    rtol: float = 1e-7
    atol: float = 1e-9
    grad_rtol: float = 1e-3
    grad_atol: float = 1e-5
    dtypes: tuple = ("float32", "float64")
    tags: tuple = field(default_factory=tuple)
