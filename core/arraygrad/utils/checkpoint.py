"""Activation checkpointing (``torch.utils.checkpoint``): keep a segment's inputs, not its
activations, and recompute the segment's forward when backward needs them.

- Non-reentrant (``use_reentrant=False``, recommended): the forward runs under
  ``saved_tensors_hooks`` whose pack hook keeps a small *holder* in place of each saved
  tensor; the first unpack in backward reruns the segment (same inputs, the random state of
  the forward restored) under a hook that fills each still-alive holder, in save order.
  The graph is the forward's own, so double backward, kwargs, non-tensor outputs and nested
  checkpoints work.
- Reentrant (``use_reentrant=True``): an ``autograd.Function`` that runs the segment
  without recording and, in its backward, reruns it with grad enabled and calls
  ``autograd.backward`` inside the outer backward.

>>> out = checkpoint(block, x, use_reentrant=False)
"""

from __future__ import annotations

import collections
import contextlib
import warnings
import weakref
from typing import Any, Callable, ContextManager, Iterable

from arraygrad.autograd.function import Function
from arraygrad.autograd.grad_mode import enable_grad, no_grad
from arraygrad.autograd.graph import RawSavedTensor as SavedTensor
from arraygrad.autograd.saved_hooks import saved_tensors_hooks
from arraygrad._pytree import tree_map
from arraygrad.random import device_generator
from arraygrad.tensor import Tensor, wrap
from arraygrad.utils.checkpoint_selective import (
    CheckpointPolicy, SelectiveCheckpointContext, create_selective_checkpoint_contexts,
)
from arraygrad.utils.checkpoint_switches import (
    DefaultDeviceType, GraphExecGroup, detach_variable, get_device_states,
    current as _current, set_checkpoint_debug_enabled, set_checkpoint_early_stop,
    set_device_states, switches as _switches,
)

__all__ = ["checkpoint", "checkpoint_sequential", "noop_context_fn", "CheckpointError",
           "check_backward_validity", "CheckpointPolicy", "SelectiveCheckpointContext",
           "create_selective_checkpoint_contexts", "set_checkpoint_early_stop",
           "set_checkpoint_debug_enabled", "GraphExecGroup", "DefaultDeviceType",
           "get_device_states", "set_device_states", "detach_variable", "SavedTensor",
           "tree_map"]


class CheckpointError(RuntimeError):
    """The recomputation did not save what the original forward saved."""


def noop_context_fn() -> tuple[ContextManager[Any], ContextManager[Any]]:
    """The default ``context_fn``: no context around the forward nor the recomputation."""
    return contextlib.nullcontext(), contextlib.nullcontext()


def check_backward_validity(inputs: Iterable[Any]) -> None:
    """Warn (as PyTorch) when no input tensor requires grad: the reentrant checkpoint then
    gives no gradients."""
    if not any(inp.requires_grad for inp in inputs if isinstance(inp, Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=3)


_USE_REENTRANT_WARNING = (
    "{name}: the use_reentrant parameter should be passed explicitly. Starting in PyTorch "
    "2.9, calling checkpoint without use_reentrant will raise an exception. "
    "use_reentrant=False is recommended, but if you need to preserve the current default "
    "behavior, you can pass use_reentrant=True. Refer to docs for more details on the "
    "differences between the two variants.")

_CHECKS = ("default", "none")


# -- random state ----------------------------------------------------------------------

def _rng_generators(args: Iterable[Any]) -> list[Any]:
    """The default generators a segment may draw from: the CPU's and those of the devices of
    its tensor arguments."""
    devices = {"cpu": None}
    for a in args:
        if isinstance(a, Tensor):
            devices.setdefault(str(a.device), None)
    return [device_generator(d) for d in devices]


def _snapshot(gens: list[Any]) -> list[tuple[Any, Any]]:
    return [(g, g._snapshot()) for g in gens]


@contextlib.contextmanager
def _replayed_rng(states: list[tuple[Any, Any]] | None) -> Any:
    """Within the block the generators are back at ``states``; after it, where they were
    (the recomputation must not consume the caller's random stream)."""
    if not states:
        yield
        return
    now = _snapshot([g for g, _ in states])
    for g, s in states:
        g._restore(s)
    try:
        yield
    finally:
        for g, s in now:
            g._restore(s)


# -- non-reentrant ---------------------------------------------------------------------

class _Holder:
    """What the graph keeps for a tensor saved in a checkpointed segment: the frame to
    recompute from and, once recomputed, the value until backward reads it; after that only
    a weak reference to its array (``_unpack``), so a recomputed activation lives as long as
    the backward formula using it, not until the end of the pass."""

    __slots__ = ("frame", "value", "weak", "backend", "kept", "__weakref__")

    def __init__(self, frame: "_Frame") -> None:
        self.frame = frame
        self.value: Tensor | None = None
        self.weak: Any = None  # weakref.ref to the array once read
        self.backend: Any = None
        self.kept = False  # saved by an op a selective checkpoint saves: never recomputed


class _Frame:
    """One checkpoint call: how to rerun it and the holders of what it saved, in order."""

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[Any, Any],
                 rng: list[tuple[Any, Any]] | None, recompute_context: ContextManager[Any],
                 check: bool, early_stop: bool = True,
                 debug: tuple[Any, Any] | None = None) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.rng = rng
        self.recompute_context = recompute_context
        self.check = check
        self.early_stop = early_stop
        self.debug = debug  # (forward OpLog, recomputation OpLog) with debug=True
        self.holders: list[weakref.ref[_Holder]] = []
        self.meta: list[dict[str, Any]] = []
        # a selective checkpoint's op running in the forward: (holder, tensor) it saved
        self.provisional: list[tuple[_Holder, Tensor]] | None = None
        # the values read last, kept strongly: a node reading a saved value again (in
        # another input's formula) finds it without recomputing the segment
        self.recent: collections.deque[Tensor] = collections.deque(maxlen=_RECENT)

    def pack(self, t: Tensor) -> _Holder:
        holder = _Holder(self)
        self.holders.append(weakref.ref(holder))
        if self.check:
            self.meta.append(_meta(t))
        if self.provisional is not None:
            self.provisional.append((holder, t))
        return holder

    # -- selective checkpointing (``checkpoint_selective``) ---------------------------
    def start_op(self) -> int:
        """An op of a selective checkpoint starts in the forward: note what it saves."""
        self.provisional = []
        return len(self.holders)

    def end_op(self, mark: int | None) -> None:
        """The op ended: with ``mark`` (it is saved, not recomputed), what it saved is kept
        and left out of the recomputation's order; else its holders stay ordinary."""
        pending, self.provisional = self.provisional or [], None
        if mark is None:
            return
        for holder, t in pending:
            holder.value = t.detach() if t.requires_grad else t
            holder.kept = True
        del self.holders[mark:]
        del self.meta[mark:]

    def recompute(self) -> None:
        """Rerun the segment, filling the live holders with what it saves, in order."""
        count = [0]
        mismatched: list[str] = []

        def pack(t: Tensor) -> None:
            i = count[0]
            count[0] += 1
            if i >= len(self.holders):
                raise self._error("torch.utils.checkpoint: trying to save more tensors during "
                                  "recomputation than during the original forward pass.\n"
                                  + _DEBUG_TIP)
            holder = self.holders[i]()
            if holder is not None:
                if self.check and _meta(t) != self.meta[i]:
                    mismatched.append(f"tensor at position {i}:\nsaved metadata: "
                                      f"{self.meta[i]}\nrecomputed metadata: {_meta(t)}\n")
                holder.value = t.detach() if t.requires_grad else t
            if self.early_stop and count[0] == len(self.holders):
                raise _StopRecomputation  # every saved value is back: the rest is not needed
            return None

        def unpack(_: None) -> Tensor:
            raise CheckpointError("torch.utils.checkpoint: unpacking a tensor saved during "
                                  "recomputation is not supported")

        try:
            with _replayed_rng(self.rng), enable_grad(), self.recompute_context, \
                    saved_tensors_hooks(pack, unpack):
                self.fn(*self.args, **self.kwargs)
        except _StopRecomputation:
            pass
        if count[0] != len(self.holders):  # checked whatever determinism_check, as PyTorch
            raise self._error(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.holders)}\n"
                f"Number of tensors saved during recomputation: {count[0]}.\n" + _DEBUG_TIP)
        if mismatched:
            raise self._error(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                "different metadata than during the forward pass.\n" + "".join(mismatched)
                + _DEBUG_TIP)

    def _error(self, message: str) -> CheckpointError:
        """The CheckpointError, with the operations logged in the forward and the
        recomputation when ``debug`` is on (PyTorch's layout)."""
        if self.debug is None:
            return CheckpointError(message)
        forward, recompute = self.debug
        return CheckpointError(message + "\n" + _ERROR_TEMPLATE.format(
            forward_traces=forward.traces("original"),
            recompute_traces=recompute.traces("recompute"),
            forward_ops="\n".join(forward.ops), recompute_ops="\n".join(recompute.ops)))


def _meta(t: Tensor) -> dict[str, Any]:
    """PyTorch's default determinism check: shape, dtype, device."""
    return {"shape": tuple(t.shape), "dtype": t.dtype, "device": t.device}


_RECENT = 2  # how many read values a frame keeps strongly (``_Frame.recent``)


class _StopRecomputation(Exception):
    """Raised inside the recomputation once every saved value is back (early stop)."""


_DEBUG_TIP = """
Tip: To see a more detailed error message, either pass `debug=True` to
`torch.utils.checkpoint.checkpoint(...)` or wrap the code block
with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to
enable checkpoint-debug mode globally.
"""

_ERROR_TEMPLATE = """An error happened while unpacking tensors; dumping logs of latest computation
because you passed `debug=True` to `torch.utils.checkpoint.checkpoint()`.

+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|        1. Stack traces of the operators that ran in the original forward     |
+------------------------------------------------------------------------------+

{forward_traces}
+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|        2. Stack traces of the operators that ran during recomputation        |
+------------------------------------------------------------------------------+

{recompute_traces}
+~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~+
|       3. Log of operators in the original forward and recomputation          |
+------------------------------------------------------------------------------+

Operations executed during the original forward:

{forward_ops}

Operations executed during recomputation:

{recompute_ops}
"""


def _unpack(holder: _Holder) -> Tensor:
    """The recomputed value of ``holder`` (recomputing the segment when it is not there).

    The first read hands the value over: the holder keeps a weak reference to its array
    (and the frame a strong one among its last few reads, until the pass ends), so the
    activation is freed once the backward formulas using it are done, as PyTorch frees it after unpacking; a later
    read (``retain_graph``, a second access) finds it while alive, else recomputes."""
    value = holder.value
    if holder.kept:
        return value  # type: ignore[return-value]  # kept from the forward
    if value is None:
        data = holder.weak() if holder.weak is not None else None
        if data is not None:
            return wrap(data, holder.backend)
        holder.frame.recompute()
        value = holder.value
        if value is None:
            raise CheckpointError(
                "torch.utils.checkpoint: the recomputation saved fewer tensors than the "
                "forward.")
    try:
        holder.weak = weakref.ref(value._data)
    except TypeError:  # arrays without weak references: keep the value
        return value
    holder.value = None
    holder.backend = value._backend
    recent = holder.frame.recent
    if not recent:
        from arraygrad.autograd.engine import current_task

        task = current_task()
        if task is not None:  # nothing is kept past the backward pass
            task.callbacks.append(recent.clear)
    recent.append(value)
    return value


def _checkpoint_without_reentrant(function: Callable[..., Any], preserve: bool,
                                  context_fn: Callable[[], tuple[Any, Any]],
                                  determinism_check: str, debug: bool, args: tuple[Any, ...],
                                  kwargs: dict[Any, Any]) -> Any:
    if determinism_check not in _CHECKS:
        raise ValueError(f"determinism_check should be one of {list(_CHECKS)}, but got "
                         f"{determinism_check}")
    debug = _switches.debug if _switches.debug is not None else debug
    logs = None
    if debug:
        if context_fn is not noop_context_fn:
            raise ValueError("debug=True is incompatible with non-default context_fn")
        from arraygrad.utils.checkpoint_selective import OpLog

        logs = (OpLog(), OpLog())
        forward_context, recompute_context = logs
    else:
        forward_context, recompute_context = context_fn()
    rng = _snapshot(_rng_generators(args)) if preserve else None
    early_stop = _switches.early_stop if _switches.early_stop is not None else True
    frame = _Frame(function, args, kwargs, rng, recompute_context,
                   determinism_check == "default", early_stop, logs)
    outer, _current.frame = _current.frame, frame
    try:
        # the holders keep the frame alive as long as the graph needs it
        with saved_tensors_hooks(frame.pack, _unpack), forward_context:
            return function(*args, **kwargs)
    finally:
        _current.frame = outer


# -- reentrant ---------------------------------------------------------------------------

def _is_checkpoint_valid() -> bool:
    """False inside ``autograd.grad`` or ``backward(inputs=...)``: the reentrant backward
    accumulates into every leaf of the segment, which those must not do (PyTorch's test)."""
    from arraygrad.autograd.engine import current_task

    task = current_task()
    return not (task is not None and task.targets)


class CheckpointFunction(Function):
    """The reentrant checkpoint: forward without recording, recompute and backward in
    backward."""

    @staticmethod
    def forward(ctx: Any, run_function: Callable[..., Any], preserve_rng_state: bool,
                *args: Any) -> Any:
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        ctx.rng = _snapshot(_rng_generators(args)) if preserve_rng_state else None
        ctx.inputs = []
        ctx.tensor_indices = []
        tensors = []
        for i, a in enumerate(args):
            if isinstance(a, Tensor):
                tensors.append(a)
                ctx.tensor_indices.append(i)
                ctx.inputs.append(None)
            else:
                ctx.inputs.append(a)
        ctx.save_for_backward(*tensors)
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        from arraygrad.autograd.api import backward

        if not _is_checkpoint_valid():
            raise RuntimeError(
                "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() "
                "or passing an `inputs` parameter to .backward(). To resolve this error, you "
                "can either set use_reentrant=False, or call .backward() without passing the "
                "`inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a
                    for a in inputs]
        with _replayed_rng(ctx.rng), enable_grad():
            outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        with_grad, their_grads = [], []
        for out, g in zip(outputs, grads):
            if isinstance(out, Tensor) and out.requires_grad:
                with_grad.append(out)
                their_grads.append(g)
        if not with_grad:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        backward(with_grad, their_grads)
        return (None, None) + tuple(a.grad if isinstance(a, Tensor) else None for a in detached)


# -- the API -----------------------------------------------------------------------------

def checkpoint(function: Callable[..., Any], *args: Any, use_reentrant: bool | None = None,
               context_fn: Callable[[], tuple[Any, Any]] = noop_context_fn,
               determinism_check: str = "default", debug: bool = False,
               **kwargs: Any) -> Any:
    """``function(*args, **kwargs)``, keeping only its inputs for backward: the activations
    are recomputed when backward needs them (same gradients, less memory).

    ``use_reentrant``: pass it (a warning says so otherwise, and True is used, as PyTorch);
    False is recommended (supports kwargs, ``context_fn``, double backward, ``autograd.grad``).
    ``preserve_rng_state`` (default True): the recomputation replays the forward's random
    numbers (dropout masks match). ``context_fn``: returns two context managers, around the
    forward and around the recomputation (``create_selective_checkpoint_contexts`` makes a
    pair that saves the ops a policy names). ``determinism_check``: ``"default"`` compares
    the shapes, dtypes and devices of what the recomputation saves with the forward's,
    ``"none"`` does not. ``debug``: a CheckpointError also lists the operations of the
    forward and of the recomputation, with their stacks. The recomputation stops as soon as
    every saved value is back (``set_checkpoint_early_stop`` turns that off).
    """
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING.format(name="torch.utils.checkpoint"),
                      stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check,
                                         debug, args, kwargs)


def checkpoint_sequential(functions: Any, segments: int, input: Any,
                          use_reentrant: bool | None = None, **kwargs: Any) -> Any:
    """Run ``functions`` (a list of callables or an ``nn.Sequential``) on ``input`` in
    ``segments`` chunks, checkpointing every chunk but the last (as PyTorch)."""
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING.format(
            name="torch.utils.checkpoint.checkpoint_sequential"), stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(arg for arg in kwargs))
    from arraygrad.nn.modules.container import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run_function(start: int, end: int, functions: Any) -> Callable[[Any], Any]:
        def forward(input: Any) -> Any:
            for j in range(start, end + 1):
                input = functions[j](input)
            return input

        return forward

    segment_size = len(functions) // segments
    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_function(start, end, functions), input,
                           use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1, functions)(input)
