"""Shapes, array creation, sorting, linear algebra and indexing calls, as ONNX nodes:
entries of ``_array_ops.TABLE``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.compiler.recording import Instr, Slot
from arraygrad.onnx._array_ops import (Entry, arg, axes_of, call_name, op, out_elem, out_rank,
                                       typed)
from arraygrad.onnx._dims import SymInt
from arraygrad.compiler.interpret import outs_of

if TYPE_CHECKING:
    from arraygrad.onnx._translate import Translator

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


def perm_of(t: "Translator", ins: Instr) -> list[int]:
    """The axis order of a transposing call (``permute_dims``, NumPy's ``transpose``, ``.T``,
    ``.mT``, ``swapaxes``, ``moveaxis``)."""
    name = call_name(t, ins)
    args, kwargs = list(ins.args), dict(ins.kwargs or {})
    rank = t.rank(args[0])
    order = list(range(rank))
    if name in ("permute_dims", "transpose"):
        if ins.kind == "method":
            rest = args[1:]
            axes = tuple(rest[0]) if len(rest) == 1 and isinstance(rest[0], (tuple, list)) \
                else tuple(rest)
        else:
            axes = arg(args, kwargs, 1, "axes")
        return order[::-1] if not axes else [a % rank for a in axes]
    if name == "T":
        return order[::-1]
    if name in ("mT", "matrix_transpose"):
        order[-1], order[-2] = order[-2], order[-1]
        return order
    if name == "swapaxes":
        a, b = arg(args, kwargs, 1, "axis1") % rank, arg(args, kwargs, 2, "axis2") % rank
        order[a], order[b] = order[b], order[a]
        return order
    src, dst = arg(args, kwargs, 1, "source"), arg(args, kwargs, 2, "destination")  # moveaxis
    src = [v % rank for v in (src if isinstance(src, (tuple, list)) else (src,))]
    dst = [v % rank for v in (dst if isinstance(dst, (tuple, list)) else (dst,))]
    order = [a for a in order if a not in src]
    for d, v in sorted(zip(dst, src)):
        order.insert(d, v)
    return order


TRANSPOSES = ("permute_dims", "transpose", "T", "mT", "matrix_transpose", "swapaxes",
              "moveaxis")


@op(*TRANSPOSES)
def _transpose(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
    return t.g.node("Transpose", [t.value(args[0])], perm=perm_of(t, ins))


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
        filler = g.helper.make_tensor("value", elem, [1], [typed(g, elem, value)])
        return g.node("ConstantOfShape", [t.sizes(shape)], elem, value=filler)
    return entry


op("zeros", "empty")(_filled(0))
op("ones")(_filled(1))
op("full")(_filled(None))


def _filled_like(fill: Any) -> Entry:
    def entry(t: "Translator", ins: Instr, args: list[Any], kwargs: dict[str, Any]) -> str:
        g = t.g
        elem = out_elem(t, ins)
        value = arg(args, kwargs, 1, "fill_value") if fill is None else fill
        filler = g.helper.make_tensor("value", elem, [1], [typed(g, elem, value)])
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
