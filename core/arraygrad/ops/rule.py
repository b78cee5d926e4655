"""One op, one rule: the rule table and the recorder every differentiable op goes through.

A *rule* is an op's entry in the table: PyTorch's node name, the names of its inputs,
what its backward reads (``saves``: input names, ``"result"`` or extra values; ``params``:
non-tensor arguments), and its reverse rule, one vector-Jacobian product per input::

    MUL = defop("MulBackward0", inputs=("self", "other"), saves=("self", "other"),
                uses=(("other",), ("self",)),
                vjp=(lambda g, n: g * n.other,      # d(self)
                     lambda g, n: g * n.self))      # d(other)

An op computes its result on native arrays, then ``MUL.record(data, backend, (a, b))``.
The recorder does, once, for every op:

- nothing at all when grad mode is off or no input requires grad;
- an edge per input (None where the input needs no gradient), and only the saved values
  the needed inputs' rules read (``uses``), version-checked at backward;
- at backward, only the needed inputs' ``vjp`` run; each gradient is summed back to its
  input's shape (undoing broadcasting) and cast back to its input's dtype;
- the choice between an optional ``first_order`` formula on raw arrays (plain backward)
  and ``vjp`` in Tensor ops, which is recorded under ``create_graph=True`` so higher-order
  derivatives work; ``ARRAYGRAD_REFERENCE=1`` (see ``ops.fast``) always takes ``vjp``;
- the node's class name (``MulBackward0``), and PyTorch's ``_saved_<name>`` attributes.

A rule's functions get ``(g, node)``: ``g`` the output's gradient (the list of them for a
rule with several outputs), ``node`` the recorded node, whose attributes are the saved
values and params by name. ``vjp`` may also be one *joint* function returning a tuple of
gradients (for ops whose input gradients share work); ``node.needs_input_grad`` then says
which are wanted.

``complex``: whether the op takes complex tensors, its formulas holding for them with
PyTorch's convention (docs/complex.md): a gradient is the conjugate Wirtinger derivative, so
the vjp of a holomorphic ``f`` is ``g * conj(f'(z))``. Every rule says so or not (the default
is not). The recorder refuses a rule that does not declare it a complex result, and, when it
would record a gradient, any complex input, with PyTorch's NotImplementedError naming the op
and the dtype (PyTorch has no complex kernel for such ops): no gradient is silently wrong.
Forward mode (below) is real only: a complex tangent raises NotImplementedError.

``jvp`` is the forward-mode rule (``autograd.forward_ad``): ``jvp(t_1, ..., t_k, node)``
gets one tangent per input (None for an input without one) and a node view like the vjp's
(saved values and params by name, ``needs_input_grad`` saying which inputs have tangents)
and returns the output's tangent (a tuple, one per output, for several outputs). Two
markers derive it from the reverse rule instead: ``ELEMENTWISE`` (a diagonal Jacobian: the
tangent is the sum of each input's vjp applied to its tangent, broadcast to the output) and
``VIA_VJP`` (any rule: ``J t`` is the gradient in ``u`` of ``<vjp(u), t>``, the
double-vjp trick, since the vjp is linear in ``u``). The recorder expands the tangent to the
output's shape and casts it to its dtype. An op reached with a tangent whose rule has no
``jvp`` raises NotImplementedError naming it.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence, TypeVar

from arraygrad.autograd import engine as _engine
from arraygrad.autograd.anomaly_mode import remember_forward, state as _anomaly
from arraygrad.autograd.forward_ad import set_tangent, state as _fw
from arraygrad.autograd.grad_mode import _state
from arraygrad.autograd.saved_hooks import _open as _hooks_open
from arraygrad.autograd.graph import (
    FREED, FREED_MESSAGE, Node, PackedSavedOutput, PackedSavedTensor, RawSavedTensor, SavedOutput,
    SavedTensor, _materialize, _sequence,
)
from arraygrad.tensor import Tensor, wrap

if TYPE_CHECKING:
    from typing import TypeAlias

    from arraygrad.autograd.graph import Edge
    from arraygrad.backends.contract import Backend

    # A rule's functions (see the module docstring). ``g``: the output's gradient, or the
    # list of them for a rule with several outputs; first-order formulas get and return
    # native arrays.
    Vjp: TypeAlias = Callable[[Any, "RuleNode"], "Tensor | None"]
    JointVjp: TypeAlias = Callable[[Any, "RuleNode"], "Tensor | None | tuple[Tensor | None, ...]"]
    FirstOrder: TypeAlias = Callable[[Any, "RuleNode", "Backend"], Any]
    JointFirstOrder: TypeAlias = Callable[[Any, "RuleNode", "Backend"], "tuple[Any, ...] | None"]
    # an input's metadata for ``finish_grad``: (shape, native dtype), or None
    Meta: TypeAlias = "tuple[tuple[int, ...], Any] | None"
    T = TypeVar("T", bound=Tensor)

__all__ = ["Rule", "RuleNode", "defop", "identity", "rules", "OUTPUT", "edge_of", "finish_grad",
           "finish_data",
           "fast_paths", "reference_mode", "ELEMENTWISE", "VIA_VJP", "refuse_complex", "bare_sum"]


class _FastPaths:
    """The one switch of every fast path (``ops.fast`` and rules' ``first_order`` formulas).

    Off when the process starts with ``ARRAYGRAD_REFERENCE=1``: then every op takes the
    general recorder and every backward its recorded ``vjp``, the reference the fast paths
    are tested against.
    """

    __slots__ = ("on",)

    def __init__(self) -> None:
        self.on = os.environ.get("ARRAYGRAD_REFERENCE", "").strip().lower() not in (
            "1", "true", "yes", "on")


fast_paths = _FastPaths()
_fw.fast_paths = fast_paths  # handed to forward_ad, which turns fast paths off inside a level


@contextmanager
def reference_mode(on: bool = True) -> Iterator[None]:
    """Within the block, fast paths are off (``on=True``) or on (``on=False``)."""
    before = fast_paths.on
    fast_paths.on = not on
    try:
        yield
    finally:
        fast_paths.on = before

_new = object.__new__
_next_seq = _sequence.__next__
_SAVED_KINDS = (SavedTensor, SavedOutput, PackedSavedTensor, PackedSavedOutput)
_PACKED = (PackedSavedTensor, PackedSavedOutput)  # saved under ``saved_tensors_hooks``

OUTPUT = "result"
"""The saved name that stands for the op's own output (kept without a reference cycle)."""

_table: dict[str, "Rule"] = {}


def rules() -> dict[str, "Rule"]:
    """The rule table: every rule defined so far, by key (its node name unless ``defop`` was
    given another ``key``)."""
    return dict(_table)


# -- the node every rule records -------------------------------------------------------

class RuleNode(Node):
    """The ``grad_fn`` a rule records. Class attributes (set by ``defop``): ``_rule``."""

    __slots__ = ("args", "_meta")
    _rule: "Rule"
    _raw_ok = True  # ``_run`` takes and returns bare arrays in the engine's plain pass
    args: dict[str, Any]
    _meta: tuple[Meta, ...]

    if TYPE_CHECKING:
        # each rule's saved values and params are properties of its node class (``defop``)
        def __getattr__(self, name: str) -> Any: ...

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        """One bool per input: whether its gradient is wanted (its edge exists)."""
        return tuple([e is not None for e in self._next])

    def input_shape(self, i: int) -> tuple[int, ...] | None:
        """The shape input ``i`` had when it differs from the result's (None when it is the
        result's shape and dtype, or the input gets no gradient)."""
        meta = self._meta[i]
        return None if meta is None else meta[0]

    def saved_data(self, name: str) -> Any:
        """The native array of saved tensor ``name`` (version-checked), with no Tensor around it:
        what ``first_order`` formulas read."""
        saved = self._saved
        if saved is FREED:
            raise RuntimeError(FREED_MESSAGE)
        s = saved[self._rule.save_index[name]]
        if s.__class__ is SavedOutput:
            if s.counter[0] == s.version:  # checked_data's test, inline: first-order hot path
                return s.data
            return s.checked_data(self)  # raises "modified by an inplace operation"
        if s.__class__ is SavedTensor:
            t = s.tensor
            vc = t._vc  # ``unpack``'s version test inline, as for ``SavedOutput`` above
            if (0 if vc is None else vc[0]) == s.version:
                return t._data
            return s.unpack(self)._data  # raises "modified by an inplace operation"
        if s.__class__ in _PACKED:
            return s.unpack(self)._data
        return s._data if isinstance(s, Tensor) else s

    def _apply(self, grads: list[Any]) -> tuple[Tensor | None, ...]:
        """Run the rule: the needed inputs' vjps (or first-order array formulas), each
        gradient finished (summed back to its input's shape, cast to its dtype)."""
        return self._run(grads, None)

    def _run(self, grads: list[Any], task: Any, raw: Backend | None = None) -> tuple[Any, ...]:
        """The one run loop of every rule's node (``Node._run`` with the rule inline: one call
        per node on the engine's hot path): the freed-graph check, zeros for missing output
        gradients, then per needed input its first-order array formula (plain backward, fast
        paths on; the formula may answer None: "take the vjp") or its vjp, each gradient
        finished (``finish_data`` on arrays, ``finish_grad`` on tensors).

        ``raw``: the backend whose gradients the engine's plain pass hands from node to node
        as bare native arrays (``engine._walk``): a gradient arriving may be such an array,
        and a first-order result of that backend is returned bare, not wrapped in a tensor.
        None (every other caller, hooks' wrappers included): tensors in, tensors out."""
        if self._saved is FREED:
            raise RuntimeError(FREED_MESSAGE)
        rule = self._rule
        single = rule.outputs == 1
        if not single and any(g is None for g in grads):  # (not `in`: arrays compare by value)
            grads = _materialize(self, grads)
        g: Any
        if single:
            g = grads[0]
            if isinstance(g, Tensor):
                backend = g._backend
                gd = g._data
            else:  # a bare array of the pass's backend: wrapped only if a vjp needs it
                # (the engine passes bare arrays only with ``raw``)
                backend = raw  # type: ignore[assignment]
                gd = g
                g = None
        else:
            g, gd, backend = _gradients(grads, raw)
        bare = raw is not None and backend is raw  # first-order results go on as arrays
        kind = backend.array_type if bare else None  # (``_bare``'s test inline)
        first = rule.first_order
        plain = not _state.enabled and fast_paths.on  # first order: arrays may serve
        arrays = plain and first is not None
        meta = self._meta
        edges = self._next
        out: list[Any] = []
        if rule.joint:
            found: Any = None
            if arrays:
                found = first(gd, self, backend)
            if found is not None:
                for e, r, m in zip(edges, found, meta):
                    if e is None or r is None:
                        out.append(None)
                        continue
                    if m is not None and (r.shape != m[0] or r.dtype != m[1]):
                        r = finish_data(r, m, backend)
                    out.append((r if type(r) is kind else _bare(r, backend)) if bare
                               else wrap(r, backend))
                return tuple(out)
            if g is None:
                g = _as_tensors(gd, backend, grads, raw, single)
            found = rule.vjp(g, self)
            if type(found) is not tuple:
                found = (found,)
            for e, gi, m in zip(edges, found, meta):
                out.append(None if e is None or gi is None else
                           gi if m is None else finish_grad(gi, m))
            return tuple(out)
        i = 0
        for e in edges:
            if e is None:
                out.append(None)
                i += 1
                continue
            m = meta[i]
            if arrays:
                f = first[i]
                r = None if f is None else f(gd, self, backend)
                if r is not None:
                    if m is not None and (r.shape != m[0] or r.dtype != m[1]):
                        r = finish_data(r, m, backend)
                    out.append((r if type(r) is kind else _bare(r, backend)) if bare
                               else wrap(r, backend))
                    i += 1
                    continue
            f = rule.vjp[i]
            if f is identity:
                # ``g`` itself (as it came: a bare array stays bare): finished on its array
                # when nothing is recorded (the bias of ``h @ W + b``: one sum, no node)
                if m is not None and (gd.shape != m[0] or gd.dtype != m[1]):
                    if plain:
                        r = finish_data(gd, m, backend)
                        out.append((r if type(r) is kind else _bare(r, backend)) if bare
                                   else wrap(r, backend))
                    else:
                        if g is None:
                            g = _as_tensors(gd, backend, grads, raw, single)
                        out.append(finish_grad(g, m))
                else:
                    out.append(gd if g is None else g)
            else:
                if g is None:
                    g = _as_tensors(gd, backend, grads, raw, single)
                gi = f(g, self)
                out.append(gi if m is None or gi is None else finish_grad(gi, m))
            i += 1
        return tuple(out)


def _as_tensors(gd: Any, backend: Backend, grads: Sequence[Any], raw: Backend | None,
                single: bool) -> Any:
    """What a vjp takes when some gradient came bare: the single gradient ``gd`` wrapped, or
    a multi-output node's ``grads`` with their bare arrays wrapped (``_tensors``)."""
    return wrap(gd, backend) if single else _tensors(grads, raw)


def _bare(r: Any, backend: Backend) -> Any:
    """A first-order result as the engine passes it bare: the backend's own array type
    (``wrap``'s coercion: NumPy's 0-d operations answer NumPy scalars)."""
    kind = backend.array_type
    return r if type(r) is kind or kind is None else backend.coerce(r)


def _gradients(grads: Sequence[Any], raw: Backend | None) -> tuple[Any, list[Any], Backend]:
    """A multi-output node's gradients (tensors, or bare arrays of ``raw``): ``(tensors or
    None, arrays, backend)``, the tensors None when some came bare (wrapped if a vjp needs
    them: ``_run``), the backend that of the first that arrived."""
    datas: list[Any] = []
    backend: Any = None
    all_tensors = True
    for g in grads:
        if g is None:
            datas.append(None)
        elif isinstance(g, Tensor):
            datas.append(g._data)
            if backend is None:
                backend = g._backend
        else:
            datas.append(g)
            all_tensors = False
            if backend is None:
                backend = raw
    if backend is None:
        raise RuntimeError("no gradient reached a multi-output node")
    return (grads if all_tensors else None), datas, backend


def _tensors(grads: Sequence[Any], raw: Any) -> list[Any]:
    """Gradients as tensors: the bare arrays among them wrapped as ``raw``'s (for a vjp, and
    the engine's ``BareGradients.tensors``: a node that takes tensors)."""
    return [g if g is None or isinstance(g, Tensor) else wrap(g, raw) for g in grads]


def _bare_backend(root_grads: Sequence[Any]) -> Backend | None:
    """The backend whose gradients a plain pass starting now hands on bare
    (``engine.BareGradients``): the first root gradient's, when fast paths are on, no
    forward-AD level is open (its sums carry tangents) and that gradient is a dense tensor;
    else None (tensors throughout)."""
    if not fast_paths.on or _fw.on or not root_grads:
        return None
    g = root_grads[0]
    return g._backend if g.__class__ is Tensor else None


def bare_sum(a: Any, b: Any, backend: Backend) -> Any:
    """Two gradients reaching one input, each a tensor or a bare array of ``backend``: summed
    bare (an array) when both are that backend's dense arrays (a plain tensor's array counts)
    of one shape and floating dtype; anything else as tensors, ``a + b`` with its promotion
    and broadcasting (a tensor). The engine's plain pass sums with it, and
    ``ops.fast.gradient_sum`` (tensors in any other pass) on its arrays."""
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    da = a if not ta else a._data if a.__class__ is Tensor and a._backend is backend else None
    db = b if not tb else b._data if b.__class__ is Tensor and b._backend is backend else None
    if da is not None and db is not None and da.shape == db.shape and da.dtype == db.dtype \
            and da.dtype in backend.floating_natives:
        return _bare(da + db, backend)
    return (a if ta else wrap(a, backend)) + (b if tb else wrap(b, backend))


_bare_gradients = _engine.bare_gradients
_bare_gradients.backend = _bare_backend
_bare_gradients.sum = bare_sum
_bare_gradients.tensors = _tensors


class _Finishers:
    """The two ops ``finish_grad`` records with, themselves rules: ``sum_to`` (set by
    ``ops.broadcast``) and ``to_native`` (set by ``ops.casting``) when those load, and their
    array forms ``finish_data`` uses (``sum_to_data``, ``convert``). Handed in, not imported,
    so the recorder sits below every op module in the import graph."""

    sum_to: Callable[..., Tensor]
    to_native: Callable[..., Tensor]
    sum_to_data: Callable[..., Any]
    convert: Callable[..., Any]


finishers = _Finishers()


def finish_grad(g: Tensor | None, meta: Meta) -> Tensor | None:
    """An input's gradient as the recorder hands it on: summed back to the input's shape
    (undoing broadcasting) and cast back to its dtype. ``meta`` is ``(shape, native dtype)``."""
    if g is None or meta is None:
        return g
    shape, native = meta
    data = g._data
    if data.shape != shape:
        g = finishers.sum_to(g, shape)
        data = g._data
    if data.dtype != native:
        g = finishers.to_native(g, native)
    return g


def finish_data(r: Any, meta: Meta, backend: Backend) -> Any:
    """``finish_grad`` on a first-order formula's native array: summed back to the input's
    shape and cast back to its dtype, nothing recorded."""
    shape, native = meta  # type: ignore[misc]  # callers pass a meta
    if r.shape != shape:
        r = finishers.sum_to_data(backend.xp, r, shape)
    if r.dtype != native:
        r = finishers.convert(backend, r, native)
    return r


def _saved_property(index: int, name: str) -> property:
    def get(node: RuleNode) -> Any:
        saved = node._saved
        if saved is FREED:
            raise RuntimeError(FREED_MESSAGE)
        s = saved[index]
        return s.unpack(node) if s.__class__ in _SAVED_KINDS else s

    return property(get, doc=f"The saved value ``{name}`` (version-checked).")


def _raw_saved_property(index: int, name: str) -> property:
    def get(node: RuleNode) -> Any:
        saved = node._saved
        if saved is FREED:
            raise RuntimeError(FREED_MESSAGE)
        return RawSavedTensor(node, index) if saved[index].__class__ in _SAVED_KINDS else None

    return property(get, doc=f"The saved value ``{name}`` itself, to ``register_hooks`` on.")


_REQUIRED = object()
_NO_ARGS: dict[Any, Any] = {}  # the args of a node recorded without params (shared: never written)


def _param_property(name: str, default: Any = _REQUIRED) -> property:
    if default is _REQUIRED:
        def get(node: RuleNode) -> Any:
            return node.args[name]
    else:
        def get(node: RuleNode) -> Any:
            return node.args.get(name, default)

    return property(get, doc=f"The op's argument ``{name}``.")


# -- rules ------------------------------------------------------------------------------

class Rule:
    """One differentiable op in the rule table; ``record`` links its node to a result.

    Fields: ``name`` (the node's class name, PyTorch's: ``"MulBackward0"``), ``inputs``
    (names, in the order ``record`` receives them and gradients are returned), ``saves``,
    ``params``, ``uses`` (per input: the saved names its vjp reads; None: all), ``vjp``,
    ``first_order``, ``jvp``, ``outputs``, ``joint``, and ``node`` (the node class).
    """

    __slots__ = ("name", "inputs", "saves", "params", "uses", "vjp", "first_order", "jvp",
                 "outputs", "joint", "exact", "complex", "node", "save_index", "_input_slot",
                 "_extra_saves", "_plans", "_no_meta")

    name: str
    inputs: tuple[str, ...]
    saves: tuple[str, ...]
    params: tuple[str, ...]
    uses: tuple[frozenset[int], ...] | None
    vjp: Any  # JointVjp when ``joint``, else tuple[Vjp, ...]
    first_order: Any  # None, JointFirstOrder when ``joint``, else tuple[FirstOrder | None, ...]
    jvp: "Callable[..., Any] | _Marker | None"
    outputs: int
    joint: bool
    exact: bool
    complex: bool
    node: type[RuleNode]
    save_index: dict[str, int]
    _input_slot: tuple[int | None, ...]
    _extra_saves: tuple[str, ...]
    _plans: dict[int, tuple[int | str | None, ...]]
    _no_meta: tuple[None, ...]

    def __init__(self, name: str, *, inputs: Sequence[str],
                 vjp: Any, saves: Sequence[str] = (),  # JointVjp | Sequence[Vjp]
                 params: Sequence[str] | dict[str, Any] = (),
                 uses: Sequence[Sequence[str]] | None = None,
                 first_order: JointFirstOrder | Sequence[FirstOrder | None] | None = None,
                 jvp: "Callable[..., Any] | _Marker | None" = None, outputs: int = 1,
                 exact: bool = False, complex: bool = False,
                 base: type[RuleNode] | None = None) -> None:
        self.name = name
        self.inputs = tuple(inputs)
        self.saves = tuple(saves)
        self.save_index = {name: i for i, name in enumerate(self.saves)}
        # params: names, or a mapping of names to defaults (a call may leave those out)
        defaults = dict(params) if isinstance(params, dict) else dict.fromkeys(params, _REQUIRED)
        self.params = tuple(defaults)
        self.joint = callable(vjp)
        if not self.joint and len(vjp) != len(self.inputs):
            raise ValueError(f"rule {name}: {len(vjp)} vjp functions for {len(self.inputs)} inputs")
        self.vjp = vjp if self.joint else tuple(vjp)
        self.first_order = first_order if first_order is None or callable(first_order) \
            else tuple(first_order)
        self.jvp = jvp
        self.outputs = outputs
        # exact: every gradient the rule gives has its input's shape and dtype, so with fast
        # paths on the recorder keeps no input metadata (reference mode checks the claim:
        # there finish_grad sees the real shapes)
        self.exact = exact
        # complex: the formulas hold for complex tensors (PyTorch's convention); a rule that
        # does not say so is refused complex operands when recorded (``refuse_complex``)
        self.complex = bool(complex)
        self._no_meta = (None,) * len(self.inputs)
        self.uses = None if uses is None else tuple(
            frozenset(self.saves.index(n) for n in names) for names in uses)
        # where each saved name comes from: an input's position, the output, or a keyword
        self._input_slot = tuple(self.inputs.index(n) if n in self.inputs else
                                 (-1 if n == OUTPUT else None) for n in self.saves)
        self._extra_saves = tuple(n for n, slot in zip(self.saves, self._input_slot)
                                  if slot is None)
        self._plans = {}  # save plans by needed-inputs mask (``_save_plan``)
        if base is None:
            base = RuleNode
        attrs: dict[str, Any] = {"__slots__": (), "_rule": self, "__module__": __name__}
        for i, n in enumerate(self.saves):
            attrs[n] = attrs[f"_saved_{n}"] = _saved_property(i, n)
            attrs[f"_raw_saved_{n}"] = _raw_saved_property(i, n)
        for n, default in defaults.items():
            attrs[n] = attrs[f"_saved_{n}"] = _param_property(n, default)
        for n in attrs:
            if n in ("__slots__", "_rule", "__module__"):
                continue
            if hasattr(base, n):
                raise ValueError(f"rule {name}: the name {n!r} would hide Node.{n}")
        self.node = type(name, (base,), attrs)

    def __repr__(self) -> str:
        return f"<rule {self.name}({', '.join(self.inputs)})>"

    def record(self, data: Any, backend: Backend, inputs: Sequence[Any], like: bool = False, /,
               **named: Any) -> Tensor:
        """Wrap ``data`` as the op's result and, when a gradient is needed, link a node.

        ``inputs``: the operands in the rule's ``inputs`` order (Tensors, or numbers and
        None for operands without a gradient); ``named``: the rule's ``params`` and its
        extra saved values by name. ``like``: the caller vouches that every tensor input has
        the result's shape and real floating dtype (``ops.fast.binary``'s operands): the node
        then keeps no input metadata and no input's dtype is tested for complex.
        """
        out = wrap(data, backend)
        dtype = data.dtype
        if not self.complex and dtype in backend.complex_natives:
            refuse_complex(self, inputs, (data,), backend)
        fw = _fw.on
        if fw:
            out._fw_grads = {}  # now, so that a ``SavedOutput`` made by ``_link`` shares it
        # an integer or bool result has no gradient (PyTorch: ``x.int()`` of a tensor that
        # requires grad does not); ``_link`` links nothing when no input requires grad, and
        # refuses complex inputs of a rule not declaring complex support in its own loop
        if _state.enabled and dtype in backend.differentiable_natives:
            self._link(inputs, named, out, None if self.complex or like else backend, like)
        if fw and dtype in backend.differentiable_natives:
            # after ``_link``: a tangent computed from the output (exp's ``t * out``) then
            # depends on the inputs through it, for reverse-over-forward (grad of a jvp)
            self._forward(inputs, named, (out,))
        return out

    def record_result(self, out: T, inputs: Sequence[Any], **named: Any) -> T:
        """``record`` for a result made already, whose data is not one native array (a sparse
        tensor's indices and values): link the node to ``out`` when a gradient is needed."""
        if _fw.on:
            out._fw_grads = {}
        if _state.enabled and out.dtype.is_floating_point and any(
                isinstance(t, Tensor) and t._requires_grad for t in inputs):
            self._link(inputs, named, out)
        if _fw.on and out.dtype.is_floating_point:
            self._forward(inputs, named, (out,))
        return out

    def record_many(self, datas: Sequence[Any], backend: Backend, inputs: Sequence[Any],
                    differentiable: Sequence[bool] | None = None,
                    **named: Any) -> tuple[Tensor, ...]:
        """``record`` for a rule with several outputs (``split``, ``max`` with indices).

        ``differentiable``: which outputs carry gradients (default all)."""
        outs = tuple([wrap(d, backend) for d in datas])
        if not self.complex:
            refuse_complex(self, (), datas, backend)
        fw = _fw.on
        linking = _state.enabled and any(isinstance(t, Tensor) and t._requires_grad
                                         for t in inputs)
        if not (linking or fw):  # nothing to link or to carry a tangent: the outputs alone
            return outs
        floating = backend.differentiable_natives
        if not all(d.dtype in floating for d in datas):  # integer outputs carry no gradient
            differentiable = tuple((differentiable is None or differentiable[i])
                                   and d.dtype in floating for i, d in enumerate(datas))
        if fw:
            for o in outs:
                o._fw_grads = {}  # as in ``record``
        if linking:
            if not self.complex:
                refuse_complex(self, inputs, datas, backend)
            node = self._link(inputs, named, None)
            assert node is not None  # an input requires grad (tested above)
            node._out_meta = tuple((o._data.shape, o._data.dtype, backend) for o in outs)
            node._n_outputs = len(outs)
            for i, out in enumerate(outs):
                if differentiable is None or differentiable[i]:
                    out._grad_fn = node
                    out._requires_grad = True
                    out._output_nr = i
        if fw:  # after linking, as in ``record``
            self._forward(inputs, named, outs, differentiable)
        return outs

    def _link(self, inputs: Sequence[Any], named: dict[str, Any], out: Tensor | None,
              refusing: Backend | None = None, like: bool = False) -> RuleNode | None:
        """The one node factory: every recorded op's node is made here, with its edges, its
        inputs' metadata for ``finish_grad``, its saved values and params, and linked as
        ``out``'s ``grad_fn`` when given; None, nothing linked, when no input requires grad.

        ``refusing``: the backend whose complex inputs are refused (``refuse_complex``, raised
        before the node exists), for a rule that does not declare complex support. ``like``:
        the inputs have the result's shape and dtype (``record``): no metadata to keep."""
        natives = None if refusing is None else refusing.complex_natives
        meta: tuple[Meta, ...]
        edges: Any
        n_inputs = len(inputs)
        if n_inputs == 1:  # one input, most ops: no loop
            t = inputs[0]
            if not isinstance(t, Tensor) or not t._requires_grad:
                return None
            d = t._data
            if natives is not None and d.dtype in natives:
                refuse_complex(self, inputs, (), refusing)  # type: ignore[arg-type]  # raises
            fn = t._grad_fn  # ``edge_of``'s commonest case inline: a node's output 0
            edges = (fn if fn is not None and t._view is None and not t._output_nr
                     else edge_of(t),)
            needed = 1
            meta = self._no_meta if self.exact and fast_paths.on else ((d.shape, d.dtype),)
        elif n_inputs == 2:  # two, the binary operators: no loop either
            a, b = inputs
            ra = isinstance(a, Tensor) and a._requires_grad
            rb = isinstance(b, Tensor) and b._requires_grad
            if not (ra or rb):
                return None
            if natives is not None and (isinstance(a, Tensor) and a._data.dtype in natives or
                                        isinstance(b, Tensor) and b._data.dtype in natives):
                refuse_complex(self, inputs, (), refusing)  # type: ignore[arg-type]  # raises
            # ``edge_of``'s commonest case inline: a node's output 0 (the chain of ops)
            ea = eb = None
            if ra:
                fn = a._grad_fn
                ea = fn if fn is not None and a._view is None and not a._output_nr \
                    else edge_of(a)
            if rb:
                fn = b._grad_fn
                eb = fn if fn is not None and b._view is None and not b._output_nr \
                    else edge_of(b)
            edges = (ea, eb)
            needed = (1 if ra else 0) | (2 if rb else 0)
            if like or self.exact and fast_paths.on:
                meta = self._no_meta
            else:
                meta = ((a._data.shape, a._data.dtype) if ra else None,
                        (b._data.shape, b._data.dtype) if rb else None)
        else:
            edges, needed, meta = self._edges(inputs, natives)
            if not needed:
                return None
            if edges is None:  # a complex input
                refuse_complex(self, inputs, (), refusing)  # type: ignore[arg-type]  # raises
        node = _new(self.node)  # ``Node.__init__``'s work without its call
        node._seq = _next_seq()
        if _anomaly.enabled:
            remember_forward(node)
        node._next = edges
        if out is not None:
            out._grad_fn = node
            out._requires_grad = True
        node._meta = meta
        extras = self._extra_saves
        # params stay on the node; extra saved values go to ``_saved`` only, so releasing
        # the graph frees them
        node.args = ({k: v for k, v in named.items() if k not in extras} if extras else
                     named or _NO_ARGS)
        if not self.saves:
            node._saved = ()
            return node
        plan = self._plans.get(needed)
        if plan is None:
            plan = self._plans[needed] = self._save_plan(needed)
        packing = _hooks_open.hooks  # saved_tensors_hooks open somewhere: every save packs
        kept: list[Any] = []
        for src in plan:
            if src is None:
                kept.append(None)
                continue
            if isinstance(src, str):
                v = named[src]  # an extra's name
            elif src < 0:
                # only single-output rules save OUTPUT, and they pass ``out``
                kept.append(SavedOutput(out))  # type: ignore[arg-type]
                continue
            else:
                v = inputs[src]
            if isinstance(v, Tensor):
                if packing or v._inference:
                    v = SavedTensor(v)  # packs it, or refuses an inference tensor
                else:  # ``SavedTensor(v)``'s two fields without its call: most ops save inputs
                    saved = _new(SavedTensor)
                    saved.tensor = v
                    vc = v._vc
                    saved.version = 0 if vc is None else vc[0]
                    v = saved
            kept.append(v)
        node._saved = tuple(kept)
        return node

    def _edges(self, inputs: Sequence[Any],
               natives: Any) -> tuple[tuple[Edge | None, ...] | None, int, tuple[Meta, ...]]:
        """``_link``'s loop over several inputs: ``(edges, needed, meta)``, ``needed`` the bit
        mask of the inputs that need a gradient; ``edges`` is None when ``natives`` (complex
        dtypes to refuse) is given and an input has one of them."""
        edges = []
        needed = 0  # bit i: input i needs a gradient
        bit = 1
        complex_input = False
        meta: tuple[Meta, ...]
        if self.exact and fast_paths.on:
            # the rule's gradients come in their inputs' shapes and dtypes: nothing to finish
            meta = self._no_meta
            for t in inputs:
                if isinstance(t, Tensor):
                    if natives is not None and t._data.dtype in natives:
                        complex_input = True
                    if t._requires_grad:
                        edges.append(edge_of(t))
                        needed |= bit
                        bit <<= 1
                        continue
                edges.append(None)
                bit <<= 1
        else:
            found: list[Meta] = []
            for t in inputs:
                if isinstance(t, Tensor):
                    d = t._data
                    if natives is not None and d.dtype in natives:
                        complex_input = True
                    if t._requires_grad:
                        edges.append(edge_of(t))
                        needed |= bit
                        found.append((d.shape, d.dtype))
                        bit <<= 1
                        continue
                edges.append(None)
                found.append(None)
                bit <<= 1
            meta = tuple(found)
        return None if complex_input else tuple(edges), needed, meta

    def _forward(self, inputs: Sequence[Any], named: dict[str, Any], outs: tuple[Tensor, ...],
                 differentiable: Sequence[bool] | None = None) -> None:
        """Forward mode: give ``outs`` their tangents when an input has one at the open dual
        level."""
        dual_level = _fw.dual_level
        tangents: list[Any] = []
        found = False
        for t in inputs:
            grads = t._fw_grads if isinstance(t, Tensor) else None
            tan = None if grads is None else grads.get(dual_level)
            found = found or tan is not None
            tangents.append(tan)
        if not found:
            return
        if any(t is not None and t._data.dtype in t._backend.complex_natives for t in tangents) \
                or any(o._data.dtype in o._backend.complex_natives for o in outs):
            raise NotImplementedError(
                f"{op_name(self.name)}: forward-mode AD of complex tensors is not supported "
                "(arraygrad's complex autograd is reverse mode: docs/complex.md)")
        jvp = self.jvp
        if jvp is None:
            raise NotImplementedError(
                f"Trying to use forward AD with {op_name(self.name)} that does not support it "
                "because it has not been implemented yet.")
        node = self._jvp_node(inputs, named, outs, tangents)
        _fw.on = False  # a tangent's own computation carries no tangent
        try:
            if jvp is ELEMENTWISE:
                result: Any = _elementwise_jvp(self, node, tangents, outs[0])
            elif jvp is VIA_VJP:
                result = _transpose_jvp(self, node, tangents, outs, differentiable)
            else:
                result = jvp(*tangents, node)  # type: ignore[operator]  # a function here
            if len(outs) == 1:
                result = (result,)
            finished = [None if r is None or (differentiable is not None and not differentiable[i])
                        else _fit_tangent(r, o) for i, (r, o) in enumerate(zip(result, outs))]
        finally:
            _fw.on = True
        for o, r in zip(outs, finished):
            if r is not None and o._data.dtype in o._backend.differentiable_natives:
                set_tangent(o, r, dual_level)

    def _jvp_node(self, inputs: Sequence[Any], named: dict[str, Any], outs: tuple[Tensor, ...],
                  tangents: list[Any]) -> RuleNode:
        """A node of this rule standing for the op, for its ``jvp``/``vjp`` to read: the saved
        values are the inputs, ``outs[0]`` and the extras themselves; ``needs_input_grad``
        says which inputs have tangents."""
        node = _new(self.node)
        node._next = tuple([None if t is None else True for t in tangents])  # type: ignore[misc]
        # ELEMENTWISE hands its vjps tangents of the output's shape: nothing to contract
        node._meta = self._no_meta if self.jvp is ELEMENTWISE else tuple(
            [(t._data.shape, t._data.dtype) if isinstance(t, Tensor) else None for t in inputs])
        extras = self._extra_saves
        node.args = {k: v for k, v in named.items() if k not in extras}
        values = dict(named)
        # outputs saved after ``record_many`` returns (``U=_PENDING``...) are, in order, ``outs``
        pending = [k for k, v in named.items() if type(v) is object]
        values.update(zip(pending, outs))
        node._saved = tuple([outs[0] if slot == -1 else values.get(name) if slot is None
                             else inputs[slot] for name, slot in zip(self.saves, self._input_slot)])
        return node

    def _save_plan(self, needed: int) -> tuple[int | str | None, ...]:
        """Where each saved value comes from when the inputs in bit mask ``needed`` need a
        gradient: an input's position, -1 (the result), an extra's name, or None (not kept:
        no needed input's vjp reads it, by ``uses``)."""
        wanted: set[int] | None = None
        if self.uses is not None:
            wanted = set()
            for i, used in enumerate(self.uses):
                if needed >> i & 1:
                    wanted |= used
        return tuple(None if wanted is not None and i not in wanted else
                     (name if slot is None else slot)
                     for i, (name, slot) in enumerate(zip(self.saves, self._input_slot)))


def defop(name: str, *, inputs: Sequence[str] = ("self",),
          vjp: JointVjp | Sequence[Vjp | None], saves: Sequence[str] = (),
          params: Sequence[str] | dict[str, Any] = (),
          uses: Sequence[Sequence[str]] | None = None,
          first_order: JointFirstOrder | Sequence[FirstOrder | None] | None = None,
          jvp: "Callable[..., Any] | _Marker | None" = None,
          outputs: int = 1, exact: bool = False, complex: bool = False,
          key: str | None = None) -> Rule:
    """Define an op's rule and add it to the table (see the module docstring).

    ``vjp``: one function ``(g, node) -> Tensor`` per input (None for an input that never
    has a gradient), or one joint function returning a tuple. ``first_order``: the same
    shape on arrays, ``(g_array, node, backend) -> array``, used for plain (not
    ``create_graph``) backward. ``uses``: per input, the saved names its ``vjp`` reads, so
    only those are kept. ``jvp``: the forward-mode rule, a function or the
    marker ``ELEMENTWISE`` or ``VIA_VJP``. ``exact``: the rule
    promises gradients in their inputs' shapes and dtypes (the recorder then keeps no input
    metadata while fast paths are on). ``complex``: the rule's formulas (vjp and
    first_order) hold for complex tensors with PyTorch's convention (a rule that does not
    declare it is refused complex operands when recorded). ``key``: the rule's
    entry in the table, default ``name``; two rules whose nodes PyTorch names alike (``mm``
    and a bias-free ``linear`` both show ``MmBackward0``) need distinct keys. A key defined
    twice is a ValueError: one op, one rule.
    """
    key = name if key is None else key
    if key in _table:
        raise ValueError(f"defop: a rule {key!r} exists already ({_table[key]!r}); give this "
                         "one another key")
    vjp = vjp if callable(vjp) else tuple(_never if f is None else f for f in vjp)
    rule = Rule(name, inputs=inputs, vjp=vjp, saves=saves, params=params, uses=uses,
                first_order=first_order, jvp=jvp, outputs=outputs, exact=exact, complex=complex)
    _table[key] = rule
    return rule


class _Marker:
    """A ``jvp`` derived from the rule's reverse rule (see the module docstring)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


ELEMENTWISE = _Marker("ELEMENTWISE")
VIA_VJP = _Marker("VIA_VJP")


def op_name(node_name: str) -> str:
    """PyTorch's op name for a node name, as its forward-AD error shows it: ``"MulBackward0"``
    gives ``"mul"``, ``"LinalgSvdBackward0"`` ``"linalg_svd"``."""
    base = node_name.split("Backward")[0] if "Backward" in node_name else node_name
    out = []
    for i, c in enumerate(base):
        if c.isupper() and i and not base[i - 1].isupper():
            out.append("_")
        out.append(c.lower())
    return "".join(out)


def _fit_tangent(t: Tensor, out: Tensor) -> Tensor:
    """A rule's tangent as the output's: broadcast to its shape, cast to its dtype."""
    if t._data.shape != out._data.shape:
        t = t.expand(tuple(out._data.shape))
    if t._data.dtype != out._data.dtype:
        t = t.to(out.dtype)
    return t


def _elementwise_jvp(rule: Rule, node: RuleNode, tangents: list[Any], out: Tensor) -> Any:
    """``ELEMENTWISE``: a diagonal Jacobian is its own transpose, so each input's share is its
    vjp applied to its tangent broadcast to the output's shape."""
    shape = tuple(out._data.shape)
    total = None
    flags = node._next
    for i, tan in enumerate(tangents):
        if tan is None:
            continue
        if tuple(tan._data.shape) != shape:
            tan = tan.expand(shape)
        if rule.joint:
            node._next = tuple([True if j == i else None for j in range(len(flags))])  # type: ignore[misc]
            got = rule.vjp(tan, node)
            node._next = flags
            part = got[i] if type(got) is tuple else got
        else:
            f = rule.vjp[i]
            part = tan if f is identity else f(tan, node)
        if part is not None:
            total = part if total is None else total + part
    return total


def _transpose_jvp(rule: Rule, node: RuleNode, tangents: list[Any], outs: tuple[Tensor, ...],
                   differentiable: Sequence[bool] | None) -> Any:
    """``VIA_VJP``: ``J t`` as the gradient in ``u`` of ``<vjp(u), t>`` (the vjp is linear in
    ``u``; the graph is kept so the tangent is itself differentiable)."""
    from arraygrad.autograd.api import grad
    from arraygrad.autograd.grad_mode import enable_grad

    def zeros_like(o: Tensor) -> Tensor:  # the array's zeros (creation sits above the recorder)
        return wrap(o._backend.xp.zeros_like(o._data), o._backend)

    us = [zeros_like(o).requires_grad_() if o._data.dtype in o._backend.differentiable_natives and
          (differentiable is None or differentiable[i]) else zeros_like(o)
          for i, o in enumerate(outs)]
    with enable_grad():
        g: Any = us[0] if rule.outputs == 1 else list(us)
        if rule.joint:
            got = rule.vjp(g, node)
            parts = got if type(got) is tuple else (got,)
        else:
            parts = tuple([None if tan is None else
                           (g if f is identity else f(g, node))
                           for f, tan in zip(rule.vjp, tangents)])
        total: Any = None
        for part, tan in zip(parts, tangents):
            if part is None or tan is None:
                continue
            term = (part * tan).sum()
            total = term if total is None else total + term
        wanted = [u for u in us if u._requires_grad]
        if total is None or not total._requires_grad:
            found: Any = [None] * len(wanted)
        else:
            found = grad(total, wanted, create_graph=True, allow_unused=True)
    it = iter(found)
    result = [(next(it) if u._requires_grad else None) for u in us]
    result = [zeros_like(o) if r is None and u._requires_grad else r
              for r, u, o in zip(result, us, outs)]
    return result[0] if len(outs) == 1 else tuple(result)


def refuse_complex(rule: Rule, inputs: Sequence[Any], datas: Sequence[Any],
                   backend: Backend) -> None:
    """PyTorch's NotImplementedError when a rule that does not declare complex support meets a
    complex input or output (nothing when none is complex)."""
    natives = backend.complex_natives
    for t in inputs:
        if isinstance(t, Tensor) and t._data.dtype in natives:
            found = t._data.dtype
            break
    else:
        for d in datas:
            if d.dtype in natives:
                found = d.dtype
                break
        else:
            return
    from arraygrad.dtypes import scalar_type_name

    raise NotImplementedError(
        f"\"{op_name(rule.name)}\" not implemented for "
        f"'{scalar_type_name(backend.arraygrad_dtype(found))}': its rule {rule.name} does not "
        "declare complex support (docs/complex.md)")


def _never(g: Any, node: RuleNode) -> None:
    return None


def identity(g: Tensor, node: RuleNode) -> Tensor:
    """The vjp of an input whose gradient is the output's (``add``'s): the one- and two-input
    nodes hand ``g`` on without calling it."""
    return g


# -- edges and nodes -----------------------------------------------------------------------

def edge_of(t: Tensor | None) -> Edge | None:
    """``t``'s gradient edge (None if it needs no gradient), inlining the common cases: a
    non-view output of a node, and a leaf whose ``AccumulateGrad`` already exists."""
    if t is None or not t._requires_grad:
        return None
    fn = t._grad_fn
    if t._view is None:
        if fn is not None:
            nr = t._output_nr
            return fn if nr == 0 else (fn, nr)  # compact form for output 0
        ref = t._acc_ref
        if ref is not None:
            acc = ref()
            if acc is not None:
                return acc
    fn, nr = t._gradient_edge()  # type: ignore[misc]  # t requires grad: it has an edge
    return fn if nr == 0 else (fn, nr)
