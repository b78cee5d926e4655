"""``TracedArray``: a backend array that runs every operation on it AND writes it down.

While ``arraygrad.compile`` records a call, the arrays of the state the call touches
are wrapped in ``TracedArray``s. Every operator, method and namespace function applied
to one runs on the real array at once (so the recording call computes exactly what
eager computes) and appends an ``Instr`` to the ``Recording``: the callable, its
arguments as a template (``Slot`` for traced arrays, ``Live`` for live scalars, plain
constants otherwise) and the slot of its result. Reading a value into Python
(``bool``, ``float``, ``.item()``, ``__array__``...) is a *graph break*: the recording
stops, the read answers with the real value, and from then on every traced array is
transparent (operations run on the real arrays and record nothing). The exception: an
``int``/``bool``/``index`` read of a value computed from the inputs alone becomes a
*value guard* (``Recording.guard``), checked at the start of each replay.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from arraygrad.compiler.recording import (
    GraphBreak, Instr, Live, Recording, Slot, Unsupported, current, graph_break, is_live as _live,
)
from arraygrad.compiler.scalars import LiveScalar, plain, recording_flag

__all__ = ["TracedArray", "Recording", "Instr", "Slot", "Live", "GraphBreak", "Unsupported",
           "current", "record_call", "namespace_function", "recorded_kernel", "unwrap",
           "graph_break", "constant"]


def constant(rec: Recording, value: Any) -> bool:
    """Whether every traced array of ``rec`` in ``value`` is made from shapes and constants
    alone (``Recording.constant``)."""
    traced: list[Any] = []
    _split(value, rec, traced)
    if rec.hints:
        rec.hints.clear()  # no call follows: these entries are nobody's operands
    return rec.constant({t._s for t in traced})


def unwrap(value: Any) -> Any:
    """``value`` with every TracedArray replaced by its real array (shallow containers)."""
    cls = value.__class__
    if cls is TracedArray:
        return value._a
    if cls is LiveScalar:
        # the plain number eager passes (NumPy takes a float subclass for a float64 array)
        return plain(value)
    if cls is tuple or cls is list:
        if any(v.__class__ in _UNWRAP for v in value):
            return cls(unwrap(v) for v in value)
        return value
    if cls is dict:
        return {k: unwrap(v) for k, v in value.items()}
    return value


def _split(value: Any, rec: Recording, traced: list[Any]) -> tuple[Any, Any]:
    """``(real value, template)`` of an argument, in one pass: a traced array of ``rec`` is
    its real array and its ``Slot`` (and goes to ``traced``), a leftover of an earlier
    recording its real array in both, a live scalar its float and a ``Live``; containers are
    split item by item (a container holding nothing to replace is passed as it is, as
    ``unwrap`` does)."""
    cls = value.__class__
    if cls is TracedArray:
        if value._r is rec:
            traced.append(value)
            return value._a, rec.templates[value._s]
        return value._a, value._a
    if cls is LiveScalar:
        return plain(value), _live_entry(value, rec)
    if cls is tuple or cls is list:
        for v in value:
            if v.__class__ not in _PLAIN:
                break
        else:  # constants alone (a shape, an ``axis``): the container (a list copied for the
            # template: the caller may change it after the call)
            return value, (value if cls is tuple else list(value))
        pairs = [_split(v, rec, traced) for v in value]
        template = cls(t for _, t in pairs)
        if any(r is not v for (r, _), v in zip(pairs, value)):
            return cls(r for r, _ in pairs), template
        return value, template
    if cls is dict:
        rdict: dict[Any, Any] = {}
        tdict: dict[Any, Any] = {}
        for k, v in value.items():
            if v.__class__ in _PLAIN:  # keywords are mostly these (``axis``, ``keepdims``)
                rdict[k] = tdict[k] = v
            else:
                rdict[k], tdict[k] = _split(v, rec, traced)
        return rdict, tdict
    return value, value


# argument classes that are their own template and real value (no ``_split`` call for them;
# ``type``: a class, as a dtype argument)
_PLAIN = frozenset({int, float, bool, str, type(None), type(Ellipsis), slice, type})


def _is_array(value: Any, rec: Recording) -> bool:
    array_type = rec.backend.array_type
    if type(value) is array_type:
        return True
    return (hasattr(value, "shape") and hasattr(value, "dtype") and hasattr(value, "ndim")
            and not isinstance(value, type))


def _trace(result: Any, rec: Recording, traced: list[Any]) -> tuple[Any, Any, Any]:
    """``(value to return, out template, coerce)`` for a call's ``result``. A result that is
    one of the call's real arguments (an in-place result) is that argument's traced array
    (as eager's is the argument itself)."""
    if result is None:
        return None, None, None
    same = _argument(result, traced)
    if same is not None:
        return same, same._s, None
    if _is_array(result, rec):
        backend = rec.backend
        coerce = None
        if backend.array_type is not None and type(result) is not backend.array_type:
            if not hasattr(result, "__dict__"):  # (what ``_is_array`` says is the class's)
                _BACKEND_SCALARS.add(type(result))
            result = backend.coerce(result)  # a backend scalar: eager's wrap would coerce it
            coerce = backend.coerce
        k = rec.new_slot()
        return TracedArray(result, k, rec), k, coerce
    if result.__class__ is tuple and result and all(_is_array(r, rec) for r in result):
        outs = [_trace(r, rec, traced) for r in result]
        if any(c is not None for _, _, c in outs):
            raise GraphBreak("a tuple result holding backend scalars")
        return tuple(v for v, _, _ in outs), tuple(o for _, o, _ in outs), None
    raise GraphBreak(f"a call returned {type(result).__name__} (a value read into Python)")


# classes of backend scalars ``_trace`` coerced (NumPy's ``float32``...: a full reduction's
# result): a namespace call's lane coerces them itself
_BACKEND_SCALARS: set[type] = set()


def _first_slot(args: tuple[Any, ...], rec: Recording) -> int | None:
    """The slot of the first positional argument that is a traced array of ``rec``."""
    for a in args:
        if a.__class__ is TracedArray and a._r is rec:
            return a._s
    return None


def _argument(result: Any, traced: list[Any]) -> Any:
    """The traced argument whose real array ``result`` is (the last such), or None."""
    found = None
    for t in traced:
        if t._a is result:
            found = t
    return found


def record_call(fn: Any, args: tuple[Any, ...], kwargs: dict[str, Any], *, pure: bool = True,
                kind: str = "call", call: Callable[..., Any] | None = None,
                rec: Recording | None = None, always: bool = False) -> Any:
    """Run ``fn(*args, **kwargs)`` on the real arrays; while recording, append its instruction
    and return its result traced. ``call``: what runs now when it is not ``fn`` itself (a
    method name's bound method). ``always``: record even without traced arguments (array
    creation, random draws). A result that is no array breaks the graph when the call
    read a traced array (a value reaching Python) and is returned as it is otherwise."""
    if rec is None:
        rec = current.rec
    runner = fn if call is None else call
    if current.live is not rec or rec is None or not recording_flag.on:
        if rec is not None and rec.reading is not None:
            _note_reads(rec, args, kwargs)  # a live scalar's getter computing on the state
        return runner(*unwrap(args), **(unwrap(kwargs) if kwargs else kwargs))
    # one pass over the arguments (this runs once per recorded op: the common cases, a traced
    # array and a plain constant, are inlined rather than left to ``_split``)
    traced: list[Any] = []  # the traced arrays of rec the call reads, in argument order
    real_args: list[Any] = []
    targs: list[Any] = []
    templates = rec.templates
    for a in args:
        cls = a.__class__
        if cls is TracedArray and a._r is rec:
            traced.append(a)
            real_args.append(a._a)
            targs.append(templates[a._s])
        elif cls in _PLAIN:
            real_args.append(a)
            targs.append(a)
        else:
            r, t = _split(a, rec, traced)
            real_args.append(r)
            targs.append(t)
    if kwargs:
        real_kwargs, tkw = _split(kwargs, rec, traced)
    else:
        real_kwargs = tkw = kwargs  # (empty: the template's too; each call's own dict)
    if rec.hints:
        _meets(rec, real_args, real_kwargs)
    if kwargs:
        result = runner(*real_args, **real_kwargs)
        if "out" in kwargs:
            pure = False
    else:
        result = runner(*real_args)  # (no keyword dict to copy: most ops)
    return _record_result(rec, fn, tuple(targs), tkw, result, traced, pure, kind, always, args)


def _record_result(rec: Recording, fn: Any, targs: tuple[Any, ...], tkw: dict[str, Any],
                   result: Any, traced: Any, pure: bool, kind: str, always: bool,
                   args: tuple[Any, ...]) -> Any:
    """Append the instruction of a call that ran on the real arrays and returned ``result``;
    return what the caller gets (``record_call``'s second half, and the operator lanes' for a
    result that is no fresh array). ``traced``: the traced arrays of ``rec`` the call read,
    in argument order; ``args``: the call's arguments as given (a new view's base is the
    first traced one)."""
    if result.__class__ is rec.array_type:  # the common case of ``_trace``, inlined
        value = None
        for t in traced:  # (``_argument``, inlined)
            if t._a is result:
                value = t
        if value is None:
            out = rec.nslots  # (``Recording.new_slot``, inlined: once per recorded op)
            rec.nslots = out + 1
            value = TracedArray(result, out, rec)
        else:
            out = value._s  # an in-place result: the argument itself, as in eager
        coerce = None
    else:
        if result is NotImplemented:  # a kernel declining the call: the caller goes on
            return result
        if not traced and not _is_array(result, rec) and (not always or result is not None):
            return result  # metadata (a dtype, finfo, isdtype...): nothing to replay
        try:
            value, out, coerce = _trace(result, rec, traced)
        except GraphBreak as exc:
            graph_break(str(exc))
            return result
    if result is None:
        pure = False  # a call returning None was called for its effect
    n = len(traced)
    if n == 1:
        reads: tuple[int, ...] = (traced[0]._s,)
    elif n == 2:
        a, b = traced[0]._s, traced[1]._s
        reads = (a,) if a == b else (a, b)
    else:
        reads = tuple({t._s: None for t in traced})
    # (``Recording.producer`` and ``written`` are derived from the instructions when read)
    if out.__class__ is int and getattr(result, "base", None) is not None and out not in reads:
        first = _first_slot(args, rec)  # a new view: writes to it write its base
        if first is not None:
            rec.base[out] = rec.base.get(first, first)
    rec.instrs.append(Instr((fn, targs, tkw, out, pure, kind, coerce, reads)))
    return value


def _live_entry(value: LiveScalar, rec: Recording) -> Live:
    """The template entry of a live scalar operand. When the backend may capture
    (``rec.hints``), the getter is evaluated once more, the flag off, to learn which of the
    program's arrays it reads (``Live.reads``; a captured replay evaluates it before the
    launch, which is right only when nothing earlier in the program wrote them)."""
    rec.live = True
    entry = Live(value.getter, value.pre)
    hints = rec.hints
    if hints is not None:
        found: set[int] = set()
        rec.reading = found
        was, recording_flag.on = recording_flag.on, False
        try:
            value.getter()
            entry.reads = frozenset(found)
        except Exception:  # noqa: BLE001 - an unknown read: the program stays uncaptured
            entry.reads = None
        finally:
            recording_flag.on = was
            rec.reading = None
        hints.append(entry)
    return entry


def _note_reads(rec: Recording, args: Any, kwargs: Any) -> None:
    """Add the slots of the traced arrays in a call's arguments to ``rec.reading``."""
    _slots_read(args, rec, rec.reading)  # type: ignore[arg-type]
    _slots_read(kwargs, rec, rec.reading)  # type: ignore[arg-type]


def _slots_read(value: Any, rec: Recording, found: set[int]) -> None:
    """Add the slots of ``rec``'s traced arrays in ``value`` (shallow containers) to ``found``."""
    cls = value.__class__
    if cls is TracedArray:
        if value._r is rec:
            found.add(value._s)
    elif cls is tuple or cls is list:
        for v in value:
            _slots_read(v, rec, found)
    elif cls is dict:
        for v in value.values():
            _slots_read(v, rec, found)


def _meets(rec: Recording, real_args: Any, real_kwargs: Any) -> None:
    """Give the live scalars of the call being recorded (``rec.hints``) the dtypes of the
    call's array arguments: the dtype a captured replay's 0-d buffer for them needs."""
    arrays = tuple(real_args) + tuple(real_kwargs.values())
    dtypes = tuple(a.dtype for a in arrays if _is_array(a, rec))
    for entry in rec.hints:  # type: ignore[union-attr]
        entry.meets = dtypes
    rec.hints.clear()  # type: ignore[union-attr]


def recorded_kernel(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """A plugin's kernel whose calls are recorded as one instruction each (it may convert
    its arguments with ``numpy.asarray``, which a traced array would refuse)."""
    def run(*args: Any, **kwargs: Any) -> Any:
        return record_call(kernel, args, kwargs, always=True)
    return run


# -- the array -------------------------------------------------------------------------

_BINARY = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
           "pow": "**", "matmul": "@", "and": "&", "or": "|", "xor": "^", "lshift": "<<",
           "rshift": ">>", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_UNARY = {"neg": "-", "pos": "+", "invert": "~"}
_REFLECTED = {"radd": "add", "rsub": "sub", "rmul": "mul", "rtruediv": "truediv",
              "rfloordiv": "floordiv", "rmod": "mod", "rpow": "pow", "rmatmul": "matmul",
              "rand": "and", "ror": "or", "rxor": "xor", "rlshift": "lshift", "rrshift": "rshift"}
_INPLACE = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or",
            "xor", "lshift", "rshift")

# attributes read as they are (static metadata under the guards)
_STATIC = frozenset({"shape", "dtype", "ndim", "size", "device", "itemsize", "nbytes", "strides",
                     "flags", "__array_priority__", "_a", "_s", "_r"})
# protocols that hand the data itself to foreign code (which then computes unrecorded)
_EXPORTS = frozenset({"__array_interface__", "__cuda_array_interface__", "__array_struct__",
                      "__buffer__"})
# methods that write their receiver
_EFFECT_METHODS = frozenset({"fill", "sort", "resize", "put", "itemset", "setfield", "partition",
                             "__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__"})
# methods that read values into Python
_BREAK_METHODS = {"item": "`.item()` reads a value into Python",
                  "tolist": "`.tolist()` reads values into Python",
                  "tobytes": "`.tobytes()` reads values into Python",
                  "__array__": "the array is converted to a host array (`__array__`)",
                  "__dlpack__": "the array is exported through DLPack",
                  "get": "the array is copied to the host (`.get()`)",
                  "nonzero": "`nonzero` has a data-dependent shape"}


class TracedArray:
    """A real backend array (``_a``) standing in slot ``_s`` of recording ``_r``.

    Operations on it run on ``_a`` and, while ``_r`` is recording, are written down;
    otherwise it is transparent. Code that tests ``type(x) is ndarray`` sees it as
    foreign (the recording backend's ``array_type`` is this class).
    """

    __slots__ = ("_a", "_s", "_r", "__weakref__")
    __array_priority__ = 1000.0  # NumPy defers its binary operators to ours

    def __init__(self, real: Any, slot: int, rec: Recording) -> None:
        self._a = real
        self._s = slot
        self._r = rec
        if real.__class__ not in _FORWARDED:  # (once per real array type)
            _forward_names(real)

    # static metadata (read on most ops' paths: a C getter each, no Python frame) ---------
    shape = property(operator.attrgetter("_a.shape"),
                     doc="The real array's shape (guarded, so static for the program).")
    dtype = property(operator.attrgetter("_a.dtype"), doc="The real array's dtype.")
    ndim = property(operator.attrgetter("_a.ndim"),
                    doc="The real array's number of dimensions.")
    size = property(operator.attrgetter("_a.size"), doc="The real array's number of elements.")

    @property
    def T(self) -> Any:
        """The transpose, recorded (an ``attr`` instruction; ``__getattr__`` would compute it
        twice)."""
        rec = self._r
        if current.live is rec and recording_flag.on:
            a = self._a
            result = a.T
            s = self._s
            if (result.__class__ is rec.array_type and result is not a
                    and getattr(result, "base", None) is not None):  # a new view (lean lane)
                view = _fresh(rec, "T", (rec.templates[s],), "attr", (s,), result)
                rec.base[view._s] = rec.base.get(s, s)  # writes to it write its base
                return view
            return _record_result(rec, "T", (rec.templates[s],), {}, result, (self,), True,
                                  "attr", False, (self,))
        return record_call("T", (self,), {}, kind="attr", call=_GET_T, rec=rec)

    @property
    def device(self) -> Any:
        """The real array's device."""
        return self._a.device

    def __len__(self) -> int:
        return len(self._a)

    def __iter__(self) -> Any:
        for i in range(len(self._a)):
            yield self[i]

    def __repr__(self) -> str:
        return f"TracedArray(slot={self._s}, {self._a!r})"

    def __copy__(self) -> Any:
        return record_call("copy", (self,), {}, kind="method", call=type(self._a).copy,
                           rec=self._r)

    def __deepcopy__(self, memo: Any) -> Any:
        return self.__copy__()

    # graph breaks -----------------------------------------------------------------
    def _read(self, reason: str, fn: Callable[[Any], Any], guardable: bool = False) -> Any:
        # ``bool``/``int``/``index`` reads steer control flow and shapes: when the value is a
        # function of the inputs alone it becomes a value guard (checked first at replay);
        # other reads (``float``, ``.item()``: values a step reports) break the graph
        value = fn(self._a)
        if self._r.reading is not None:
            self._r.reading.add(self._s)  # a live scalar's getter reads this array
        if _live(self._r) and not (guardable and self._r.guard(self._s, fn, value)):
            graph_break(reason)
        return value

    def __bool__(self) -> bool:
        return self._read("`bool()` of a tensor reads its value into Python", bool, True)

    def __float__(self) -> float:
        return self._read("`float()` of a tensor reads its value into Python", float)

    def __int__(self) -> int:
        return self._read("`int()` of a tensor reads its value into Python", int, True)

    def __complex__(self) -> complex:
        return self._read("`complex()` of a tensor reads its value into Python", complex)

    def __index__(self) -> int:
        return self._read("a tensor used as a Python index reads its value", operator.index, True)

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        real = self._read(_BREAK_METHODS["__array__"], lambda a: a)
        return real.__array__() if dtype is None else real.__array__(dtype)

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        return self._read(_BREAK_METHODS["__dlpack__"], lambda a: a).__dlpack__(*args, **kwargs)

    def __dlpack_device__(self) -> Any:
        return self._a.__dlpack_device__()

    def __contains__(self, value: Any) -> bool:
        return self._read("`in` on a tensor reads its values into Python",
                          lambda a: unwrap(value) in a)

    def __reduce__(self) -> Any:
        return self._read("a tensor is pickled", lambda a: a).__reduce__()

    # indexing -------------------------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        if _live(self._r) and _has_mask(key) and not constant(self._r, key):
            graph_break("indexing with a boolean mask has a data-dependent shape")
        return record_call(operator.getitem, (self, key), {}, kind="getitem", rec=self._r)

    def __setitem__(self, key: Any, value: Any) -> None:
        record_call(operator.setitem, (self, key, value), {}, pure=False, kind="setitem",
                    rec=self._r)

    # NumPy's protocols: numpy functions applied to a traced array are recorded too
    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        fn = ufunc if method == "__call__" else getattr(ufunc, method)
        pure = method in ("__call__", "reduce", "accumulate", "outer", "reduceat")
        return record_call(fn, inputs, kwargs, pure=pure, rec=self._r)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        name = getattr(func, "__name__", "")
        if _live(self._r) and name in DATA_DEPENDENT and not constant(self._r, args):
            graph_break(f"`{name}` has a data-dependent shape")
        return record_call(func, tuple(args), dict(kwargs), pure=name not in EFFECT_FUNCTIONS,
                           rec=self._r)

    def _forward(self, name: str) -> Any:
        """The real array's attribute ``name`` as this traced array has it (a ``_Forwarded``
        class attribute's value): a method records its calls, an array attribute is an
        ``attr`` instruction, a read into Python or an export of the memory breaks the
        graph."""
        if self._r.reading is not None:
            self._r.reading.add(self._s)  # a live scalar's getter reads this array
        if name in _EXPORTS and _live(self._r):
            graph_break("the array's memory is handed to another library "
                        f"(`{name}`): its work cannot be recorded")
        value = getattr(self._a, name)
        if name == "item" and _live(self._r):
            return lambda: self._read(_BREAK_METHODS["item"], _item)
        if name in _BREAK_METHODS and _live(self._r):
            reason = _BREAK_METHODS[name]

            def breaking(*args: Any, **kwargs: Any) -> Any:
                graph_break(reason)
                return value(*unwrap(args), **unwrap(kwargs))
            return breaking
        if callable(value):
            method = getattr(type(self._a), name, None)
            if method is None:
                return value
            rec = self._r
            pure = name not in _EFFECT_METHODS

            def recorded(*args: Any, **kwargs: Any) -> Any:
                return record_call(name, (self,) + args, kwargs, pure=pure, kind="method",
                                   call=method, rec=rec)
            return recorded
        if _live(self._r) and _is_array(value, self._r):
            return record_call(name, (self,), {}, kind="attr",
                               call=operator.attrgetter(name), rec=self._r)
        return value


_GET_T = operator.attrgetter("T")


class _Forwarded:
    """A class attribute of ``TracedArray`` for a name its real arrays have and it does not
    define: an instance's value is ``_forward(name)``. (A ``__getattr__`` would do the same
    for every name, but would route every attribute read of a traced array, ``_a`` and
    ``shape`` included, through a slower lookup that the interpreter cannot specialize.)"""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Any = None) -> Any:
        if obj is None:
            raise AttributeError(self.name)  # (not an attribute of the class itself)
        return obj._forward(self.name)


_FORWARDED: set[type] = set()  # the real array types whose names are forwarded


def _forward_names(real: Any) -> None:
    """Forward the attributes of ``real`` (an instance of a real array type met for the first
    time) that ``TracedArray`` lacks: its type's public names and the array protocols'
    dunder names (``__array_interface__``, ``__array_namespace__``...); other special
    methods stay undefined, as they were under ``__getattr__`` (the interpreter looks those
    up on the type)."""
    _FORWARDED.add(real.__class__)
    own = set().union(*(vars(k) for k in TracedArray.__mro__))
    for name in dir(real):
        if name in own or (name.startswith("__") and not name.startswith(_PROTOCOLS)):
            continue
        setattr(TracedArray, name, _Forwarded(name))


# dunder names forwarded: the array protocols foreign code reads off an instance
_PROTOCOLS = ("__array", "__cuda_array", "__dlpack")


def _item(a: Any) -> Any:
    return a.item()


def _has_mask(key: Any) -> bool:
    keys = key if key.__class__ is tuple else (key,)
    for k in keys:
        dtype = getattr(k, "dtype", None)
        if dtype is not None and getattr(dtype, "kind", None) == "b":
            return True
        if dtype is not None and str(dtype) == "bool":
            return True
    return False


DATA_DEPENDENT = frozenset({"nonzero", "unique", "unique_all", "unique_counts", "unique_inverse",
                            "unique_values", "argwhere", "flatnonzero", "extract", "compress"})
EFFECT_FUNCTIONS = frozenset({"copyto", "put", "place", "putmask", "put_along_axis", "fill_diagonal"})


# -- lean lanes: the operators on (traced, traced) and (traced, number) -----------------
# Most recorded ops are these. They run the operator on the real arrays and append the
# instruction directly; anything else (a foreign operand, a live scalar, a result that is
# no fresh array: a backend scalar, an alias) takes ``record_call``'s general path, which
# gives the same instruction. Both test liveness as ``is_live`` does.

_NUMBER = frozenset({int, float, bool})  # operands that are their own template (a
# LiveScalar, a float subclass, is a ``Live`` entry, made while the backend takes no hints)


def _fresh(rec: Recording, fn: Any, targs: tuple[Any, ...], kind: str, reads: tuple[int, ...],
           result: Any) -> TracedArray:
    """Record ``result``, a fresh real array computed by a pure call, in a new slot."""
    out = rec.nslots
    rec.nslots = out + 1
    rec.instrs.append(Instr((fn, targs, {}, out, True, kind, None, reads)))
    return TracedArray(result, out, rec)


def namespace_function(namespace: Any, name: str, pure: bool) -> Callable[..., Any]:
    """``namespace.name`` as the recording in progress sees it (a ``RecordingNamespace``'s
    function): ``record_call(fn, args, kwargs, pure=pure, always=True)``, in a lean lane when
    the call is one or two positional operands, the first a traced array of the live
    recording, the second no container, live scalar or foreign traced array, with keywords
    that are plain constants (``axis``, ``keepdims``): a namespace call's usual shape."""
    def call(*args: Any, **kwargs: Any) -> Any:
        fn = getattr(namespace, name)  # at each call: a namespace patched since is seen
        rec = current.live
        n = len(args)
        x = args[0] if n else None
        if (x.__class__ is not TracedArray or x._r is not rec or not recording_flag.on
                or n > 2 or rec.hints or "out" in kwargs):  # (``rec.hints``: a live scalar's)
            return record_call(fn, args, kwargs, pure=pure, rec=current.rec, always=True)
        for v in kwargs.values():
            if v.__class__ not in _PLAIN:
                return record_call(fn, args, kwargs, pure=pure, rec=rec, always=True)
        a = x._a
        s = x._s
        templates = rec.templates
        if n == 1:
            result = fn(a, **kwargs) if kwargs else fn(a)
            targs: tuple[Any, ...] = (templates[s],)
            reads: tuple[int, ...] = (s,)
            b = a
        else:
            y = args[1]
            cls = y.__class__
            if cls is TracedArray:
                if y._r is not rec or (y is not x and y._a is a):
                    return record_call(fn, args, kwargs, pure=pure, rec=rec, always=True)
                b = y._a
                t = y._s
                targs, reads = (templates[s], templates[t]), ((s,) if s == t else (s, t))
            elif cls not in _UNWRAP:  # its own template (as ``_split`` has it)
                b = y
                targs, reads = (templates[s], y), (s,)
            else:
                return record_call(fn, args, kwargs, pure=pure, rec=rec, always=True)
            result = fn(a, b, **kwargs) if kwargs else fn(a, b)
        # (``kwargs``: this call's own dict, so the template itself)
        cls = result.__class__
        if (result is not a and result is not b and pure
                and getattr(result, "base", None) is None):
            coerce = None
            if cls is rec.array_type:  # a fresh array (no view, no argument returned)
                real = result
            elif cls in _BACKEND_SCALARS and rec.array_type is not None:
                coerce = rec.backend.coerce  # a backend scalar, coerced as ``_trace`` does
                real = coerce(result)
            else:
                real = None
            if real is not None:
                out = rec.nslots  # a new slot
                rec.nslots = out + 1
                rec.instrs.append(Instr((fn, targs, kwargs, out, True, "call", coerce, reads)))
                return TracedArray(real, out, rec)
        traced = [v for v in args if v.__class__ is TracedArray]
        return _record_result(rec, fn, targs, kwargs, result, traced, pure, "call", True, args)

    call.__name__ = name
    return call


def _binary(name: str, symbol: str) -> Callable[[TracedArray, Any], Any]:
    fn = getattr(operator, name + "_" if name in ("and", "or") else name)

    def op(self: TracedArray, other: Any) -> Any:
        rec = self._r
        if current.live is rec and recording_flag.on:
            cls = other.__class__
            a = self._a
            if cls is TracedArray:
                b = other._a
                if other._r is rec and (other is self or b is not a):
                    result = fn(a, b)
                    if result.__class__ is rec.array_type and result is not a and result is not b:
                        s, t = self._s, other._s
                        return _fresh(rec, fn, (rec.templates[s], rec.templates[t]), symbol,
                                      (s,) if s == t else (s, t), result)
                    return _record_result(rec, fn, (rec.templates[self._s],
                                                    rec.templates[other._s]),
                                          {}, result, (self, other), True, symbol, False,
                                          (self, other))
            elif cls in _NUMBER or (cls is LiveScalar and rec.hints is None):
                # (a live scalar: its ``Live`` entry, and its float as eager passes it; the
                # hints a capturing backend needs are the general path's)
                entry = other if cls is not LiveScalar else _live_entry(other, rec)
                result = fn(a, other if entry is other else plain(other))
                s = self._s
                if result.__class__ is rec.array_type and result is not a:
                    return _fresh(rec, fn, (rec.templates[s], entry), symbol, (s,), result)
                return _record_result(rec, fn, (rec.templates[s], entry), {}, result, (self,),
                                      True, symbol, False, (self, other))
        return record_call(fn, (self, other), {}, kind=symbol, rec=rec)
    op.__name__ = f"__{name}__"
    return op


def _reflected(name: str, base: str) -> Callable[[TracedArray, Any], Any]:
    fn = getattr(operator, base + "_" if base in ("and", "or") else base)
    symbol = _BINARY[base]

    def op(self: TracedArray, other: Any) -> Any:
        rec = self._r
        cls = other.__class__
        if ((cls in _NUMBER or (cls is LiveScalar and rec.hints is None))
                and current.live is rec and recording_flag.on):
            entry = other if cls is not LiveScalar else _live_entry(other, rec)
            a = self._a
            result = fn(other if entry is other else plain(other), a)
            s = self._s
            if result.__class__ is rec.array_type and result is not a:
                return _fresh(rec, fn, (entry, rec.templates[s]), symbol, (s,), result)
            return _record_result(rec, fn, (entry, rec.templates[s]), {}, result, (self,),
                                  True, symbol, False, (other, self))
        return record_call(fn, (other, self), {}, kind=symbol, rec=rec)
    op.__name__ = f"__{name}__"
    return op


def _inplace(name: str) -> Callable[[TracedArray, Any], Any]:
    fn = getattr(operator, "i" + name)
    symbol = _BINARY[name] + "="

    def op(self: TracedArray, other: Any) -> Any:
        rec = self._r
        if current.live is rec and recording_flag.on:
            cls = other.__class__
            a = self._a
            s = self._s
            if cls is TracedArray and other._r is rec and (other is self or other._a is not a):
                t = other._s
                targs: tuple[Any, ...] = (rec.templates[s], rec.templates[t])
                reads: tuple[int, ...] = (s,) if s == t else (s, t)
                result = fn(a, other._a)
                traced: tuple[Any, ...] = (self, other)
            elif cls in _NUMBER or (cls is LiveScalar and rec.hints is None):
                entry = other if cls is not LiveScalar else _live_entry(other, rec)
                targs, reads = (rec.templates[s], entry), (s,)
                result = fn(a, other if entry is other else plain(other))
                traced = (self,)
            else:
                return record_call(fn, (self, other), {}, pure=False, kind=symbol, rec=rec)
            if result is a:  # written in place: the array itself, as in eager
                rec.instrs.append(Instr((fn, targs, {}, s, False, symbol, None, reads)))
                return self
            return _record_result(rec, fn, targs, {}, result, traced, False, symbol, False,
                                  (self, other))
        return record_call(fn, (self, other), {}, pure=False, kind=symbol, rec=rec)
    op.__name__ = f"__i{name}__"
    return op


def _unary(fn: Callable[[Any], Any], kind: str) -> Callable[[TracedArray], Any]:
    def op(self: TracedArray) -> Any:
        rec = self._r
        if current.live is rec and recording_flag.on:
            a = self._a
            result = fn(a)
            s = self._s
            if result.__class__ is rec.array_type and result is not a:
                return _fresh(rec, fn, (rec.templates[s],), kind, (s,), result)
            return _record_result(rec, fn, (rec.templates[s],), {}, result, (self,), True, kind,
                                  False, (self,))
        return record_call(fn, (self,), {}, kind=kind, rec=rec)
    op.__name__ = f"__{getattr(fn, '__name__', 'abs')}__"
    return op


for _name, _symbol in _BINARY.items():
    setattr(TracedArray, f"__{_name}__", _binary(_name, _symbol))
for _name, _base in _REFLECTED.items():
    setattr(TracedArray, f"__{_name}__", _reflected(_name, _base))
for _name in _INPLACE:
    setattr(TracedArray, f"__i{_name}__", _inplace(_name))
for _name, _symbol in _UNARY.items():
    setattr(TracedArray, f"__{_name}__", _unary(getattr(operator, _name), "u" + _symbol))
_UNWRAP = frozenset({TracedArray, LiveScalar, tuple, list, dict})  # what ``unwrap`` changes
setattr(TracedArray, "__abs__", _unary(abs, "call"))
TracedArray.__hash__ = None  # type: ignore[assignment]  # arrays are unhashable

