"""Translating a recorded forward into ONNX nodes.

The instructions are walked in order, each slot bound to the ONNX value that holds it now
(an in-place write binds the slot to a new value: ONNX values are never written). A region
(a call of a known function, ``_regions``) is written as its whole-op translation
(``_nn_ops``) when it is *closed*: its instructions read only its arguments and what they
made themselves, write nothing they did not make (but an in-place result), and nothing
after it reads what it made but its result. Any other instruction is written by the
array-call table (``_array_ops``), which knows the Array API's functions, the array
operators and methods, and the few backend calls a forward makes. A call found in neither
raises ``UnsupportedOperatorError`` naming the call, the function of arraygrad it was made
in, and where the model called it.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.compiler.recording import Instr, Live, Slot
from arraygrad.onnx._dims import Axis, SymInt
from arraygrad.onnx._graph import Graph
from arraygrad.compiler.interpret import outs_of
from arraygrad.onnx._regions import Region
from arraygrad.onnx.errors import OnnxExporterError, UnsupportedOperatorError

__all__ = ["Translator"]

class Translator:
    """Writes ``instrs`` (the program, its numbers that follow dynamic axes ``SymInt``s)
    into ``graph``; ``shapes``: each slot's shape (``SymInt`` sizes), ``arrays``: each
    slot's value in the example, ``axes``: the dynamic axes by name."""

    def __init__(self, graph: Graph, instrs: list[Instr], regions: list[Region],
                 shapes: dict[int, tuple[Any, ...]], arrays: dict[int, Any],
                 axes: dict[str, Axis], input_values: list[str], outputs: list[Any],
                 calls: Callable[[int], str], views: dict[int, int],
                 folding: bool = True) -> None:
        self.g = graph
        self.instrs = instrs
        self.regions = regions
        self.shapes = shapes
        self.arrays = arrays
        self.axes = axes
        self.inputs = input_values
        self.env: dict[int, str] = {}
        self.calls = calls  # instruction index -> where it was made, in words
        self._sizes: dict[Any, str] = {}
        self._last_read = _last_reads(instrs, outputs)
        self._made = {k: i for i, ins in enumerate(instrs) for k in outs_of(ins.out)
                      if k not in ins.reads}  # slot -> the instruction that made it
        self._consts: dict[int, str] = {}
        self.index = 0  # the instruction being written
        self.folding = folding  # values of constants alone stored as constants
        self.views = views  # a view's slot -> the array that owns its memory
        self.written = _written(instrs, views)
        self.constant: set[int] = set()  # slots holding values of constants alone

    # -- what the table functions read ----------------------------------------------------
    def native(self, t: Any) -> Any:
        """The native dtype of a template entry (a slot, an array constant); None for a
        Python number."""
        if t.__class__ is Slot:
            return self.arrays[t.k].dtype
        return getattr(t, "dtype", None)

    def elem(self, t: Any) -> int | None:
        """The ONNX element type of a template entry (None for a Python number)."""
        native = self.native(t)
        return None if native is None else self.g.elem(native)

    def array_elem(self, t: Any) -> int:
        """The ONNX element type of a slot or an array constant."""
        elem = self.elem(t)
        if elem is None:
            raise OnnxExporterError(f"expected an array, got {t!r}")
        return elem

    def rank(self, t: Any) -> int:
        """The number of dimensions of a template entry (0 for a Python number)."""
        if t.__class__ is Slot:
            return len(self.shapes[t.k])
        return len(getattr(t, "shape", ()))

    def shape(self, t: Any) -> tuple[Any, ...]:
        """The shape of a template entry, sizes that follow dynamic axes as ``SymInt``s."""
        if t.__class__ is Slot:
            return self.shapes[t.k]
        return tuple(getattr(t, "shape", ()))

    def value(self, t: Any, elem: int | None = None) -> str:
        """The ONNX value of a template entry, cast to ``elem`` when given (a Python number
        becomes a constant of that type)."""
        cls = t.__class__
        if cls is Slot:
            name = self.env[t.k]
        elif cls is Live:
            raise OnnxExporterError("a live scalar (an optimizer's hyperparameter) is read by "
                                    "the forward: it cannot be exported")
        elif cls is SymInt:  # (a number: 0-d, as a Python int would be)
            name = self.g.node("Squeeze", [self.size(t)], self.g.T.INT64)
        elif cls in (int, float, bool):
            if elem is None:
                elem = (self.g.T.BOOL if cls is bool else
                        self.g.T.INT64 if cls is int else self.g.T.FLOAT)
            return self.g.const(t, elem)
        elif hasattr(t, "shape") and hasattr(t, "dtype"):
            name = self._consts.get(id(t)) or self._constant(t)
        else:
            raise OnnxExporterError(f"cannot write {t!r} as an ONNX value")
        return name if elem is None else self.g.cast(name, elem)

    def _constant(self, array: Any) -> str:
        name = self.g.array_const(array)
        self._consts[id(array)] = name
        return name

    def size(self, s: SymInt | int) -> str:
        """A number as a 1-D int64 tensor of one element (a ``SymInt`` computed from the
        inputs' shapes)."""
        if not isinstance(s, SymInt):
            return self.g.ints([int(s)])
        key = s.key()
        found = self._sizes.get(key)
        if found is not None:
            return found
        g = self.g
        value: str | None = None
        for name in s.axes:
            d = self._axis(name)
            value = d if value is None else g.node("Mul", [value, d])
        assert value is not None
        if s.coef.numerator != 1:
            value = g.node("Mul", [value, g.ints([s.coef.numerator])])
        if s.coef.denominator != 1:
            value = g.node("Div", [value, g.ints([s.coef.denominator])])
        if s.offset:
            value = g.node("Add", [value, g.ints([int(s.offset)])])
        self._sizes[key] = value
        return value

    def _axis(self, name: str) -> str:
        found = self._sizes.get(name)
        if found is None:
            a = self.axes[name]
            shape = self.g.node("Shape", [self.inputs[a.input]], self.g.T.INT64)
            found = self._sizes[name] = self.g.node("Gather", [shape, self.g.ints([a.axis])],
                                                    axis=0)
        return found

    def sizes(self, values: Any) -> str:
        """A sequence of numbers (some ``SymInt``) as a 1-D int64 tensor."""
        values = list(values)
        if all(v.__class__ is not SymInt for v in values):
            return self.g.ints([int(v) for v in values])
        return self.g.node("Concat", [self.size(v) for v in values], axis=0)

    def bind(self, slot: int, name: str) -> None:
        """Slot ``slot`` now holds ONNX value ``name``."""
        self.env[slot] = name

    def unsupported(self, name: str, why: str = "") -> UnsupportedOperatorError:
        """The error for a call with no translation (at the instruction being written)."""
        where = self.calls(self.index)
        detail = f"{why}; " if why else ""
        return UnsupportedOperatorError(
            name, self.g.opset, None,
            f"{detail}{where}. arraygrad's exporter writes the array calls of the forward "
            "(the Array API's functions) and whole ops for the common layers; this one has "
            "no ONNX translation yet")

    # -- the walk ------------------------------------------------------------------------
    def run(self) -> None:
        """Write every instruction (and closed region) into the graph."""
        self._walk(0, len(self.instrs), self.regions)

    def _walk(self, start: int, end: int, regions: list[Region]) -> None:
        i = start
        for r in regions:
            while i < r.start:
                self._instruction(i)
                i += 1
            if r.end <= i:
                continue  # (an empty region, or one already passed)
            if not self._region(r):
                self._walk(r.start, r.end, r.children)
            i = r.end
        while i < end:
            self._instruction(i)
            i += 1

    def _instruction(self, i: int) -> None:
        # the entry modules fill _array_ops.TABLE as they load; importing them here, not from
        # _array_ops (which they import), keeps the package free of import cycles
        from arraygrad.onnx import _elementwise, _shapes  # noqa: F401
        from arraygrad.onnx._array_ops import emit
        self.index = i
        ins = self.instrs[i]
        result = emit(self, ins)
        if result is not None:
            for k, name in zip(outs_of(ins.out), (result,) if isinstance(result, str) else result):
                if name is not None:
                    self.bind(k, name)
        target = None if ins.pure else _target(ins)
        if target is not None:
            self._written_through(i, target)

    def _written_through(self, i: int, k: int) -> None:
        """Slot ``k`` was written in place by instruction ``i`` (it holds its new value): the
        arrays it is a view of hold new values too (each written back into its own base,
        up to the array that owns the memory), and so do the other views of that array
        that were made before and are read after (made again from the new values)."""
        from arraygrad.onnx._array_ops import call_name, emit
        chain = [k]
        while chain[-1] in self.views:
            child = chain[-1]
            made = self._made.get(child)
            maker = None if made is None else self.instrs[made]
            parent = None if maker is None else _first_slot(maker)
            if maker is None or parent is None:
                raise self.unsupported("setitem", "an in-place write into a view whose base "
                                       "the recording does not show")
            self.bind(parent, self._write_back(maker, parent, child))
            chain.append(parent)
        root = chain[-1]
        stale = sorted((self._made[v], v) for v, r in self.views.items()
                       if r == root and v not in chain
                       and self._made.get(v, i) < i < self._last_read.get(v, -1))
        index = self.index
        for j, v in stale:  # (in the order they were made: a view's base before it)
            self.index = j
            value = emit(self, self.instrs[j])
            if not isinstance(value, str):
                raise self.unsupported(call_name(self, self.instrs[j]), "a view read after "
                                       "a write into the array it views")
            self.bind(v, value)
        self.index = index

    def _write_back(self, made: Instr, parent: int, child: int) -> str:
        """``parent``'s value once its view ``child`` (made by ``made``) was written."""
        from arraygrad.compiler.recording import SLOTS
        from arraygrad.onnx._array_ops import call_name
        from arraygrad.onnx._indexing import setitem
        from arraygrad.onnx._shapes import TRANSPOSES, perm_of
        name = call_name(self, made)
        if name == "getitem":
            return setitem(self, SLOTS[parent], made.args[1], SLOTS[child])
        if name in ("reshape", "ravel", "flatten", "expand_dims", "squeeze"):
            return self.g.node("Reshape", [self.env[child], self.sizes(self.shapes[parent])])
        if name in TRANSPOSES:
            perm = perm_of(self, made)
            inverse = sorted(range(len(perm)), key=perm.__getitem__)
            return self.g.node("Transpose", [self.env[child]], perm=inverse)
        raise self.unsupported(name, "an in-place write into a view made by this call")

    def _region(self, r: Region) -> bool:
        """Write region ``r`` as its whole op when it is closed and its translation takes
        it; False when its instructions must be written one by one."""
        from arraygrad.onnx._nn_ops import REGIONS
        emitter = REGIONS.get(r.name)
        results = _slots_in(r.result)
        if emitter is None or results is None or not self._closed(r, results):
            return False
        self.index = r.start
        names = emitter(self, r.args)
        if names is None:
            return False
        if isinstance(names, str):
            names = (names,)
        for k, name in zip(results, names):
            self.bind(k, name)
        return True

    def _closed(self, r: Region, results: list[int]) -> bool:
        args: set[int] = set()
        _collect(r.args, args)
        if any(k not in self.env for k in args):
            return False
        made: set[int] = set()
        for i in range(r.start, r.end):
            ins = self.instrs[i]
            for k in ins.reads:
                if k not in made and k not in args:
                    return False
            outs = outs_of(ins.out)
            target = None if ins.pure else _target(ins)
            if target is not None and target not in made and target not in results:
                return False  # it writes something it did not make (a buffer's update)
            made.update(k for k in outs if k not in args or k in results)
        for k in made:
            if k not in results and self._last_read.get(k, -1) >= r.end:
                return False
        return all(k in made or k in args for k in results)


def _first_slot(ins: Instr) -> int | None:
    """The slot of an instruction's first array argument."""
    for a in ins.args:
        if a.__class__ is Slot:
            return a.k
    return None


def _target(ins: Instr) -> int | None:
    """The slot an instruction with an effect writes (its first array argument)."""
    out = ins.out
    if out.__class__ is int and out in ins.reads:
        return out
    return _first_slot(ins)


def _written(instrs: list[Instr], views: dict[int, int]) -> set[int]:
    """The slots some instruction writes in place, with the arrays they view and their
    other views."""
    found: set[int] = set()
    for ins in instrs:
        k = None if ins.pure else _target(ins)
        if k is not None:
            found.add(k)
    for k in list(found):
        while k in views:
            k = views[k]
            found.add(k)
    found.update(v for v, b in views.items() if b in found)
    return found


def _slots_in(value: Any) -> list[int] | None:
    """The slots of a region's result, in order (None: something else is in it)."""
    if value.__class__ is Slot:
        return [value.k]
    if isinstance(value, (tuple, list)) and all(v.__class__ is Slot for v in value):
        return [v.k for v in value]
    return None


def _collect(value: Any, out: set[int]) -> None:
    if value.__class__ is Slot:
        out.add(value.k)
    elif isinstance(value, (tuple, list)):
        for v in value:
            _collect(v, out)
    elif isinstance(value, dict):
        for v in value.values():
            _collect(v, out)


def _last_reads(instrs: list[Instr], outputs: list[Any]) -> dict[int, int]:
    """Slot -> the last instruction index reading it (past the end for the outputs)."""
    last: dict[int, int] = {}
    for i, ins in enumerate(instrs):
        for k in ins.reads:
            last[k] = i
    for o in outputs:
        if o.__class__ is Slot:
            last[o.k] = len(instrs)
    return last
