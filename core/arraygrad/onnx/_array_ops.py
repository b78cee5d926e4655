"""The array calls of a recorded forward, written as ONNX nodes: the table and its rules.

One table, keyed by the Array API's names (and NumPy's spellings of them, as the NumPy
backend's namespace and the array methods have them): each entry gets the translator and
the instruction's arguments and returns the ONNX value(s) of its result. A call is named
by where the backend's namespace holds it (``xp.sum`` may be any function: the NumPy
backend's is a ufunc's ``reduce``), else by its ``__name__``.

Types follow the recording: the result's dtype is known (the program was run again), so
every operand is cast to it where NumPy promoted (``int * float``, a Python number), and
comparisons compare in the operands' common dtype. A value computed from constants alone
is stored as a constant (``do_constant_folding``), and so is any such value whose call
has no entry here. The entries are in ``_elementwise`` (arithmetic, comparisons, math
functions, reductions) and ``_shapes`` (shapes, creation, sorting, linear algebra,
indexing).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from arraygrad.compiler.recording import Instr
from arraygrad.onnx._dims import SymInt
from arraygrad.compiler.interpret import outs_of
from arraygrad.name_tables import registrar

if TYPE_CHECKING:
    from arraygrad.onnx._translate import Translator

__all__ = ["emit", "TABLE", "call_name", "op", "arg", "out_elem", "out_rank", "axes_of",
           "common_elem", "fold", "typed"]

Entry = Callable[["Translator", Instr, list[Any], dict[str, Any]], Any]
TABLE: dict[str, Entry] = {}

# the instruction kinds of operators -> the Array API name of the operation
_SYMBOLS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "//": "floor_divide",
            "%": "remainder", "**": "pow", "@": "matmul", "&": "bitwise_and",
            "|": "bitwise_or", "^": "bitwise_xor", "<<": "bitwise_left_shift",
            ">>": "bitwise_right_shift", "<": "less", "<=": "less_equal", ">": "greater",
            ">=": "greater_equal", "==": "equal", "!=": "not_equal", "u-": "negative",
            "u+": "positive", "u~": "bitwise_invert"}


op = registrar(TABLE, "Register an entry under ``names``.")


def call_name(t: "Translator", ins: Instr) -> str:
    """The name an instruction's call goes by in the table."""
    kind = ins.kind
    if kind in ("method", "attr"):
        return ins.fn
    if kind in _SYMBOLS:
        return _SYMBOLS[kind]
    if kind.endswith("=") and kind[:-1] in _SYMBOLS:
        return _SYMBOLS[kind[:-1]]  # ``+=``: written as ``add``, the slot bound anew
    fn = ins.fn
    names = _namespace_names(t.g.backend).get(id(fn))
    if names:
        for n in names:
            if n in TABLE:
                return n
        return names[0]
    return getattr(fn, "__name__", repr(fn))


_NAMES: dict[int, tuple[Any, dict[int, list[str]]]] = {}


def _namespace_names(backend: Any) -> dict[int, list[str]]:
    """``id(function) -> the names the backend's namespace holds it under``."""
    xp = backend.xp
    found = _NAMES.get(id(backend))
    if found is None or found[0] is not xp:
        table: dict[int, list[str]] = {}
        for name in dir(xp):
            if not name.startswith("_"):
                table.setdefault(id(getattr(xp, name)), []).append(name)
        found = _NAMES[id(backend)] = (xp, table)
    return found[1]


def emit(t: "Translator", ins: Instr) -> Any:
    """Write instruction ``ins``: its result's ONNX value(s), or None when it writes
    nothing the graph needs."""
    name = call_name(t, ins)
    if t.folding and _foldable(t, ins):
        return fold(t, ins)
    entry = TABLE.get(name)
    if entry is None:
        if _foldable(t, ins):
            return fold(t, ins)
        raise t.unsupported(name)
    # (a method's receiver is its first argument, as a function's first operand)
    return entry(t, ins, list(ins.args), dict(ins.kwargs) if ins.kwargs else {})


# -- constants ------------------------------------------------------------------------------

def _foldable(t: "Translator", ins: Instr) -> bool:
    """Whether the instruction's result is a value of constants alone that nothing writes
    later (then its value in the example is its value always)."""
    outs = outs_of(ins.out)
    if not outs or not ins.pure or any(k in t.written for k in outs):
        return False
    if any(k not in t.constant for k in ins.reads) or _has_symbolic(ins.args) or \
            _has_symbolic(ins.kwargs):
        return False
    return all(k in t.arrays for k in outs)


def fold(t: "Translator", ins: Instr) -> Any:
    outs = outs_of(ins.out)
    names = []
    for k in outs:
        t.constant.add(k)
        names.append(t.g.array_const(t.arrays[k]))
    return names[0] if ins.out.__class__ is int else tuple(names)


def _has_symbolic(t: Any) -> bool:
    cls = t.__class__
    if cls is SymInt:
        return True
    if cls is tuple or cls is list:
        return any(_has_symbolic(v) for v in t)
    if cls is dict:
        return any(_has_symbolic(v) for v in t.values())
    if cls is slice:
        return _has_symbolic((t.start, t.stop, t.step))
    return False


# -- argument helpers -----------------------------------------------------------------------

def arg(args: list[Any], kwargs: dict[str, Any], i: int, name: str, default: Any = None) -> Any:
    """Argument ``i`` (positional) or ``name`` (keyword), else ``default``."""
    if i < len(args):
        return args[i]
    return kwargs.get(name, default)


def out_elem(t: "Translator", ins: Instr) -> int:
    """The ONNX element type of the instruction's (first) result."""
    return t.g.elem(t.arrays[outs_of(ins.out)[0]].dtype)


def out_rank(t: "Translator", ins: Instr) -> int:
    """The rank of the instruction's (first) result."""
    return len(t.shapes[outs_of(ins.out)[0]])


def axes_of(axis: Any, rank: int) -> list[int] | None:
    """``axis`` (an int, a sequence, None: all) as sorted non-negative axes."""
    if axis is None:
        return None
    if isinstance(axis, int):
        axis = (axis,)
    return sorted(a % rank if rank else 0 for a in axis)


def common_elem(t: "Translator", *values: Any) -> int:
    """The element type NumPy computes ``values`` in (its ``result_type``, Python numbers
    weak)."""
    xp = t.g.backend.xp
    natives = [v if v.__class__ in (int, float, bool) else t.native(v) for v in values
               if v.__class__ is not SymInt]
    natives = [n for n in natives if n is not None]
    return t.g.elem(xp.result_type(*natives))


def typed(g: Any, elem: int, value: Any) -> Any:
    """``value`` as the Python number an ONNX tensor of ``elem`` holds."""
    if elem == g.T.BOOL:
        return bool(value)
    if elem in (g.T.FLOAT, g.T.DOUBLE, g.T.FLOAT16, g.T.BFLOAT16):
        return float(value)
    return int(value)
