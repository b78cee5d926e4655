"""The state of the function transforms, at the bottom of the house.

The layers below the transforms (ops, the recorder, autograd, random) read whether a
transform is running, and run the hooks a transform installs, from here; the transforms
themselves (``arraygrad.func``, ``autograd.forward_ad``, ``arraygrad.compile``) keep their
behaviour in their own modules and register it here from above. This module imports
nothing from arraygrad, so every layer may import it without a cycle.

Words: a vmap call's batch is a *level* (``vmap_levels``); forward AD's integer is a
*dual level* (PyTorch's ``fwAD.dual_level``); one call of a gradient transform (``grad``,
``vjp``, ``jacrev``) is a *scope* (``func._scope``).

Each transform has its own section below.
"""

from __future__ import annotations

import functools
import operator
import weakref
from typing import Any, Callable, TypeVar

__all__ = ["find_transform", "transform", "vmap_levels", "indexed_input", "draws", "DualState",
           "dual", "RecordingFlag", "recording_flag", "compile_hooks", "compile_epochs",
           "replay_unit", "unit_function", "ReplayUnit"]


# -- the transforms themselves, for the layers below them ------------------------------------

find_transform: Callable[[str], Callable[..., Any]] | None = None
"""``arraygrad.func``'s transform of a name (``"vmap"``, ``"jacfwd"``), for the layers below it
that map with one (``autograd.grad(is_grads_batched=True)``, ``jacobian(vectorize=True)``,
``gradcheck``'s batched checks): the package root installs it when imported (its lazy
attribute ``func``: the transforms are imported on first use)."""


def transform(name: str) -> Callable[..., Any]:
    """``arraygrad.func``'s transform ``name`` (``find_transform``'s answer)."""
    if find_transform is None:  # only a module loaded without its package root gets here
        raise RuntimeError(f"arraygrad.func.{name} is not available before `import arraygrad`")
    return find_transform(name)


# -- vmap levels -------------------------------------------------------------------------------

vmap_levels: list[Any] = []
"""The ``BatchingBackend``s of the ``vmap`` calls running now, outermost first (pushed and
popped by ``arraygrad.func._vmap``, which installs the hooks below while any runs)."""

draws: Callable[[Any], Any] | None = None
"""While a ``vmap`` call runs: the native generator random ops draw from, given the
``arraygrad.Generator`` they would use (``arraygrad.random.generator_for`` asks): the
innermost call's, which draws per sample, once for all, or refuses (its ``randomness``)."""

indexed_input: Callable[[Any, tuple[Any, ...]], Any] | None = None
"""While a ``vmap`` call runs: the hook an op of the indexing family (``ops.indexed_operands``)
passes its input and its indexing operands (indices, masks, grids, sources) to, and computes
on what it returns: the input moved onto the level one of those operands is batched by, when
the input comes from outside it (``func._vmap.rules_indexing.lift_indexed``). None outside
vmap: the ops then run as they are."""


# -- forward-mode AD ---------------------------------------------------------------------------

class DualState:
    """The process-wide forward-AD state the recorder reads (``autograd.forward_ad`` opens and
    closes dual levels on it).

    ``on``: a dual level is open and tangents propagate (False while a forward rule itself
    runs, so computing a tangent does not compute tangents of tangents). ``dual_level``: the
    open dual level, -1 when none. ``tracked``: the tensors holding a tangent at that dual
    level, so that exiting it drops them. ``fast_paths``: the fast-path switch
    (``ops.rule.fast_paths``, handed in by ``ops.rule``): fast paths skip the recorder, so they
    are off while a dual level is open; ``fast_before`` is its value on entry.
    """

    __slots__ = ("on", "dual_level", "tracked", "fast_paths", "fast_before")

    def __init__(self) -> None:
        self.on = False
        self.dual_level = -1
        # by id, weakly: a WeakSet would compare tensors with ``==`` (elementwise)
        self.tracked: dict[int, weakref.ref[Any]] = {}
        self.fast_paths: Any = None
        self.fast_before = True


dual = DualState()
"""The one forward-AD state (``autograd.forward_ad.state`` is this object)."""


# -- compile ------------------------------------------------------------------------------
class RecordingFlag:
    """Whether ``arraygrad.compile`` is recording a call, and the recorder's hooks (see
    ``arraygrad.live_scalars``).

    ``on``: True while a recording call runs (set by the recorder). ``host_call``: the
    recorder's ``(thunk) -> None`` that appends "run ``thunk()``" to the program, or None.
    ``graph_break``: the recorder's ``(reason) -> None`` that stops the recording, or None.
    """

    __slots__ = ("_on", "host_call", "graph_break")

    def __init__(self) -> None:
        self._on = False
        self.host_call: Callable[[Callable[[], Any]], None] | None = None
        self.graph_break: Callable[[str], None] | None = None

    def _set_on(self, value: bool) -> None:
        self._on = value
        _switch_units(bool(value))

    # read through a C getter (no Python frame on the hot paths that test it); setting it
    # switches the replay units between their eager and recording calls
    on = property(operator.attrgetter("_on"), _set_on,
                  doc="True while a recording call runs (set by the recorder).")


recording_flag = RecordingFlag()


class _CompileHooks:
    """What the layers below call into while a recording runs, registered by the compiler
    when it loads (it sits above them; they never import it).

    ``recorded_backend(backend)``, ``recorded_generator(backend, generator)``: the
    recording views creation and random draws use (``compiler.recording_backend``);
    ``recorded_kernel(kernel)``: a plugin kernel's recorded call (``compiler.traced``);
    ``record_unit(fn, args, writes)``: a replay unit's call (``compiler.unit_record``);
    ``compile``: ``arraygrad.compile``, for ``nn.Module.compile`` (registered by the
    package, loading the compiler at its first call).
    """

    __slots__ = ("recorded_backend", "recorded_generator", "recorded_kernel", "record_unit",
                 "compile")

    def __init__(self) -> None:
        self.recorded_backend: Callable[..., Any] = _unregistered
        self.recorded_generator: Callable[..., Any] = _unregistered
        self.recorded_kernel: Callable[..., Any] = _unregistered
        self.record_unit: Callable[..., Any] = _unregistered
        self.compile: Callable[..., Any] = _unregistered


def _unregistered(*args: Any, **kwargs: Any) -> Any:
    """A hook nothing registered yet: the recording flag was set without the compiler."""
    raise RuntimeError("arraygrad.compile's recorder is not loaded (the recording flag is set "
                       "by arraygrad.compiler, which registers its hooks when it loads)")


compile_hooks = _CompileHooks()


class _CompileEpochs:
    """Counters ``arraygrad.compile``'s guards read to skip re-reading unchanged state.

    ``module_attrs`` is bumped by every ``nn.Module`` attribute assignment or deletion
    (``Module.__setattr__``/``__delattr__``): while it stands still, no module's plain
    attributes (``Dropout.p``, ``LeakyReLU.negative_slope``...) changed, and a compiled
    function's guard reuses the values it read at the previous call.
    """

    __slots__ = ("module_attrs",)

    def __init__(self) -> None:
        self.module_attrs = 0


compile_epochs = _CompileEpochs()

F = TypeVar("F", bound=Callable[..., Any])


class ReplayUnit:
    """A replay unit: calling it calls its function, through its class's ``__call__``.

    Each unit has its own class whose ``__call__`` is a ``staticmethod``: the function itself
    while no recording runs (the call costs no Python frame more than the function's), the
    recording call while one does (``RecordingFlag.on``'s setter switches them). Attributes:
    the function's (``functools.update_wrapper``) and ``__replay_unit__``, the function."""

    __replay_unit__: Callable[..., Any]


_unit_classes: list[type[ReplayUnit]] = []  # every unit's class, switched with the flag
_units_recording = [False]  # whether their ``__call__`` is the recording one


def _switch_units(recording: bool) -> None:
    """Make every unit's call the recording one (``recording``) or its function's."""
    if _units_recording[0] is recording:
        return
    _units_recording[0] = recording
    for cls in _unit_classes:
        # the staticmethods themselves (reading them through the class would unwrap them)
        cls.__call__ = vars(cls)["_recording" if recording else "_eager"]  # type: ignore[method-assign]


def replay_unit(fn: F | None = None, *, writes: bool = False) -> Any:
    """Mark ``fn`` a replay unit (``arraygrad.compiler.units`` describes them): while a
    recording is live, a call of it with positional arguments is recorded as one
    instruction. ``writes=True``: the unit writes its second argument in place and answers
    it (an optimizer's update); its instruction is then an effect, never dropped. Outside
    a recording a call of a unit is a call of the function (``ReplayUnit``)."""
    if fn is None:
        return lambda f: replay_unit(f, writes=writes)
    unit_fn = fn

    def recording(*args: Any, **kwargs: Any) -> Any:
        if kwargs or not recording_flag._on:  # (off again inside a recording: ``live``)
            return unit_fn(*args, **kwargs)
        return compile_hooks.record_unit(unit_fn, args, writes)

    eager, record = staticmethod(fn), staticmethod(recording)
    cls = type(fn.__name__, (ReplayUnit,), {
        "_eager": eager, "_recording": record, "__module__": fn.__module__,
        "__call__": record if _units_recording[0] else eager})
    _unit_classes.append(cls)
    unit = cls()
    functools.update_wrapper(unit, fn)
    unit.__replay_unit__ = fn
    return unit


def unit_function(unit: Callable[..., Any]) -> Callable[..., Any]:
    """The function a replay unit wraps (``unit`` itself when it is no unit)."""
    return getattr(unit, "__replay_unit__", unit)
