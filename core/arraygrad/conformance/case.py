"""``OpCase``: one op checked on any backend, declared once as data.

A case names the op (the row of the report), a function of tensors, and how
to make its inputs; the suite runs it on the backend under test and compares
with the same function on the NumPy backend in float64 (the reference),
checks gradients by finite differences and, where promised, double backward.

>>> OpCase("mul", "mul/broadcast", lambda a, b: a * b,
...        inputs=lambda make: (make((2, 3)), make((3,))))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["OpCase", "InputMaker", "CHECK_KINDS", "check_id"]

CHECK_KINDS = ("forward", "grad", "double_grad", "dtypes", "devices")
"""The columns of the conformance report."""

# A check id is ``<prefix>[<case name>]``. Double backward is spelled
# ``double_backward`` because ``-k`` matches substrings: ``grad[exp/basic]``
# must select the gradient check alone, not ``double_grad[exp/basic]`` too.
_ID_PREFIX = {"double_grad": "double_backward"}


def check_id(kind: str, case_name: str) -> str:
    """The stable id of check ``kind`` on case ``case_name``, e.g. ``grad[exp/basic]``."""
    return f"{_ID_PREFIX.get(kind, kind)}[{case_name}]"


class InputMaker:
    """Makes a case's input tensors, reproducibly, the same on every backend.

    Values are always drawn on the reference (NumPy, float64) from a fixed seed
    and then moved to ``device`` and cast to ``dtype``, so the backend under test
    and the reference see identical inputs whatever the backends' generators.

    ``make(shape, low=-1.0, high=1.0, requires_grad=True, dtype=None, kind="float")``:

    * ``kind="float"``: uniform in ``[low, high)``;
    * ``kind="away"``: magnitude uniform in ``[low, high)`` (defaults 0.3, 1.3), random sign:
      away from zero, for division and products;
    * ``kind="grid"``: distinct values ``0.05 + 0.3 k``, no two equal across all the case's
      grid inputs and none near the kinks of abs/relu/sign/clamp (0, +-0.5, +-1, +-2);
    * ``kind="int"``: integers in ``[low, high)`` (never requires grad);
    * ``kind="bool"``: a random mask;
    * ``kind="complex"``: a complex tensor (of the complex dtype of ``dtype``: complex128 for
      float64) whose real and imaginary parts are uniform in ``[low, high)``;
      ``kind="complex_away"``: magnitude uniform in ``[low, high)`` (defaults 0.3, 1.3) and
      a uniform angle, away from zero.

    ``zeros=(i, ...)`` sets those flat positions to 0. ``make.tensor(data)`` makes a
    constant (index tensors, masks) on the device under test.
    """

    _GRID_POOL = 96

    def __init__(self, device: Any, dtype: Any, seed: int = 0, reference: str = "cpu") -> None:
        import arraygrad as ag

        self.device = device
        self.dtype = dtype
        self._ag = ag
        self._ref = reference
        self.generator = ag.Generator(reference).manual_seed(seed)
        self._grid: Any = None
        self._grid_used = 0

    def _uniform(self, shape: Any) -> Any:
        ag = self._ag
        return ag.rand(*shape, generator=self.generator, device=self._ref, dtype=ag.float64)

    def _grid_values(self, n: Any) -> Any:
        ag = self._ag
        if self._grid is None:
            perm = ag.randperm(self._GRID_POOL, generator=self.generator, device=self._ref)
            self._grid = (perm.to(ag.float64) - self._GRID_POOL // 2) * 0.3 + 0.05
        if self._grid_used + n > self._GRID_POOL:
            raise ValueError("InputMaker: grid inputs of one case exceed the pool of distinct values")
        out = self._grid[self._grid_used:self._grid_used + n]
        self._grid_used += n
        return out

    def __call__(self, shape: Any, low: Any = None, high: Any = None, requires_grad: bool = True,
                 dtype: Any = None,
                 kind: str = "float", zeros: Any = ()) -> Any:
        ag = self._ag
        shape = tuple(shape)
        if kind == "int":
            t = ag.randint(int(low or 0), int(high), shape, generator=self.generator,
                           device=self._ref)
            return t.to(self.device)
        if kind == "bool":
            return (self._uniform(shape) > 0.5).to(self.device)
        if kind in ("complex", "complex_away"):
            return self._complex(shape, low, high, requires_grad, dtype, kind)
        if kind == "grid":
            t = self._grid_values(math.prod(shape)).reshape(shape)
        elif kind == "away":
            lo, hi = 0.3 if low is None else low, 1.3 if high is None else high
            sign = ag.where(self._uniform(shape) < 0.5, -1.0, 1.0)
            t = (self._uniform(shape) * (hi - lo) + lo) * sign
        elif kind == "float":
            lo, hi = -1.0 if low is None else low, 1.0 if high is None else high
            t = self._uniform(shape) * (hi - lo) + lo
        else:
            raise ValueError(f"InputMaker: unknown kind {kind!r}")
        if zeros:
            flat = t.reshape(-1).clone()
            for p in zeros:
                flat[p] = 0.0
            t = flat.reshape(shape)
        t = t.detach().to(self.device, dtype or self.dtype)
        return t.requires_grad_(True) if requires_grad else t

    def _complex(self, shape: Any, low: Any, high: Any, requires_grad: bool, dtype: Any,
                 kind: str) -> Any:
        ag = self._ag
        if kind == "complex":
            lo, hi = -1.0 if low is None else low, 1.0 if high is None else high
            parts = self._uniform(shape + (2,)) * (hi - lo) + lo
            t = ag.complex(parts[..., 0], parts[..., 1])
        else:
            lo, hi = 0.3 if low is None else low, 1.3 if high is None else high
            t = ag.polar(self._uniform(shape) * (hi - lo) + lo,
                         (self._uniform(shape) * 2 - 1) * math.pi)
        t = t.detach().to(self.device, (dtype or self.dtype).to_complex())
        return t.requires_grad_(True) if requires_grad else t

    def tensor(self, data: Any, dtype: Any = None) -> Any:
        """A constant tensor (no grad) on the device under test, e.g. an index."""
        return self._ag.tensor(data, dtype=dtype, device=self.device)


@dataclass(frozen=True)
class OpCase:
    """One conformance case.

    ``op``: the op's name (a row of the report). ``name``: unique case id, ``op/variant``.
    ``fn(*tensors)``: returns a tensor or a tuple of tensors.
    ``inputs(make)``: the input tensors, made with an ``InputMaker``.
    ``checks``: which check kinds apply; ``double_grad`` only where the op promises it.
    ``rtol``/``atol``: forward tolerances in float64 (float32 runs use 1e3 times wider atol
    and 1e-3 rtol at least). ``grad_atol``/``grad_rtol``: for finite differences.
    ``dtypes``: the floating dtypes the ``dtypes`` check runs the case in.
    ``tags``: ``"float64"`` (the case needs float64), ``"values_shape"`` (the result's shape,
    or the op itself, depends on the input values, as boolean-mask indexing's: skipped on a
    backend without values, where PyTorch's meta device raises too).
    """

    op: str
    name: str
    fn: Callable[..., Any]
    inputs: Callable[..., Any]
    checks: tuple[Any, ...] = ("forward", "grad", "double_grad", "dtypes", "devices")
    rtol: float = 1e-7
    atol: float = 1e-9
    grad_rtol: float = 1e-3
    grad_atol: float = 1e-5
    dtypes: tuple[Any, ...] = ("float32", "float64")
    tags: tuple[Any, ...] = field(default_factory=tuple)

    def check_ids(self) -> list[str]:
        """The ids of every check this case contributes."""
        return [check_id(kind, self.name) for kind in self.checks]
