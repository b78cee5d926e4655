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
           "TransformHooks", "hooks", "array_kernel", "ArrayKernel", "kernel_function"]


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
    ``arraygrad.compiler.scalars``).

    ``on``: True while a recording call runs (set by the recorder). ``host_call``: the
    recorder's ``(thunk) -> None`` that appends "run ``thunk()``" to the program, or None.
    ``graph_break``: the recorder's ``(reason) -> None`` that stops the recording, or None.
    ``read_live``: the recorder's ``(tensor) -> number`` reading a one-element state tensor
    as a live scalar (``optim.optimizer._get_value``), or None.
    """

    __slots__ = ("on", "host_call", "graph_break", "read_live")

    def __init__(self) -> None:
        self.on = False
        self.host_call: Callable[[Callable[[], Any]], None] | None = None
        self.graph_break: Callable[[str], None] | None = None
        self.read_live: Callable[[Any], Any] | None = None


recording_flag = RecordingFlag()


class _CompileHooks:
    """``compile``: ``arraygrad.compile``, for ``nn.Module.compile`` (PyTorch's method calls
    ``torch.compile``), registered by the package, loading the compiler at its first call
    (``nn`` sits below the compiler and never imports it)."""

    __slots__ = ("compile",)

    def __init__(self) -> None:
        self.compile: Callable[..., Any] = _unregistered


def _unregistered(*args: Any, **kwargs: Any) -> Any:
    """``compile`` before the package registered it (a module loaded without its root)."""
    raise RuntimeError("arraygrad.compile is not available before `import arraygrad`")


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


# -- what a running transform sees of the layers below -------------------------------------

class TransformHooks:
    """Where the layers below hand work to a running transform that records array calls
    (``arraygrad.compile``'s recorder installs them while it records, and removes them after;
    None otherwise, so the eager path tests one slot).

    ``backend_view(backend)``: the backend array creation makes its arrays through;
    ``generator_view(backend, generator)``: the native generator random draws come from;
    ``kernel_view(kernel)``: a plugin kernel, as it is to be called;
    ``kernel_call(fn, args, writes)``: a whole array kernel's call (``array_kernel``);
    ``python_effect(reason)``: told of Python work the transform cannot carry (a tensor hook
    registered while it runs); ``arrays_only``: the transform expresses array calls only (no
    views of memory, no shapes that depend on values): ops take their portable forms.
    """

    __slots__ = ("backend_view", "generator_view", "kernel_view", "_kernel_call",
                 "python_effect", "arrays_only")

    def __init__(self) -> None:
        self.backend_view: Callable[[Any], Any] | None = None
        self.generator_view: Callable[[Any, Any], Any] | None = None
        self.kernel_view: Callable[[Any], Any] | None = None
        self._kernel_call: Callable[..., Any] | None = None
        self.python_effect: Callable[[str], None] | None = None
        self.arrays_only = False

    def _set_kernel_call(self, call: Callable[..., Any] | None) -> None:
        was = self._kernel_call
        self._kernel_call = call
        if (was is None) != (call is None):
            _switch_kernels(call is not None)

    # read through a C getter; setting it switches the array kernels' calls
    kernel_call = property(operator.attrgetter("_kernel_call"), _set_kernel_call,
                           doc="The transform's call of an array kernel, or None.")


hooks = TransformHooks()


class ArrayKernel:
    """An array kernel: calling it calls its function, through its class's ``__call__``.

    Each kernel has its own class whose ``__call__`` is a ``staticmethod``: the function
    itself while no transform takes kernel calls (the call costs no Python frame more than
    the function's), the transform's call while one does (setting ``hooks.kernel_call``
    switches them). Attributes: the function's (``functools.update_wrapper``) and
    ``__array_kernel__``, the function."""

    __array_kernel__: Callable[..., Any]


_kernel_classes: list[type[ArrayKernel]] = []  # every kernel's class, switched with the hook


def _switch_kernels(taken: bool) -> None:
    """Make every kernel's call the transform's (``taken``) or its function's."""
    for cls in _kernel_classes:
        # the staticmethods themselves (reading them through the class would unwrap them)
        cls.__call__ = vars(cls)["_taken" if taken else "_eager"]  # type: ignore[method-assign]


def array_kernel(fn: F | None = None, *, writes: bool = False) -> Any:
    """Mark ``fn`` an array kernel: a deterministic function of arrays, backends and constants
    that reads no array value into Python, draws no random numbers and returns fresh arrays
    (``writes=True``: it writes its second argument in place and answers it, an optimizer's
    update). A transform that records array calls takes a call of it, made with positional
    arguments, whole (``hooks.kernel_call``: ``arraygrad.compiler.units``). Outside one a
    call of a kernel is a call of its function (``ArrayKernel``)."""
    if fn is None:
        return lambda f: array_kernel(f, writes=writes)
    kernel_fn = fn

    def taken(*args: Any, **kwargs: Any) -> Any:
        call = hooks.kernel_call
        if kwargs or call is None:
            return kernel_fn(*args, **kwargs)
        return call(kernel_fn, args, writes)

    eager, take = staticmethod(fn), staticmethod(taken)
    cls = type(fn.__name__, (ArrayKernel,), {
        "_eager": eager, "_taken": take, "__module__": fn.__module__,
        "__call__": take if hooks.kernel_call is not None else eager})
    _kernel_classes.append(cls)
    kernel = cls()
    functools.update_wrapper(kernel, fn)
    kernel.__array_kernel__ = fn
    return kernel


def kernel_function(kernel: Callable[..., Any]) -> Callable[..., Any]:
    """The function an array kernel wraps (``kernel`` itself when it is none)."""
    return getattr(kernel, "__array_kernel__", kernel)
