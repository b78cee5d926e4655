"""State that transforms (``func``'s vmap and forward AD, ``compile``) read from below.

A leaf module: it imports nothing of arraygrad, so the tensor layer, the ops, ``nn`` and
``optim`` read or bump what is here without importing a transform, and each transform
registers what they call into from above when it loads. Each transform keeps its own
clearly headed section.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

__all__ = ["RecordingFlag", "recording_flag", "compile_hooks", "compile_epochs", "replay_unit",
           "unit_function"]


# -- compile ------------------------------------------------------------------------------
class RecordingFlag:
    """Whether ``arraygrad.compile`` is recording a call, and the recorder's hooks (see
    ``arraygrad.live_scalars``).

    ``on``: True while a recording call runs (set by the recorder). ``host_call``: the
    recorder's ``(thunk) -> None`` that appends "run ``thunk()``" to the program, or None.
    ``graph_break``: the recorder's ``(reason) -> None`` that stops the recording, or None.
    """

    __slots__ = ("on", "host_call", "graph_break")

    def __init__(self) -> None:
        self.on = False
        self.host_call: Callable[[Callable[[], Any]], None] | None = None
        self.graph_break: Callable[[str], None] | None = None


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


def replay_unit(fn: F | None = None, *, writes: bool = False) -> Any:
    """Mark ``fn`` a replay unit (``arraygrad.compiler.units`` describes them): while a
    recording is live, a call of it with positional arguments is recorded as one
    instruction. ``writes=True``: the unit writes its second argument in place and answers
    it (an optimizer's update); its instruction is then an effect, never dropped. Outside
    a recording a unit costs one flag test and one call more than the function."""
    if fn is None:
        return lambda f: replay_unit(f, writes=writes)
    unit_fn = fn

    def unit(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            return unit_fn(*args, **kwargs)
        if recording_flag.on:
            return compile_hooks.record_unit(unit_fn, args, writes)
        return unit_fn(*args)

    functools.update_wrapper(unit, fn)
    unit.__replay_unit__ = fn  # type: ignore[attr-defined]
    return unit


def unit_function(unit: Callable[..., Any]) -> Callable[..., Any]:
    """The function a replay unit wraps (``unit`` itself when it is no unit)."""
    return getattr(unit, "__replay_unit__", unit)
