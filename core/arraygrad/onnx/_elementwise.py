"""Elementwise calls (arithmetic with NumPy's promotion, comparisons, math functions,
logic) and reductions, as ONNX nodes: entries of ``_array_ops.TABLE``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.compiler.recording import Instr, Slot
from arraygrad.onnx._array_ops import (Entry, arg, axes_of, call_name, common_elem, fold, op,
                                       out_elem)
from arraygrad.onnx._dims import SymInt

if TYPE_CHECKING:
    from arraygrad.onnx._translate import Translator

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
    return fold(t, ins)  # data from Python (a list) or a constant array


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
