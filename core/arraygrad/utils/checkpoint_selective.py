"""Selective activation checkpointing (SAC): inside a non-reentrant ``checkpoint`` whose
``context_fn`` is ``create_selective_checkpoint_contexts(policy)``, the operations the policy
says to save are not recomputed in backward.

The policy is called, in the forward, once per operation the checkpointed function calls:
``policy(ctx, op, *args, **kwargs)`` with ``ctx.op_output`` the result, and returns a
``CheckpointPolicy`` (or a bool: True is ``MUST_SAVE``). In arraygrad an operation is a call
of one of its op entry points (``autograd.profiler.op_entry_points``: Tensor methods and
operators, ``arraygrad.<op>`` functions, ``nn.functional`` functions), and ``op`` is the
public function (``torch.matmul`` for ``a @ b``, ``F.linear`` for an ``nn.Linear``); the
calls an operation makes itself belong to it, as PyTorch's dispatcher sees a kernel's work
as one op. For a saved operation, the result and what its backward saved are kept from the
forward; the recomputation returns the kept result instead of running it. ``PREFER_*`` and
``MUST_*`` mean the same in eager mode (as in PyTorch); the ``*_CPU_OFFLOAD`` policies are
recomputed (arraygrad has no device-to-host offload of saved values).
"""

from __future__ import annotations

import enum
import threading
from collections import defaultdict
from typing import Any, Callable, Self

from arraygrad._pytree import tree_map
from arraygrad.tensor import Tensor
from arraygrad.utils.checkpoint_switches import current_frame

__all__ = ["CheckpointPolicy", "SelectiveCheckpointContext",
           "create_selective_checkpoint_contexts", "OpLog"]


class CheckpointPolicy(enum.Enum):
    """What a selective checkpoint does with an operation's result: save it (``*_SAVE``: not
    recomputed in backward), recompute it (``*_RECOMPUTE``), or offload it to the CPU
    (``*_CPU_OFFLOAD``, recomputed here). ``MUST_*`` and ``PREFER_*`` differ only for
    ``torch.compile``."""

    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3
    MUST_CPU_OFFLOAD = 4
    PREFER_CPU_OFFLOAD = 5


_SAVE = (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE)


class SelectiveCheckpointContext:
    """What the policy gets first: ``is_recompute`` (always False: the policy is asked in
    the forward only, as PyTorch's) and ``op_output``, the operation's result."""

    def __init__(self, *, is_recompute: bool, op_output: Any = None) -> None:
        self.is_recompute = is_recompute
        self.op_output = op_output


def _policy_from_bool(b: bool) -> CheckpointPolicy:
    return CheckpointPolicy.MUST_SAVE if b else CheckpointPolicy.PREFER_RECOMPUTE


class _Cached:
    """A saved result, with the version it had (to refuse one modified in place since) and
    whether it required grad: handed to the recomputation as a leaf that does, so the ops
    after it record and save what they saved in the forward."""

    __slots__ = ("value", "version", "requires_grad")

    def __init__(self, value: Any) -> None:
        tensor = isinstance(value, Tensor)
        self.value = value.detach() if tensor else value
        self.version = value._version if tensor else None
        self.requires_grad = tensor and value.requires_grad

    def get(self, allow_mutation: bool) -> Any:
        if self.version is not None and not allow_mutation and self.value._version != self.version:
            raise RuntimeError("Tensor cached during selective activation checkpoint has been "
                               "mutated")
        if self.requires_grad:
            return self.value.detach().requires_grad_()
        return self.value


_RECOMPUTE = object()
_CONSUMED = object()
_MISMATCH = ("This can happen if the operations in the checkpointed region are "
             "nondeterministic or depend on global state that changed between forward and "
             "backward.")


class _Local(threading.local):
    mode: Any = None      # the innermost active _Intercepting of this thread
    depth = 0             # how deep inside an operation the mode sees


_local = _Local()


class _Interceptor:
    """Wraps every op entry point while any selective checkpoint runs (process-wide, counted);
    a wrapper hands the call to this thread's active mode, or calls through."""

    def __init__(self) -> None:
        self.users = 0
        self.patches: list[tuple[Any, str, Any]] = []
        self.lock = threading.Lock()

    def acquire(self) -> None:
        with self.lock:
            self.users += 1
            if self.users == 1:
                from arraygrad.autograd.profiler import op_entry_points

                for owner, attr, name, fn in op_entry_points():
                    self.patches.append((owner, attr, fn))
                    setattr(owner, attr, _wrapper(fn, name, _public_op(name, fn)))

    def release(self) -> None:
        with self.lock:
            self.users -= 1
            if self.users == 0:
                for owner, attr, fn in reversed(self.patches):
                    setattr(owner, attr, fn)
                self.patches.clear()


_interceptor = _Interceptor()


def _public_op(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """The function a policy sees for op ``name``: ``arraygrad.<name>`` when there is one
    (so ``a @ b`` and ``arraygrad.matmul`` are the same op), else ``fn`` itself."""
    import arraygrad

    found = getattr(arraygrad, name, None) if not name.endswith("_") else None
    return found if callable(found) and not isinstance(found, type) else fn


def _wrapper(fn: Callable[..., Any], name: str, op: Callable[..., Any]) -> Callable[..., Any]:
    def intercepted(*args: Any, **kwargs: Any) -> Any:
        mode = _local.mode
        if mode is None or _local.depth:
            return fn(*args, **kwargs)
        _local.depth += 1
        try:
            return mode.call(op, name, fn, args, kwargs)
        finally:
            _local.depth -= 1

    intercepted.__wrapped__ = fn  # type: ignore[attr-defined]
    intercepted.__name__ = getattr(fn, "__name__", "op")
    intercepted.__doc__ = fn.__doc__
    return intercepted


class _Intercepting:
    """A context under which this thread's op calls go to ``call`` (the interception on while
    it is entered; the outer context, if any, back on exit)."""

    _outer: Any = None
    _depth = 0

    def _reset(self) -> None:
        """What entering starts afresh."""

    def __enter__(self) -> Self:
        self._reset()
        _interceptor.acquire()
        self._outer, self._depth = _local.mode, _local.depth
        _local.mode, _local.depth = self, 0
        return self

    def __exit__(self, *exc: Any) -> None:
        _local.mode, _local.depth = self._outer, self._depth
        _interceptor.release()

    def call(self, op: Callable[..., Any], name: str, fn: Callable[..., Any],
             args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run the intercepted op ``name`` (``fn(*args, **kwargs)``; ``op`` is its public
        function)."""
        raise NotImplementedError


class _Mode(_Intercepting):
    """One of the pair of contexts: the forward's (``caching``) or the recomputation's."""

    def __init__(self, storage: dict[Any, dict[int, Any]], policy_fn: Callable[..., Any] | None,
                 allow_mutation: bool) -> None:
        self.storage = storage
        self.policy_fn = policy_fn
        self.allow_mutation = allow_mutation
        self.counter: dict[Any, int] = defaultdict(int)

    def _reset(self) -> None:
        self.counter.clear()  # a second recomputation finds the entries consumed

    def call(self, op: Callable[..., Any], name: str, fn: Callable[..., Any],
             args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        # entries are keyed by the op's name: the same in the forward and the recomputation
        # whatever wraps the function meanwhile (a profiler)
        idx = self.counter[name]
        self.counter[name] += 1
        if self.policy_fn is not None:
            return self._forward(op, name, fn, args, kwargs, idx)
        return self._recompute(name, fn, args, kwargs, idx)

    def _forward(self, op: Callable[..., Any], name: str, fn: Callable[..., Any],
                 args: tuple[Any, ...], kwargs: dict[str, Any], idx: int) -> Any:
        frame = current_frame()
        mark = frame.start_op() if frame is not None else None
        try:
            out = fn(*args, **kwargs)
        except BaseException:
            if frame is not None:
                frame.end_op(None)
            raise
        assert self.policy_fn is not None
        policy = self.policy_fn(SelectiveCheckpointContext(is_recompute=False, op_output=out),
                                op, *args, **kwargs)
        if isinstance(policy, bool):
            policy = _policy_from_bool(policy)
        save = policy in _SAVE
        self.storage[name][idx] = tree_map(_Cached, out) if save else _RECOMPUTE
        if frame is not None:
            frame.end_op(mark if save else None)  # a saved op's saved tensors are kept
        return out

    def _recompute(self, name: str, fn: Callable[..., Any], args: tuple[Any, ...],
                   kwargs: dict[str, Any], idx: int) -> Any:
        entries = self.storage.get(name)
        if entries is None:
            raise RuntimeError(f"{name} encountered during backward but not found in storage. "
                               f"{_MISMATCH}")
        entry = entries.get(idx)
        if entry is None:
            raise RuntimeError(f"{name} invocation index {idx} encountered during backward but "
                               f"not found in storage. {_MISMATCH}")
        if entry is _CONSUMED:
            raise RuntimeError("Trying to backward an extra time. You are only allowed to "
                               "backward once on any region computed under selective "
                               "activation checkpoint.")
        if entry is _RECOMPUTE:
            return fn(*args, **kwargs)
        entries[idx] = _CONSUMED
        return tree_map(lambda c: c.get(self.allow_mutation) if isinstance(c, _Cached) else c,
                        entry)


def create_selective_checkpoint_contexts(policy_fn_or_list: Callable[..., Any] | list[Any],
                                         allow_cache_entry_mutation: bool = False
                                         ) -> tuple[_Mode, _Mode]:
    """The ``context_fn`` pair of a selective checkpoint: pass
    ``functools.partial(create_selective_checkpoint_contexts, policy)`` as ``context_fn``.

    ``policy_fn_or_list``: ``policy(ctx, op, *args, **kwargs) -> CheckpointPolicy``, or a
    list of ops to save (``MUST_SAVE`` for them, ``PREFER_RECOMPUTE`` for the rest).
    ``allow_cache_entry_mutation``: let a saved result be modified in place before backward
    (by default that is a RuntimeError at recomputation)."""
    if isinstance(policy_fn_or_list, list):
        for op in policy_fn_or_list:
            if not callable(op):
                raise ValueError(f"Expected op in `op_list` to be an op (a function) but got: "
                                 f"{op} of type {type(op)}. ")
        ops = list(policy_fn_or_list)

        def policy_fn(ctx: SelectiveCheckpointContext, op: Any, *args: Any,
                      **kwargs: Any) -> CheckpointPolicy:
            return CheckpointPolicy.MUST_SAVE if op in ops else CheckpointPolicy.PREFER_RECOMPUTE
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    storage: dict[Any, dict[int, Any]] = defaultdict(dict)
    return (_Mode(storage, policy_fn, allow_cache_entry_mutation),
            _Mode(storage, None, allow_cache_entry_mutation))


class OpLog(_Intercepting):
    """The other use of the interception (``checkpoint(debug=True)``): a context logging
    every operation the region calls, with the caller's stack, for the error message."""

    def __init__(self) -> None:
        self.ops: list[str] = []
        self.stacks: list[list[str]] = []

    def _reset(self) -> None:
        self.ops.clear()
        self.stacks.clear()

    def call(self, op: Callable[..., Any], name: str, fn: Callable[..., Any],
             args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        import traceback

        out = fn(*args, **kwargs)
        shapes = [list(a.shape) for a in args if isinstance(a, Tensor)]
        self.ops.append(f"{name}({shapes})")
        self.stacks.append([f"{f.filename}:{f.lineno}:{f.name}"
                            for f in traceback.extract_stack()[:-3]])
        return out

    def traces(self, label: str) -> str:
        """The logged operations with their stacks (innermost frame last)."""
        out = ""
        for i, (op, stack) in enumerate(zip(self.ops, self.stacks)):
            out += f"{op}   ({i + 1} of {len(self.ops)} in {label})\n\n" + "\n".join(stack) + "\n\n\n"
        return out
