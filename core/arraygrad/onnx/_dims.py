"""Dynamic axes: which numbers of the recorded program are sizes, and how to compute them.

A recording holds plain numbers: ``reshape(x, (32, 64))`` does not say that 32 is the
batch size. To learn it, the forward is recorded once more per dynamic axis name, with the
inputs' axes of that name twice as long (each input repeated along them), and once with
every such axis three times as long. The programs must make the same calls; a number that
changes with an axis is a size. Each is written ``coef * (product of the axes it follows)
+ offset`` (``coef`` a fraction: ``n // 2`` is ``n / 2`` for the even sizes the doubling
gives); the coefficients come from the doubled recordings and are checked on the tripled
one. A number that fits no such formula (``n // 3`` on odd sizes, ``n ** 2``), a float
computed from a size, or a program that changes with the sizes raises
``SymbolicValueError``: that model cannot be exported with that axis dynamic.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable

from arraygrad.compiler.recording import Instr, Live, Slot
from arraygrad.onnx.errors import SymbolicValueError

__all__ = ["SymInt", "Axis", "symbolic_program", "symbolic_shapes", "fit",
           "keep_matching_regions"]


class Axis:
    """A dynamic axis name, its size in the example inputs, and where to read it at run time
    (``input``: the graph input's position, ``axis``)."""

    __slots__ = ("name", "size", "input", "axis")

    def __init__(self, name: str, size: int, input: int, axis: int) -> None:
        self.name = name
        self.size = size
        self.input = input
        self.axis = axis


class SymInt:
    """A number of the program that depends on dynamic axes: ``value`` in the example,
    computed as ``coef * product(axes) + offset`` (``axes``: names, sorted)."""

    __slots__ = ("value", "coef", "axes", "offset")

    def __init__(self, value: int, coef: Fraction, axes: tuple[str, ...], offset: Fraction) -> None:
        self.value = value
        self.coef = coef
        self.axes = axes
        self.offset = offset

    def key(self) -> tuple[Any, ...]:
        """What identifies the formula (equal keys: the same number at run time)."""
        return (self.coef, self.axes, self.offset)

    def __repr__(self) -> str:
        return f"SymInt({self.value}: {self.text()})"

    def text(self) -> str:
        """The formula in words (``2*batch+1``), an ONNX ``dim_param`` for a size."""
        parts = "*".join(self.axes)
        if self.coef != 1:
            parts = f"{self.coef}*{parts}"
        if self.offset:
            parts += f"{'+' if self.offset > 0 else '-'}{abs(self.offset)}"
        return parts

    def is_axis(self) -> str | None:
        """The axis name when the number is exactly one axis's size."""
        if self.coef == 1 and self.offset == 0 and len(self.axes) == 1:
            return self.axes[0]
        return None


def fit(values: list[int], sizes: list[dict[str, int]], where: Callable[[], str]) -> int | SymInt:
    """The formula of a number that took ``values`` in the recordings whose axes had
    ``sizes`` (the first: the example; then one doubled axis each; last: all tripled).
    ``where``: what the number is, for the error."""
    base = values[0]
    if all(v == base for v in values):
        return base
    names = list(sizes[0])
    follows = [names[i] for i in range(len(names)) if values[i + 1] != base]
    product = 1
    for n in follows:
        product *= sizes[0][n]
    coef: Fraction | None = None
    for n in follows:
        i = names.index(n) + 1
        rest = Fraction(product, sizes[0][n])
        step = (sizes[i][n] - sizes[0][n]) * rest
        found = Fraction(values[i] - base) / step
        if coef is not None and found != coef:
            coef = None
            break
        coef = found
    if coef is not None:
        offset = base - coef * product
        tripled = 1
        for n in follows:
            tripled *= sizes[-1][n]
        predicted = coef * tripled + offset
        if predicted == values[-1] and predicted.denominator == 1:
            return SymInt(base, coef, tuple(sorted(follows)), offset)
    raise SymbolicValueError(
        f"{where()} depends on the dynamic axes {', '.join(follows) or '?'} in a way the "
        f"exporter cannot write (it is {values[0]} for sizes {sizes[0]}, "
        f"{', '.join(str(v) for v in values[1:])} for the other recordings): export with "
        "these axes static")


def _name(ins: Instr) -> str:
    fn = ins.fn
    return fn if isinstance(fn, str) else getattr(fn, "__name__", repr(fn))


def symbolic_program(traces: list[Any], sizes: list[dict[str, int]]) -> list[Instr]:
    """The first trace's instructions with each number that changes with the axes made a
    ``SymInt`` (``traces``: the example's recording, one per doubled axis, the tripled)."""
    base = traces[0].instrs
    for t in traces[1:]:
        if len(t.instrs) != len(base):
            raise SymbolicValueError(
                f"the forward makes {len(base)} array calls for the example inputs and "
                f"{len(t.instrs)} when a dynamic axis is longer: its operations depend on the "
                "sizes, so it cannot be exported with these axes dynamic")
    out: list[Instr] = []
    for i, ins in enumerate(base):
        others = [t.instrs[i] for t in traces[1:]]
        for o in others:
            if o.kind != ins.kind or _name(o) != _name(ins) or o.out != ins.out:
                raise SymbolicValueError(
                    f"array call {i} ({_name(ins)}) is another call ({_name(o)}) when a "
                    "dynamic axis is longer: the forward's operations depend on the sizes, "
                    "so it cannot be exported with these axes dynamic")
        where = _describe(i, ins)
        args = _merge(ins.args, [o.args for o in others], sizes, where)
        kwargs = _merge(ins.kwargs, [o.kwargs for o in others], sizes, where)
        if args is ins.args and kwargs is ins.kwargs:
            out.append(ins)
        else:
            out.append(Instr((ins.fn, args, kwargs) + tuple(ins[3:])))
    return out


def _dimension(j: int, k: int) -> Callable[[], str]:
    return lambda: f"dimension {j} of value {k}"


def _describe(i: int, ins: Instr) -> Callable[[], str]:
    return lambda: f"a number of array call {i} ({_name(ins)})"


def _merge(t: Any, others: list[Any], sizes: list[dict[str, int]],
           where: Callable[[], str]) -> Any:
    """Template ``t`` with the numbers that differ in ``others`` made ``SymInt``s (``t``
    itself when none does)."""
    cls = t.__class__
    for o in others:
        if o.__class__ is not cls and not (_number(t) and _number(o)):
            raise SymbolicValueError(f"{where()} is of another kind when a dynamic axis is "
                                     "longer: export with the axes static")
    if cls is int:
        if all(o == t for o in others):
            return t
        return fit([t] + list(others), sizes, where)
    if cls is float:
        if all(o == t for o in others):
            return t
        raise SymbolicValueError(f"{where()}, a float, is computed from a dynamic axis's size "
                                 "(an ONNX graph would keep the example's value): export with "
                                 "the axes static")
    if cls is tuple or cls is list:
        if any(len(o) != len(t) for o in others):
            raise SymbolicValueError(f"{where()} has another length when a dynamic axis is "
                                     "longer: export with the axes static")
        items = [_merge(v, [o[j] for o in others], sizes, where) for j, v in enumerate(t)]
        if all(a is b for a, b in zip(items, t)):
            return t
        return cls(items)
    if cls is dict:
        merged = {k: _merge(v, [o[k] for o in others], sizes, where) for k, v in t.items()}
        if all(merged[k] is t[k] for k in t):
            return t
        return merged
    if cls is slice:
        parts = [_merge(getattr(t, a), [getattr(o, a) for o in others], sizes, where)
                 for a in ("start", "stop", "step")]
        if parts[0] is t.start and parts[1] is t.stop and parts[2] is t.step:
            return t
        return slice(*parts)
    if cls is Slot or cls is Live or t is None or cls in (bool, str):
        return t
    shape = getattr(t, "shape", None)
    if shape is not None and not all(o is t or _same_array(o, t) for o in others):
        raise SymbolicValueError(f"{where()}, a constant array, is another when a dynamic "
                                 "axis is longer (a number computed from a size, as "
                                 "`x * (1 / x.shape[0])`): export with the axes static")
    return t


def _same_array(a: Any, b: Any) -> bool:
    """Whether two constant arrays hold the same values (NaN equal to NaN)."""
    if getattr(a, "shape", None) != b.shape or getattr(a, "dtype", None) != b.dtype:
        return False
    try:
        return bool(a.__array_namespace__().all((a == b) | ((a != a) & (b != b))))
    except Exception:  # noqa: BLE001 - an array that cannot be compared so: not the same
        return False


def _number(v: Any) -> bool:
    return v.__class__ is int or v.__class__ is float


def symbolic_shapes(traces: list[Any], sizes: list[dict[str, int]]) -> dict[int, tuple[Any, ...]]:
    """Every slot's shape in the first trace, each size that follows the axes a ``SymInt``."""
    shapes: dict[int, tuple[Any, ...]] = {}
    for k, a in traces[0].arrays.items():
        others = [t.arrays.get(k) for t in traces[1:]]
        if any(o is None or len(o.shape) != len(a.shape) for o in others):
            raise SymbolicValueError(f"value {k} of the program changes rank with the dynamic "
                                     "axes' sizes")
        dims = []
        for j, d in enumerate(a.shape):
            dims.append(fit([d] + [o.shape[j] for o in others], sizes, _dimension(j, k)))
        shapes[k] = tuple(dims)
    return shapes


def keep_matching_regions(traces: list[Any]) -> None:
    """Regions of the first trace whose arguments other than tensors differ in the other
    recordings (a size passed to the function) lose their name: their array calls are
    written instead, with the sizes as formulas."""
    _match(traces[0].regions, [t.regions for t in traces[1:]])


def _match(regions: list[Any], others: list[list[Any]]) -> None:
    for j, r in enumerate(regions):
        mates = [o[j] if j < len(o) else None for o in others]
        if any(m is None or m.name != r.name or not _same(r.args, m.args) for m in mates):
            r.name = ""
        _match(r.children, [m.children if m is not None else [] for m in mates])


def _same(a: Any, b: Any) -> bool:
    cls = a.__class__
    if cls is not b.__class__:
        return False
    if cls is tuple or cls is list:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if cls is dict:
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if hasattr(a, "shape") and hasattr(a, "dtype") and cls is not Slot:
        return bool(a.shape == b.shape)
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a value without a plain equality: compare identity
        return a is b
