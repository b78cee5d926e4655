"""A recorded program as one generated Python function.

``build`` turns a ``Recording`` plus its bindings (which tensor gets which slot back,
which ``.grad`` is set or cleared, which version counters move, what is returned) into
Python source and ``exec``s it once. A replay is then a single call of that function:
it reads the state tensors' arrays, makes the backend's calls in the recorded order
(operators written as operators, methods as methods, everything else as calls to
constants bound as default arguments) and writes the bindings back. Instructions whose
results nothing uses and that have no effect are left out.
"""

from __future__ import annotations

import gc
import keyword
from typing import Any, Callable

from arraygrad.compiler.traced import Instr, Live, Recording, Slot

__all__ = ["Bindings", "build", "MISS", "without_gc"]

MISS = object()
"""What a replay returns when a value guard fails (it has changed nothing then)."""

_SIMPLE = (bool, int, type(None), str)


class Bindings:
    """What a replay writes back after its instructions.

    ``inputs``: ``(tensor index, slot)`` read at the start (``T[i]._data``).
    ``data``: ``(tensor index, slot)``: ``T[i]._data`` is rebound to that slot's array.
    ``grad_none``: tensor indexes whose ``.grad`` becomes None.
    ``grad_new``: ``(tensor index, slot)``: ``T[i]._grad`` becomes a fresh tensor of that slot.
    ``versions``: ``(tensor index, delta)``: the version counter moves by ``delta``.
    ``output``: the return value's template (see ``build``).
    """

    def __init__(self) -> None:
        self.inputs: list[tuple[int, int]] = []
        self.data: list[tuple[int, int]] = []
        self.grad_none: list[int] = []
        self.grad_new: list[tuple[int, int]] = []
        self.versions: list[tuple[int, int]] = []
        self.output: Any = None


class OutTensor:
    """Output template: a fresh tensor around slot ``k`` (``expr``: an expression naming an
    already-bound tensor to return instead, keeping eager's identity; ``released``: eager's
    tensor has a graph a backward inside the call released, and so gets the replayed one)."""

    __slots__ = ("k", "expr", "released")

    def __init__(self, k: int, expr: str | None = None, released: bool = False) -> None:
        self.k = k
        self.expr = expr
        self.released = released


class OutArray:
    """Output template: slot ``k``'s array itself, no tensor around it (the arrays a
    training forward's replay hands to its backward)."""

    __slots__ = ("k",)

    def __init__(self, k: int) -> None:
        self.k = k


class OutState:
    """Output template: state tensor ``T[i]`` itself."""

    __slots__ = ("i",)

    def __init__(self, i: int) -> None:
        self.i = i


class _Source:
    """The generated function's text and the constants it binds as default arguments."""

    def __init__(self, prologue: bool = False) -> None:
        self.lines: list[str] = []
        self.consts: dict[str, Any] = {}
        self._ids: dict[int, str] = {}
        # ``pre`` live scalars: their getters, evaluated once at the start (``prologue``), in
        # a whole replay function (a captured replay's phases read them before the launch)
        self.pre: dict[str, str] | None = {} if prologue else None

    def prologue(self) -> list[str]:
        """The lines evaluating the ``pre`` live scalars, before anything is written."""
        return [f"{local} = {getter}()" for getter, local in (self.pre or {}).items()]

    def const(self, value: Any, prefix: str = "C") -> str:
        if value.__class__ in _SIMPLE and (value.__class__ is not str or len(value) < 64):
            return repr(value)
        name = self._ids.get(id(value))
        if name is None:
            name = f"{prefix}{len(self.consts)}"
            self.consts[name] = value
            self._ids[id(value)] = name
        return name

    def arg(self, t: Any) -> str:
        cls = t.__class__
        if cls is Slot:
            return f"s{t.k}"
        if cls is Live:
            getter = self.const(t.getter, 'L')
            if t.pre and self.pre is not None:  # the value at the start of the step, read once (``Live.pre``)
                return self.pre.setdefault(getter, f"P{getter}")
            return f"{getter}()"
        if cls is tuple:
            if not _dynamic(t):
                return self.const(t)
            inner = ", ".join(self.arg(v) for v in t)
            return f"({inner},)" if t else "()"
        if cls is list:
            return "[" + ", ".join(self.arg(v) for v in t) + "]"
        if cls is dict and _dynamic(t):
            return "{" + ", ".join(f"{self.const(k)}: {self.arg(v)}" for k, v in t.items()) + "}"
        if cls is slice and _dynamic((t.start, t.stop, t.step)):
            return f"slice({self.arg(t.start)}, {self.arg(t.stop)}, {self.arg(t.step)})"
        return self.const(t)


def _dynamic(t: Any) -> bool:
    cls = t.__class__
    if cls is Slot or cls is Live:
        return True
    if cls is tuple or cls is list:
        return any(_dynamic(v) for v in t)
    if cls is dict:
        return any(_dynamic(v) for v in t.values())
    return False


def _outs(out: Any) -> tuple[int, ...]:
    if out is None:
        return ()
    return (out,) if out.__class__ is int else tuple(out)


def live_instructions(rec: Recording, needed: set[int]) -> list[Instr]:
    """The instructions a replay makes: every one with an effect, and every pure one whose
    result a kept instruction or a binding reads (a backward pass over the program)."""
    kept: list[Instr] = []
    needed = set(needed)
    for ins in reversed(rec.instrs):
        outs = _outs(ins.out)
        if ins.pure and not any(k in needed for k in outs):
            continue
        kept.append(ins)
        if ins.pure:
            needed.difference_update(outs)
        needed.update(ins.reads)
    kept.reverse()
    return kept


def _statement(src: _Source, ins: Instr) -> str:
    args = [src.arg(a) for a in ins.args]
    kind = ins.kind
    if kind == "host":
        return f"{src.const(ins.fn, 'H')}()"
    if kind == "setitem":
        if ins.args[0] == ins.args[2] and ins.args[1] is Ellipsis:
            return ""  # ``a[...] = a``: eager's write-back of an in-place result onto itself
        return f"{args[0]}[{args[1]}] = {args[2]}"
    outs = _outs(ins.out)
    target = ", ".join(f"s{k}" for k in outs) + ("," if len(outs) > 1 else "")
    if kind.endswith("=") and kind not in ("==", "!=", "<=", ">=") and outs \
            and ins.args[0].__class__ is Slot and outs == (ins.args[0].k,) and ins.coerce is None:
        return f"{args[0]} {kind} {args[1]}"
    if kind in ("+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>", "<", "<=",
                ">", ">=", "==", "!="):
        expr = f"{args[0]} {kind} {args[1]}"
    elif kind.startswith("u") and len(kind) == 2:
        expr = f"{kind[1]}{args[0]}"
    elif kind == "getitem":
        expr = f"{args[0]}[{args[1]}]"
    elif kind == "method" and ins.fn.isidentifier() and not keyword.iskeyword(ins.fn):
        rest = args[1:] + [f"{k}={src.arg(v)}" for k, v in ins.kwargs.items()]
        expr = f"{args[0]}.{ins.fn}({', '.join(rest)})"
    elif kind == "attr":
        expr = f"{args[0]}.{ins.fn}"
    else:
        fn = ins.fn if kind == "call" or kind.endswith("=") else _operator_fn(ins)
        call = args + [f"{k}={src.arg(v)}" for k, v in ins.kwargs.items()]
        expr = f"{src.const(fn, 'F')}({', '.join(call)})"
    if ins.coerce is not None:
        expr = f"{src.const(ins.coerce, 'K')}({expr})"
    return f"{target} = {expr}" if outs else expr


def _operator_fn(ins: Instr) -> Callable[..., Any]:
    import operator
    if ins.kind == "method":
        name = ins.fn
        return lambda recv, *a, **k: getattr(recv, name)(*a, **k)
    return getattr(operator, ins.kind)  # pragma: no cover - every other kind is written above


def needed_slots(b: Bindings) -> set[int]:
    """The slots the bindings and the result read after the instructions."""
    needed: set[int] = set()
    for _, k in b.data + b.grad_new:
        needed.add(k)
    _output_slots(b.output, needed)
    return needed


def bindings_lines(src: _Source, b: Bindings) -> None:
    """Append the write-backs and the ``return`` of the result to ``src``."""
    body = src.lines
    for i, k in b.data:
        body.append(f"T[{i}]._data = s{k}")
    for i in b.grad_none:
        body.append(f"T[{i}]._grad = None")
    for i, k in b.grad_new:
        body.append(f"T[{i}]._grad = W(s{k}, B)")
    for i, d in b.versions:
        body.append(f"T[{i}]._version_counter()[0] += {d}")
    body.append(f"return {_output(src, b.output)}")


def without_gc(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` with the garbage collector paused: a recording, a walk of the state and
    code generation allocate many small objects that all live until they end, so
    collections while they run only cost time."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return fn(*args)
    finally:
        if collecting:
            gc.enable()


def define(name: str, params: str, body: list[str], consts: dict[str, Any]) -> Callable[..., Any]:
    """``def name(params, <consts as defaults>): body``, compiled once."""
    defaults = ", ".join(f"{c}={c}" for c in consts)
    text = f"def {name}({params}{', ' if defaults else ''}{defaults}):\n" + \
        "\n".join("    " + line for line in body) + "\n"
    space: dict[str, Any] = {}
    exec(compile(text, f"<arraygrad.compile {name}>", "exec"), dict(consts), space)  # noqa: S102
    fn = space[name]
    fn.__source__ = text
    return fn


def guard_lines(src: _Source, rec: Recording, fail: str) -> list[Instr]:
    """Append the value guards' instructions and checks (``return fail`` on a mismatch) to
    ``src``; returns those (hoisted) instructions."""
    hoisted = [rec.instrs[i] for i in sorted(rec.hoisted)]
    for ins in hoisted:
        src.lines.append(_statement(src, ins))  # never a no-op: hoisted instructions are pure
    for k, fn, value in rec.guards:  # checked before anything is written
        src.lines.append(f"if {src.const(fn, 'G')}(s{k}) != {src.const(value)}: return {fail}")
    return hoisted


def build(rec: Recording, b: Bindings, wrap: Callable[[Any, Any], Any],
          backend: Any) -> tuple[Callable[..., Any], str]:
    """The replay function ``replay(T)`` (``T``: the state tensors in discovery order) and its
    source. ``b.output`` is a template of ``OutTensor``/``OutState``, tuples, lists, dicts
    and constants. Value guards are checked first: a failing one returns ``MISS`` before
    anything is written."""
    src = _Source(prologue=True)
    needed = needed_slots(b)
    body = src.lines
    read: set[int] = set()
    for i, k in b.inputs:
        if k not in read:
            read.add(k)
            body.append(f"s{k} = T[{i}]._data")
    for k, _fn, _value in rec.guards:
        needed.add(k)
    kept = live_instructions(rec, needed)
    hoisted = guard_lines(src, rec, "MISS")
    hoisted_ids = set(map(id, hoisted))
    for ins in kept:
        if id(ins) not in hoisted_ids:
            line = _statement(src, ins)
            if line:
                body.append(line)
    bindings_lines(src, b)
    body[:0] = src.prologue()
    fn = define("replay", "T", body, dict(src.consts, W=wrap, B=backend, MISS=MISS))
    return fn, fn.__source__  # type: ignore[attr-defined]


def _output_slots(t: Any, out: set[int]) -> None:
    cls = t.__class__
    if cls is OutTensor:
        if t.expr is None:
            out.add(t.k)
    elif cls is OutArray:
        out.add(t.k)
    elif cls in (tuple, list):
        for v in t:
            _output_slots(v, out)
    elif cls is dict:
        for v in t.values():
            _output_slots(v, out)


def _output(src: _Source, t: Any) -> str:
    cls = t.__class__
    if cls is OutTensor:
        if t.expr is not None:
            return t.expr
        if t.released:
            from arraygrad.compiler.compiled_backward import released
            return f"{src.const(released, 'R')}(W(s{t.k}, B))"
        return f"W(s{t.k}, B)"
    if cls is OutArray:
        return f"s{t.k}"
    if cls is OutState:
        return f"T[{t.i}]"
    if cls is tuple:
        return "(" + "".join(_output(src, v) + ", " for v in t) + ")"
    if cls is list:
        return "[" + ", ".join(_output(src, v) for v in t) + "]"
    if cls is dict:
        return "{" + ", ".join(f"{src.const(k)}: {_output(src, v)}" for k, v in t.items()) + "}"
    return src.const(t)
