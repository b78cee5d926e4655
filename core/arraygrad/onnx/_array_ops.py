"""The array calls of a recorded forward, written as ONNX nodes.

One table, keyed by the Array API's names (and NumPy's spellings of them, as the NumPy
backend's namespace and the array methods have them): each entry gets the translator and
the instruction's arguments and returns the ONNX value(s) of its result. A call is named
by where the backend's namespace holds it (``xp.sum`` may be any function: the NumPy
backend's is a ufunc's ``reduce``), else by its ``__name__``.

Types follow the recording: the result's dtype is known (the program was run again), so
every operand is cast to it where NumPy promoted (``int * float``, a Python number), and
comparisons compare in the operands' common dtype. A value computed from constants alone
is stored as a constant (``do_constant_folding``), and so is any such value whose call
has no entry here.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, Callable

from arraygrad.compiler.recording import Instr, Slot
from arraygrad.onnx._dims import SymInt
from arraygrad.onnx._interpret import COMPARISONS, outs_of

if TYPE_CHECKING:
    from arraygrad.onnx._translate import Translator

__all__ = ["emit", "TABLE", "call_name"]

Entry = Callable[["Translator", Instr, list[Any], dict[str, Any]], Any]
TABLE: dict[str, Entry] = {}

# the instruction kinds of operators -> the Array API name of the operation
_SYMBOLS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "//": "floor_divide",
            "%": "remainder", "**": "pow", "@": "matmul", "&": "bitwise_and",
            "|": "bitwise_or", "^": "bitwise_xor", "<<": "bitwise_left_shift",
            ">>": "bitwise_right_shift", "<": "less", "<=": "less_equal", ">": "greater",
            ">=": "greater_equal", "==": "equal", "!=": "not_equal", "u-": "negative",
            "u+": "positive", "u~": "bitwise_invert"}


def op(*names: str) -> Callable[[Entry], Entry]:
    """Register an entry under ``names``."""
    def register(fn: Entry) -> Entry:
        for n in names:
            TABLE[n] = fn
        return fn
    return register


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
        return _fold(t, ins)
    entry = TABLE.get(name)
    if entry is None:
        if _foldable(t, ins):
            return _fold(t, ins)
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


def _fold(t: "Translator", ins: Instr) -> Any:
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


# -- elementwise ------------------------------------------------------------------------------

def _unary(onnx_op: str, cast_input: bool = True) -> Entry:
    def entry(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
        elem = out_elem(t, ins)
        x = t.value(args[0], elem if cast_input else None)
        return t.g.node(onnx_op, [x], elem)
    return entry


for _names, _op in ((("abs", "absolute", "fabs"), "Abs"), (("acos", "arccos"), "Acos"),
                    (("acosh", "arccosh"), "Acosh"), (("asin", "arcsin"), "Asin"),
                    (("asinh", "arcsinh"), "Asinh"), (("atan", "arctan"), "Atan"),
                    (("atanh", "arctanh"), "Atanh"), (("ceil",), "Ceil"), (("cos",), "Cos"),
                    (("cosh",), "Cosh"), (("exp",), "Exp"), (("floor",), "Floor"),
                    (("log",), "Log"), (("negative",), "Neg"), (("round", "rint", "around"), "Round"),
                    (("sign",), "Sign"), (("sin",), "Sin"), (("sinh",), "Sinh"), (("sqrt",), "Sqrt"),
                    (("tan",), "Tan"), (("tanh",), "Tanh"), (("erf", "erf_kernel"), "Erf"),
                    (("reciprocal",), "Reciprocal"), (("positive", "copy"), "Identity")):
    op(*_names)(_unary(_op))
op("logical_not")(_unary("Not"))
op("isnan")(_unary("IsNaN", cast_input=False))
op("isinf")(_unary("IsInf", cast_input=False))


@op("bitwise_invert", "invert", "bitwise_not")
def _invert(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    elem = out_elem(t, ins)
    if elem == t.g.T.BOOL:
        return t.g.node("Not", [t.value(args[0], elem)], elem)
    return t.g.node("BitwiseNot", [t.value(args[0], elem)], elem)


@op("isfinite")
def _isfinite(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    x = t.value(args[0])
    bad = g.node("Or", [g.node("IsInf", [x], g.T.BOOL), g.node("IsNaN", [x], g.T.BOOL)])
    return g.node("Not", [bad], g.T.BOOL)


@op("log1p")
def _log1p(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    elem = out_elem(t, ins)
    g = t.g
    return g.node("Log", [g.node("Add", [t.value(args[0], elem), g.const(1, elem)])])


@op("expm1")
def _expm1(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    elem = out_elem(t, ins)
    g = t.g
    return g.node("Sub", [g.node("Exp", [t.value(args[0], elem)]), g.const(1, elem)])


def _log_base(base: float) -> Entry:
    def entry(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
        import math
        elem = out_elem(t, ins)
        g = t.g
        return g.node("Div", [g.node("Log", [t.value(args[0], elem)]),
                              g.const(math.log(base), elem)])
    return entry


op("log2")(_log_base(2.0))
op("log10")(_log_base(10.0))


@op("square")
def _square(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    x = t.value(args[0], out_elem(t, ins))
    return t.g.node("Mul", [x, x])


@op("trunc", "fix")
def _trunc(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    elem = out_elem(t, ins)
    x = t.value(args[0], elem)
    negative = g.node("Less", [x, g.const(0, elem)], g.T.BOOL)
    return g.node("Where", [negative, g.node("Ceil", [x]), g.node("Floor", [x])], elem)


def _binary(onnx_op: str) -> Entry:
    def entry(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
        elem = out_elem(t, ins)
        return t.g.node(onnx_op, [t.value(args[0], elem), t.value(args[1], elem)], elem)
    return entry


for _names, _op in ((("add",), "Add"), (("subtract",), "Sub"), (("multiply",), "Mul"),
                    (("divide", "true_divide"), "Div"), (("pow", "power", "float_power"), "Pow"),
                    (("maximum", "fmax"), "Max"), (("minimum", "fmin"), "Min"),
                    (("matmul",), "MatMul"), (("logical_and",), "And"),
                    (("logical_or",), "Or"), (("logical_xor",), "Xor")):
    op(*_names)(_binary(_op))


@op("bitwise_and", "bitwise_or", "bitwise_xor")
def _bitwise(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    elem = out_elem(t, ins)
    kind = call_name(t, ins).split("_")[1]
    if elem == t.g.T.BOOL:
        onnx_op = {"and": "And", "or": "Or", "xor": "Xor"}[kind]
    else:
        onnx_op = {"and": "BitwiseAnd", "or": "BitwiseOr", "xor": "BitwiseXor"}[kind]
    return t.g.node(onnx_op, [t.value(args[0], elem), t.value(args[1], elem)], elem)


def _comparison(onnx_op: str, negate: bool = False) -> Entry:
    def entry(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
        g = t.g
        elem = common_elem(t, args[0], args[1])
        result = g.node(onnx_op, [t.value(args[0], elem), t.value(args[1], elem)], g.T.BOOL)
        return g.node("Not", [result], g.T.BOOL) if negate else result
    return entry


for _names, _op, _neg in ((("equal",), "Equal", False), (("not_equal",), "Equal", True),
                          (("less",), "Less", False), (("less_equal",), "LessOrEqual", False),
                          (("greater",), "Greater", False),
                          (("greater_equal",), "GreaterOrEqual", False)):
    op(*_names)(_comparison(_op, _neg))


@op("floor_divide")
def _floor_divide(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    elem = out_elem(t, ins)
    if elem in (g.T.FLOAT, g.T.DOUBLE, g.T.FLOAT16, g.T.BFLOAT16):
        return g.node("Floor", [g.node("Div", [t.value(args[0], elem), t.value(args[1], elem)])])
    # integers: floor of the quotient in float64 (exact below 2**53), then back
    d = g.T.DOUBLE
    q = g.node("Floor", [g.node("Div", [t.value(args[0], d), t.value(args[1], d)])])
    return g.cast(q, elem)


@op("remainder", "mod")
def _remainder(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    elem = out_elem(t, ins)
    a, b = t.value(args[0], elem), t.value(args[1], elem)
    if elem in (g.T.FLOAT, g.T.DOUBLE, g.T.FLOAT16, g.T.BFLOAT16):
        # Python's modulo (the divisor's sign): a - floor(a / b) * b
        return g.node("Sub", [a, g.node("Mul", [g.node("Floor", [g.node("Div", [a, b])]), b])])
    return g.node("Mod", [a, b], elem, fmod=0)


@op("where")
def _where(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    elem = out_elem(t, ins)
    cond = t.value(args[0], g.T.BOOL)
    return g.node("Where", [cond, t.value(args[1], elem), t.value(args[2], elem)], elem)


@op("clip")
def _clip(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    elem = out_elem(t, ins)
    x = t.value(args[0], elem)
    lo, hi = arg(args, kwargs, 1, "min"), arg(args, kwargs, 2, "max")
    if (lo is None or t.rank(lo) == 0) and (hi is None or t.rank(hi) == 0):
        return g.node("Clip", [x, "" if lo is None else t.value(lo, elem),
                               "" if hi is None else t.value(hi, elem)], elem)
    if lo is not None:
        x = g.node("Max", [x, t.value(lo, elem)], elem)
    if hi is not None:
        x = g.node("Min", [x, t.value(hi, elem)], elem)
    return x


@op("astype", "_astype")
def _astype(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    elem = out_elem(t, ins)
    x = t.value(args[0])
    return t.g.node("Identity", [x]) if t.g.types.get(x) == elem else t.g.cast(x, elem)


@op("asarray", "array", "coerce", "ascontiguousarray")
def _asarray(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    source = args[0]
    elem = out_elem(t, ins)
    if source.__class__ is Slot or source.__class__ is SymInt:
        return t.g.node("Identity", [t.value(source, elem)], elem)
    if source.__class__ in (int, float, bool):
        return t.g.const(source, elem)
    return _fold(t, ins)  # data from Python (a list) or a constant array


# -- reductions -------------------------------------------------------------------------------

def _reduction(onnx_op: str) -> Entry:
    def entry(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
        g = t.g
        elem = out_elem(t, ins)
        x = args[0]
        axes = axes_of(arg(args, kwargs, 1, "axis"), t.rank(x))
        keep = bool(arg(args, kwargs, 3 if onnx_op == "ReduceSum" else 2, "keepdims", False))
        work = elem
        if elem == g.T.BOOL:  # ReduceMax/Min of booleans: on integers
            work = g.T.INT32
        value = g.reduce(onnx_op, t.value(x, work), axes, keep, work)
        return g.cast(value, elem)
    return entry


op("sum", "add_reduce", "nansum")(_reduction("ReduceSum"))
op("prod", "multiply_reduce")(_reduction("ReduceProd"))
op("max", "amax", "maximum_reduce")(_reduction("ReduceMax"))
op("min", "amin", "minimum_reduce")(_reduction("ReduceMin"))
op("mean")(_reduction("ReduceMean"))


@op("any", "all")
def _any_all(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    x = args[0]
    axes = axes_of(arg(args, kwargs, 1, "axis"), t.rank(x))
    keep = bool(arg(args, kwargs, 2, "keepdims", False))
    nonzero = g.node("Not", [g.node("Equal", [t.value(x), g.const(0, t.elem(x) or g.T.INT64)],
                                    g.T.BOOL)], g.T.BOOL) if t.elem(x) != g.T.BOOL else t.value(x)
    onnx_op = "ReduceMax" if call_name(t, ins) == "any" else "ReduceMin"
    reduced = g.reduce(onnx_op, g.cast(nonzero, g.T.INT32), axes, keep, g.T.INT32)
    return g.cast(reduced, g.T.BOOL)


@op("var", "std")
def _var(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    elem = out_elem(t, ins)
    x = args[0]
    rank = t.rank(x)
    axes = axes_of(arg(args, kwargs, 1, "axis"), rank)
    correction = kwargs.get("correction", kwargs.get("ddof", 0))
    keep = bool(kwargs.get("keepdims", False))
    xv = t.value(x, elem)
    mean = g.reduce("ReduceMean", xv, axes, True)
    dev = g.node("Sub", [xv, mean])
    var = g.reduce("ReduceMean", g.node("Mul", [dev, dev]), axes, keep)
    if correction:
        shape = t.shape(x)
        count: Any = 1
        for a in (range(rank) if axes is None else axes):
            count = count * shape[a] if count.__class__ is int and shape[a].__class__ is int \
                else None
        if count is None:
            n = g.node("ReduceProd", [g.node("Gather", [g.node("Shape", [xv], g.T.INT64),
                                                        g.ints(list(range(rank) if axes is None
                                                                    else axes))], axis=0)],
                       g.T.INT64, keepdims=0)
            nf = g.cast(n, elem)
            scale = g.node("Div", [nf, g.node("Sub", [nf, g.const(correction, elem)])])
        else:
            scale = g.const(count / (count - correction), elem)
        var = g.node("Mul", [var, scale])
    return g.node("Sqrt", [var]) if call_name(t, ins) == "std" else var


@op("argmax", "argmin")
def _argmax(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    x = t.value(args[0])
    axis = arg(args, kwargs, 1, "axis")
    keep = int(bool(kwargs.get("keepdims", False)))
    if axis is None:
        x = g.node("Reshape", [x, g.ints([-1])])
        axis = 0
    onnx_op = "ArgMax" if call_name(t, ins) == "argmax" else "ArgMin"
    result = g.node(onnx_op, [x], g.T.INT64, axis=int(axis), keepdims=keep)
    return g.cast(result, out_elem(t, ins))


@op("cumulative_sum", "cumsum")
def _cumsum(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    elem = out_elem(t, ins)
    axis = arg(args, kwargs, 1, "axis")
    x = t.value(args[0], elem)
    if axis is None:
        x, axis = g.node("Reshape", [x, g.ints([-1])]), 0
    return g.node("CumSum", [x, g.const(int(axis), g.T.INT64)])


# -- shapes -----------------------------------------------------------------------------------

def _shape_arg(args: list[Any], kwargs: dict[str, Any], method: bool) -> Any:
    if method:
        rest = args[1:]
        if len(rest) == 1 and isinstance(rest[0], (tuple, list)):
            return tuple(rest[0])
        return tuple(rest) if rest else tuple(kwargs.get("shape", ()))
    shape = arg(args, kwargs, 1, "shape", kwargs.get("newshape"))
    return (shape,) if isinstance(shape, (int, SymInt)) else tuple(shape)


@op("reshape")
def _reshape(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    shape = _shape_arg(args, kwargs, ins.kind == "method")
    return t.g.node("Reshape", [t.value(args[0]), t.sizes(shape)])


@op("ravel", "flatten")
def _ravel(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    return t.g.node("Reshape", [t.value(args[0]), t.g.ints([-1])])


@op("permute_dims", "transpose")
def _transpose(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    x = args[0]
    rank = t.rank(x)
    if ins.kind == "method":
        rest = args[1:]
        axes = tuple(rest[0]) if len(rest) == 1 and isinstance(rest[0], (tuple, list)) else tuple(rest)
    else:
        axes = arg(args, kwargs, 1, "axes")
    perm = list(range(rank))[::-1] if not axes else [a % rank for a in axes]
    return t.g.node("Transpose", [t.value(x)], perm=perm)


@op("T")
def _attr_t(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    rank = t.rank(args[0])
    return t.g.node("Transpose", [t.value(args[0])], perm=list(range(rank))[::-1])


@op("mT", "matrix_transpose")
def _matrix_transpose(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    rank = t.rank(args[0])
    perm = list(range(rank))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return t.g.node("Transpose", [t.value(args[0])], perm=perm)


@op("swapaxes")
def _swapaxes(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    rank = t.rank(args[0])
    a, b = arg(args, kwargs, 1, "axis1") % rank, arg(args, kwargs, 2, "axis2") % rank
    perm = list(range(rank))
    perm[a], perm[b] = perm[b], perm[a]
    return t.g.node("Transpose", [t.value(args[0])], perm=perm)


@op("moveaxis")
def _moveaxis(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    rank = t.rank(args[0])
    src, dst = arg(args, kwargs, 1, "source"), arg(args, kwargs, 2, "destination")
    src = [s % rank for s in (src if isinstance(src, (tuple, list)) else (src,))]
    dst = [d % rank for d in (dst if isinstance(dst, (tuple, list)) else (dst,))]
    order = [a for a in range(rank) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return t.g.node("Transpose", [t.value(args[0])], perm=order)


@op("expand_dims")
def _expand_dims(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    rank = out_rank(t, ins)
    axis = arg(args, kwargs, 1, "axis", 0)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    return t.g.unsqueeze(t.value(args[0]), sorted(a % rank for a in axes))


@op("squeeze")
def _squeeze(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    x = args[0]
    rank = t.rank(x)
    axis = arg(args, kwargs, 1, "axis")
    if axis is None:
        shape = t.shape(x)
        axes = [i for i, d in enumerate(shape) if d.__class__ is int and d == 1]
    else:
        axes = sorted(a % rank for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    return t.g.squeeze(t.value(x), axes)


@op("broadcast_to")
def _broadcast_to(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    shape = arg(args, kwargs, 1, "shape")
    shape = (shape,) if isinstance(shape, (int, SymInt)) else tuple(shape)
    return t.g.node("Expand", [t.value(args[0]), t.sizes(shape)])


@op("broadcast_arrays")
def _broadcast_arrays(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return tuple(t.g.node("Expand", [t.value(a), t.sizes(t.shapes[k])])
                 for a, k in zip(args, outs_of(ins.out)))


@op("concat", "concatenate")
def _concat(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    parts = list(args[0])
    axis = arg(args, kwargs, 1, "axis", 0)
    elem = out_elem(t, ins)
    values = [t.value(p, elem) for p in parts]
    if axis is None:
        values = [t.g.node("Reshape", [v, t.g.ints([-1])]) for v in values]
        axis = 0
    return t.g.node("Concat", values, axis=int(axis) % out_rank(t, ins))


@op("stack")
def _stack(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    parts = list(args[0])
    rank = out_rank(t, ins)
    axis = int(arg(args, kwargs, 1, "axis", 0)) % rank
    elem = out_elem(t, ins)
    values = [t.g.unsqueeze(t.value(p, elem), [axis]) for p in parts]
    return t.g.node("Concat", values, axis=axis)


@op("flip")
def _flip(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    from arraygrad.onnx._graph import INT64_MIN
    x = args[0]
    rank = t.rank(x)
    axes = axes_of(arg(args, kwargs, 1, "axis"), rank)
    axes = list(range(rank)) if axes is None else axes
    g = t.g
    n = len(axes)
    return g.node("Slice", [t.value(x), g.ints([-1] * n), g.ints([INT64_MIN] * n),
                            g.ints(axes), g.ints([-1] * n)])


@op("tril", "triu")
def _tril(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    k = arg(args, kwargs, 1, "k", 0)
    upper = int(call_name(t, ins) == "triu")
    return t.g.node("Trilu", [t.value(args[0]), t.g.const(int(k), t.g.T.INT64)], upper=upper)


@op("tile")
def _tile(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    reps = arg(args, kwargs, 1, "reps")
    reps = (reps,) if isinstance(reps, (int, SymInt)) else tuple(reps)
    x = t.value(args[0])
    rank = t.rank(args[0])
    if len(reps) > rank:
        x = t.g.unsqueeze(x, list(range(len(reps) - rank)))
    reps = (1,) * (rank - len(reps)) + reps
    return t.g.node("Tile", [x, t.sizes(reps)])


# -- creation ----------------------------------------------------------------------------------

def _filled(fill: Any) -> Entry:
    def entry(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
        g = t.g
        elem = out_elem(t, ins)
        shape = arg(args, kwargs, 0, "shape")
        shape = (shape,) if isinstance(shape, (int, SymInt)) else tuple(shape)
        value = arg(args, kwargs, 1, "fill_value") if fill is None else fill
        if value.__class__ is not int and value.__class__ is not float and \
                value.__class__ is not bool:
            if value.__class__ is Slot:  # a 0-d array of the program: broadcast it
                return g.node("Expand", [t.value(value, elem), t.sizes(shape)], elem)
            value = float(t.g.backend.to_host(value))
        filler = g.helper.make_tensor("value", elem, [1], [_typed(g, elem, value)])
        return g.node("ConstantOfShape", [t.sizes(shape)], elem, value=filler)
    return entry


def _typed(g: Any, elem: int, value: Any) -> Any:
    if elem == g.T.BOOL:
        return bool(value)
    if elem in (g.T.FLOAT, g.T.DOUBLE, g.T.FLOAT16, g.T.BFLOAT16):
        return float(value)
    return int(value)


op("zeros", "empty")(_filled(0))
op("ones")(_filled(1))
op("full")(_filled(None))


def _filled_like(fill: Any) -> Entry:
    def entry(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
        g = t.g
        elem = out_elem(t, ins)
        value = arg(args, kwargs, 1, "fill_value") if fill is None else fill
        filler = g.helper.make_tensor("value", elem, [1], [_typed(g, elem, value)])
        shape = g.node("Shape", [t.value(args[0])], g.T.INT64)
        return g.node("ConstantOfShape", [shape], elem, value=filler)
    return entry


op("zeros_like", "empty_like")(_filled_like(0))
op("ones_like")(_filled_like(1))
op("full_like")(_filled_like(None))


@op("arange")
def _arange(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    elem = out_elem(t, ins)
    start, stop, step = arg(args, kwargs, 0, "start", 0), arg(args, kwargs, 1, "stop"), \
        arg(args, kwargs, 2, "step", 1)
    if stop is None:
        start, stop = 0, start

    def scalar(v: Any) -> str:
        if v.__class__ is SymInt:
            return g.cast(g.node("Squeeze", [t.size(v)]), elem)
        return g.const(v, elem)
    return g.node("Range", [scalar(start), scalar(stop), scalar(step)], elem)


# -- linear algebra ---------------------------------------------------------------------------

@op("einsum")
def _einsum(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    elem = out_elem(t, ins)
    equation = args[0]
    if not isinstance(equation, str):
        raise t.unsupported("einsum", "operands given as interleaved lists")
    return t.g.node("Einsum", [t.value(a, elem) for a in args[1:]], elem,
                    equation=equation.replace(" ", ""))


@op("take")
def _take(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    x = t.value(args[0])
    axis = arg(args, kwargs, 2, "axis")
    if axis is None:
        x, axis = g.node("Reshape", [x, g.ints([-1])]), 0
    return g.node("Gather", [x, t.value(args[1], g.T.INT64)], axis=int(axis))


@op("take_along_axis")
def _take_along_axis(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    axis = int(arg(args, kwargs, 2, "axis", -1)) % t.rank(args[0])
    return g.node("GatherElements", [t.value(args[0]), t.value(args[1], g.T.INT64)], axis=axis)


@op("argsort", "sort")
def _argsort(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    g = t.g
    x = args[0]
    rank = t.rank(x)
    axis = int(arg(args, kwargs, 1, "axis", -1)) % rank
    descending = bool(kwargs.get("descending", False))
    value = t.value(x)
    size = t.shape(x)[axis]
    k = t.sizes([size])
    # TopK breaks ties by the lower index first, as a stable sort does
    values, indices = g.node("TopK", [value, k], outputs=2, axis=axis, largest=int(descending),
                             sorted=1)
    g.types[indices] = g.T.INT64
    if call_name(t, ins) == "sort":
        return values
    return g.cast(indices, out_elem(t, ins))


# -- indexing and the rest --------------------------------------------------------------------

@op("getitem", "__getitem__")
def _getitem(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    from arraygrad.onnx._indexing import getitem
    return getitem(t, args[0], args[1], outs_of(ins.out)[0])


@op("setitem", "__setitem__")
def _setitem(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> Any:
    from arraygrad.onnx._indexing import setitem
    target = args[0]
    if target == args[2] and args[1] is Ellipsis:
        return None
    if target.__class__ is not Slot:
        raise t.unsupported("setitem", "a write into a constant array")
    t.bind(target.k, setitem(t, target, args[1], args[2]))
    return None


_ = operator  # (the operator kinds are named by ``_SYMBOLS``)
