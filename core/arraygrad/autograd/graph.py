"""The recorded graph: ``Node`` (a tensor's ``grad_fn``), saved tensors, and ``AccumulateGrad``.

A node knows the edges to the nodes that produced its inputs
(``next_functions``), what it saved for backward, and its hooks. Its
``_apply`` maps the gradients of its outputs to the gradients of its inputs;
its ``_run`` is how the engine runs it in a backward pass (hooks wrap it, see
``node_hooks``).
"""

from __future__ import annotations

import itertools
import logging
import sys
import weakref
from typing import TYPE_CHECKING, Any, Callable, cast

from arraygrad.autograd.anomaly_mode import remember_forward, state as _anomaly
from arraygrad.autograd.grad_mode import _state
from arraygrad.autograd.gradient_edge import GradientEdge, get_gradient_edge, increment_version
from arraygrad.autograd.mutation_on_saved import allow_mutation_on_saved_tensors
from arraygrad.autograd.stream_flags import (
    set_override_stale_capture_stream, set_warn_on_accumulate_grad_stream_mismatch,
)
from arraygrad.autograd.hooks import HookDict, RemovableHandle
from arraygrad.autograd.multi_grad_hook import register_multi_grad_hook
from arraygrad.autograd.node_hooks import LeafHooks, NodeHooks
from arraygrad.autograd.saved_hooks import (
    INFERENCE_MESSAGE, _open as _hooks_open, current_hooks, disable_saved_tensors_hooks,
    save_on_cpu, saved_tensors_hooks,
)

if TYPE_CHECKING:
    from typing import TypeAlias

    from arraygrad.tensor import Tensor

    # an edge to an input's node: the node itself for its output 0, else (node, output_nr)
    Edge: TypeAlias = "Node | tuple[Node, int]"

__all__ = ["Node", "AccumulateGrad", "SavedTensor", "SavedOutput", "FREED_MESSAGE", "RawSavedTensor",
           "saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks",
           "register_multi_grad_hook", "allow_mutation_on_saved_tensors", "GradientEdge",
           "get_gradient_edge", "increment_version", "set_warn_on_accumulate_grad_stream_mismatch",
           "set_override_stale_capture_stream"]

log = logging.getLogger(__name__)

# ``Variable`` (PyTorch's module imports it) sits above this module: ``arraygrad.autograd`` sets
# it here once both are loaded.

_sequence = itertools.count()
_refcount = getattr(sys, "getrefcount", lambda obj: 1 << 30)  # other Pythons: always copy
_UNSHARED = 3  # the grads list, the local name, and getrefcount's own argument

FREED_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")


class SavedTensor:
    """An input tensor saved for backward, with the version it had when saved.

    Saving while ``saved_tensors_hooks`` are open packs it instead (``saved_hooks.pack``:
    the object becomes a ``PackedSavedTensor``)."""

    __slots__ = ("tensor", "version")

    def __init__(self, tensor: Tensor) -> None:
        if tensor._inference:
            raise RuntimeError(INFERENCE_MESSAGE)
        self.tensor = tensor
        vc = tensor._vc  # created lazily: a tensor never modified in place has none (version 0)
        self.version = vc[0] if vc is not None else 0
        if _hooks_open.hooks:  # one slot test when no hooks are open anywhere
            _pack(self, tensor, False)

    def unpack(self, node: "Node") -> Any:
        t = self.tensor
        vc = t._vc
        now = vc[0] if vc is not None else 0
        if now != self.version:
            raise RuntimeError(_modified_message(node, t, self.version, now))
        return t


class SavedOutput:
    """An output of ``node`` saved for its own backward.

    It keeps the array, not the tensor, so the node does not form a reference
    cycle with its output; unpacking rebuilds a tensor whose ``grad_fn`` is
    the node, as PyTorch does.
    """

    __slots__ = ("data", "backend", "counter", "version", "output_nr", "fw_grads")

    def __init__(self, tensor: Tensor) -> None:
        self.data = tensor._data
        self.backend = tensor._backend
        vc = tensor._vc  # ``_version_counter()`` inline: every op saving its result
        if vc is None:
            vc = tensor._vc = [0]
        self.counter = vc
        self.version = vc[0]
        self.output_nr = tensor._output_nr
        # forward AD: the output's tangents (the dict itself, so exiting a level drops them
        # here too), for forward-over-reverse through a backward that reads the output
        self.fw_grads = tensor._fw_grads
        if _hooks_open.hooks:
            _pack(self, tensor, True)

    def checked_data(self, node: "Node") -> Any:
        """The saved array (no tensor around it), after the same version check as ``unpack``."""
        if self.counter[0] != self.version:
            raise RuntimeError(_modified_message(node, None, self.version, self.counter[0],
                                                 shape=tuple(self.data.shape)))
        return self.data

    def unpack(self, node: "Node") -> Any:
        from arraygrad.tensor import Tensor

        t = Tensor._wrap(self.checked_data(node), self.backend)
        t._vc = self.counter
        t._requires_grad = True
        t._grad_fn = node
        t._output_nr = self.output_nr
        if self.fw_grads:
            t._fw_grads = self.fw_grads
        return t


class PackedSavedTensor(SavedTensor):
    """A ``SavedTensor`` packed by ``saved_tensors_hooks``: ``tensor`` holds the packed value,
    ``version`` the pair ``(unpack_hook, (grad_fn, output_nr) or None)``. Not version-checked."""

    __slots__ = ()

    def unpack(self, node: "Node") -> Any:
        hook, place = cast(Any, self.version)  # the packed layout (see the docstring)
        if place is None:
            return _unpacked(self.tensor, hook, None, 0, False)
        fn, nr = place
        return _unpacked(self.tensor, hook, fn, nr, isinstance(fn, AccumulateGrad))


class PackedSavedOutput(SavedOutput):
    """A ``SavedOutput`` packed by ``saved_tensors_hooks``: ``data`` holds the packed value,
    ``backend`` the unpack hook. Unpacked, it has the node as ``grad_fn``, as PyTorch's."""

    __slots__ = ()

    def checked_data(self, node: "Node") -> Any:
        return self.unpack(node)._data

    def unpack(self, node: "Node") -> Any:
        return _unpacked(self.data, cast(Any, self.backend), node, self.output_nr, False)


def _modified_message(node: Node, tensor: Tensor | None, saved: int, now: int,
                      shape: Any = None) -> str:
    if tensor is not None:
        shape = tuple(tensor.shape)
        what = f"[{tensor._type_name()} {list(shape)}]"
    else:
        what = f"[tensor of shape {list(shape)}], which is output 0 of {node.name()},"
    return (f"one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: {what} is at version {now}; expected version {saved} "
            f"instead (saved by {node.name()}).")


_SAVED_KINDS: frozenset[Any] = frozenset((SavedTensor, SavedOutput, PackedSavedTensor,
                                          PackedSavedOutput))


class _Freed(tuple[Any, ...]):
    """The ``_saved`` of a node whose saved values were released: empty, and recognisable."""

    __slots__ = ()


FREED: tuple[Any, ...] = _Freed()


def _materialize(node: Node, grads: list[Any]) -> list[Any]:
    """A copy of ``grads`` with zeros for the missing output gradients of a node that has
    several outputs (a copy: its post-hooks get the gradients that arrived, as in PyTorch)."""
    from arraygrad.tensor import Tensor

    out = list(grads)
    for i, g in enumerate(out):
        if g is None:
            shape, dtype, backend = node._out_meta[i]
            out[i] = Tensor._wrap(backend.xp.zeros(shape, dtype=dtype), backend)
    return out


class Node:
    """A recorded operation: the ``grad_fn`` of the tensors it produced.

    ``next_functions`` are ``(node, output_nr)`` pairs, one per input, ``None``
    where an input needs no gradient. Internally ``_next`` stores an edge to
    output 0 as the bare node (one object less per op for the garbage collector
    to scan in deep graphs). Subclasses implement ``_apply``.
    """

    # Hot attributes are slots; rarely-set ones (hooks, retained grads, multi-output
    # metadata, the hook wrapper of ``_run``) are class-level defaults overridden per
    # instance only when used, so making a node costs three assignments.
    __slots__ = ("_next", "_seq", "_saved", "__dict__", "__weakref__")
    _next: tuple[Edge | None, ...]
    _seq: int | float
    _saved: tuple[Any, ...]  # FREED once released
    _pre_hooks: HookDict | None = None
    _post_hooks: HookDict | None = None
    _tensor_pre_hooks: dict[int, HookDict] | None = None
    _retains_grad: dict[int, Any] | None = None  # output_nr -> weakref to the tensor
    _hooks_wrapper: type[NodeHooks] = NodeHooks  # what the first hook installs as ``_run``
    _n_outputs: int = 1
    _out_meta: tuple[tuple[Any, Any, Any], ...] = ()  # per output: (shape, native dtype, backend)
    # whether the engine's plain pass may hand this node's own run bare arrays
    # (``engine.BareGradients``): a rule's node says so (``RuleNode``); a hooks' wrapper
    # installed as its ``_run`` still gets tensors
    _raw_ok: bool = False

    def __init__(self) -> None:
        self._seq = next(_sequence)
        self._next = ()
        self._saved = ()
        if _anomaly.enabled:
            remember_forward(self)

    # -- what a node computes ----------------------------------------------
    def _apply(self, grads: list[Any]) -> tuple[Any, ...]:
        """Gradients of the inputs (one per edge) from the gradients of the outputs."""
        raise NotImplementedError

    def _run(self, grads: list[Any], task: Any) -> tuple[Any, ...] | None:
        """Run this node in a backward pass: the gradients for its edges (None: nothing to
        pass on).

        ``grads`` holds the summed gradient of each output, None where none arrived (the
        engine runs a node only once one did); ``task`` is the engine's state of the pass.
        This is the plain run: a node's first hook wraps it per instance
        (``node_hooks.NodeHooks``), so the engine never asks whether a node has hooks.
        """
        if self._saved is FREED:
            raise RuntimeError(FREED_MESSAGE)
        if len(grads) > 1 and None in grads and getattr(self, "materialize_grads", True):
            grads = _materialize(self, grads)
        return self._apply(grads)

    def name(self) -> str:
        """The node's class name, e.g. ``"MulBackward0"``."""
        return type(self).__name__

    @property
    def next_functions(self) -> tuple[Any, ...]:
        """``((node, output_nr) | (None, 0), ...)``: the edges to the inputs' nodes."""
        return tuple((None, 0) if e is None else (e if type(e) is tuple else (e, 0))
                     for e in self._next)

    @property
    def _freed(self) -> bool:
        """Whether the saved values were released by a backward without ``retain_graph``."""
        return self._saved is FREED

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """The values saved for backward (raises once the graph was freed)."""
        if self._saved is FREED:
            raise RuntimeError(FREED_MESSAGE)
        return tuple([s.unpack(self) if s.__class__ in _SAVED_KINDS else s for s in self._saved])

    def _release(self) -> None:
        """Drop the saved values after the node ran (unless ``retain_graph``)."""
        if self._saved:
            self._saved = FREED

    # -- hooks ---------------------------------------------------------------
    def register_hook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after the node; may return new grad_inputs."""
        if self._post_hooks is None:
            self._post_hooks = HookDict()
        handle = RemovableHandle(self._post_hooks).add(self._post_hooks, fn)
        self._install_hooks()
        return handle

    def register_prehook(self, fn: Callable[..., Any]) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before the node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = HookDict()
        handle = RemovableHandle(self._pre_hooks).add(self._pre_hooks, fn)
        self._install_hooks()
        return handle

    def _tensor_hooks(self, output_nr: int) -> HookDict:
        """The hook dict of the tensor that is this node's output ``output_nr`` (the caller
        adds its hook, then calls ``_install_hooks``)."""
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        hooks = self._tensor_pre_hooks.get(output_nr)
        if hooks is None:
            hooks = self._tensor_pre_hooks[output_nr] = HookDict()
        return hooks

    def _install_hooks(self) -> None:
        """Wrap this node's run with its hooks; every hook setter calls it after adding its
        hook (a no-op once wrapped)."""
        self._hooks_wrapper.install(self)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


class AccumulateGrad(Node):
    """The node of a leaf that requires grad: sums incoming gradients into ``.grad``."""

    __slots__ = ("variable",)
    # class-level, not per instance: a leaf's node is rebuilt for every graph it joins
    _seq = float("inf")  # run as soon as ready, like PyTorch
    _hooks_wrapper = LeafHooks

    def __init__(self, variable: Any) -> None:
        self._next = ()
        self._saved = ()
        if _anomaly.enabled:
            remember_forward(self)
        self.variable = variable
        if variable._hooks or variable._post_acc_hooks:
            self._install_hooks()

    @property
    # a leaf's hooks live on its tensor: read-only here
    def _tensor_pre_hooks(self) -> dict[int, HookDict] | None:  # type: ignore[override]
        """The leaf's own tensor hooks (``register_hook`` on it), as output 0's."""
        hooks = self.variable._hooks
        return {0: hooks} if hooks else None

    def _run(self, grads: list[Any], task: Any) -> None:
        """Defer the gradient to the engine's commit (``_apply`` there): ``.grad`` is written
        only once every node of the pass ran. Passes nothing on (a leaf has no edges)."""
        task.accumulations.append((self, grads))
        return None

    def _apply(self, grads: list[Any]) -> tuple[Any, ...]:
        """Accumulate into the leaf's ``.grad``: the engine's commit calls it (``LeafHooks``
        wraps it with the node's hooks and the leaf's post-accumulate-grad hooks)."""
        var = self.variable
        g = grads[0]
        if g is None:
            return ()
        if g._backend is not var._backend:  # batched by a vmap call the leaf is outside of
            from arraygrad.backends.stacking import gradient_for  # (not at import: tensor's layer)

            g = gradient_for(g, var._backend)
        wanted = var._grad_dtype  # ``grad_dtype`` set on the leaf: its gradients are cast
        if wanted is not False and wanted is not None and g.dtype is not wanted:
            g = g.to(wanted)
        if _state.enabled:  # create_graph: keep the gradient's own graph
            var._grad = g if var._grad is None else var._grad + g
        elif var._grad is None:
            # steal the gradient's array when nothing else can see it (as PyTorch does),
            # else copy it so later in-place accumulation cannot reach another tensor
            if _refcount(g) <= _UNSHARED and g._grad_fn is None and g._backend.is_exclusive(g._data):
                var._grad = g
            else:
                var._grad = g._detached_copy()
        elif var._grad._grad_fn is not None or var._grad.is_sparse or g.is_sparse:
            # (a sparse gradient, or one added to: the sum has a new layout or pattern)
            var._grad = var._grad.detach() + g.detach()
        else:
            old = var._grad
            if old._backend.mutable_arrays:
                data = old._data
                data += g._data  # accumulate in place, as PyTorch does outside create_graph
            else:  # (``+=`` would rebind a local and lose every earlier micro-batch)
                from arraygrad.immutable_writes import rebind

                rebind(old, old._data + g._data)
            old._bump_version()
        return ()

    def _release(self) -> None:
        pass  # holds no saved values; the leaf outlives any one backward


# -- saved tensors under hooks (``saved_hooks``): packing, unpacking, one saved value ------

def _pack(saved: Any, tensor: Tensor, output: bool,
         hooks: tuple[Callable[[Any], Any], Callable[[Any], Any]] | None = None) -> None:
    """Pack ``tensor`` into ``saved`` (a SavedTensor or SavedOutput being built) with
    ``hooks``, by default this thread's innermost ones, when it has any; ``saved`` then
    becomes its packed class.

    The packed class keeps the same slots: the packed value and what unpacking needs to put
    the unpacked tensor in the saved one's place in the graph (PyTorch's SavedVariable
    metadata: the grad_fn and output number of a non-leaf input, the AccumulateGrad of a leaf
    that requires grad; an output's grad_fn is the node itself, given at unpack)."""
    if hooks is None:
        hooks = current_hooks()
        if hooks is None:
            return
    pack_hook, unpack_hook = hooks
    place: Any = None
    if not output and tensor._requires_grad:
        place = tensor._gradient_edge()  # (node, output_nr): an AccumulateGrad for a leaf
    packed = pack_hook(tensor)
    if output:
        saved.__class__ = PackedSavedOutput
        saved.data = packed
        saved.backend = unpack_hook
        saved.counter = None
    else:
        saved.__class__ = PackedSavedTensor
        saved.tensor = packed
        saved.version = (unpack_hook, place)


def _unpacked(packed: Any, unpack_hook: Callable[[Any], Any], grad_fn: Node | None,
             output_nr: int, leaf: bool) -> Tensor:
    """``unpack_hook(packed)`` as a tensor that stands where the saved one stood: its data,
    with ``grad_fn`` and ``output_nr`` (a non-leaf), or the leaf's AccumulateGrad ``grad_fn``
    (``leaf``), or no graph (None)."""
    from arraygrad.tensor import Tensor, wrap

    t = unpack_hook(packed)
    if not isinstance(t, Tensor):
        raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                        f"result of type {type(t).__name__}")
    out = wrap(t._data, t._backend)
    if grad_fn is None:
        return out
    out._requires_grad = True
    if leaf:
        out._acc_ref = weakref.ref(cast(AccumulateGrad, grad_fn))
    else:
        out._grad_fn = grad_fn
        out._output_nr = output_nr
    return out


class RawSavedTensor:
    """A node's saved value itself (``node._raw_saved_<name>``, PyTorch's
    ``torch._C._autograd.SavedTensor``): ``unpack()`` reads it, ``register_hooks`` packs it
    now with a pair of hooks of its own."""

    __slots__ = ("node", "index")

    def __init__(self, node: Node, index: int) -> None:
        self.node = node
        self.index = index

    def unpack(self) -> Tensor:
        """The saved tensor, as the node's backward reads it."""
        saved = self.node._saved
        if saved is FREED:
            raise RuntimeError(FREED_MESSAGE)
        return saved[self.index].unpack(self.node)

    def register_hooks(self, pack_hook: Callable[[Tensor], Any],
                       unpack_hook: Callable[[Any], Tensor]) -> None:
        """Pack the saved tensor with ``pack_hook`` now; backward reads it back through
        ``unpack_hook``. One pair per saved tensor."""
        if not (callable(pack_hook) and callable(unpack_hook)):
            raise TypeError("register_hooks(): incompatible function arguments: expected two "
                            "callables")
        saved = self.node._saved
        if saved is FREED:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through "
                "the graph a second time or if you need to access saved variables after "
                "calling backward.")
        s = saved[self.index]
        if isinstance(s, (PackedSavedTensor, PackedSavedOutput)):
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have "
                               "already been set. Hint: only one pair of hooks is allowed at "
                               "a time.")
        tensor = s.unpack(self.node)  # version-checked, as PyTorch's
        _pack(s, tensor, isinstance(s, SavedOutput), (pack_hook, unpack_hook))
