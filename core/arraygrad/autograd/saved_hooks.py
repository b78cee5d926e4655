"""Hooks on the tensors saved for backward: ``saved_tensors_hooks``, ``save_on_cpu``,
``disable_saved_tensors_hooks`` (PyTorch's ``torch.autograd.graph`` names).

Every value an op saves for backward becomes a ``graph.SavedTensor`` (an input) or a
``graph.SavedOutput`` (the op's own output), whichever path recorded it (a rule, a fast path,
a custom ``Function``'s ``ctx.save_for_backward``). Their constructors are the one place
saving happens, so that is where the innermost hooks of the thread pack the tensor; the
saved value's ``unpack`` (every read: backward, ``node._saved_x``, ``ctx.saved_tensors``)
calls the unpack hook captured then, as PyTorch does.

With no hooks open in any thread, saving costs one attribute test (``_open.hooks``).

>>> with saved_tensors_hooks(lambda t: t.detach().numpy(), arraygrad.from_numpy):
...     y = x.exp()          # exp's output is packed to a NumPy array
>>> y.sum().backward()       # ... and unpacked here
"""

from __future__ import annotations

import threading
import weakref
from typing import TYPE_CHECKING, Any, Callable, cast

if TYPE_CHECKING:
    from arraygrad.autograd.graph import AccumulateGrad, Node
    from arraygrad.tensor import Tensor

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "RawSavedTensor"]


class _Open:
    """Process-wide: how many ``saved_tensors_hooks`` blocks are open in any thread. Saving
    reads only this (a slot) and looks at its own thread's stack only when it is not zero."""

    __slots__ = ("hooks", "lock")

    def __init__(self) -> None:
        self.hooks = 0
        self.lock = threading.Lock()


_open = _Open()


class _ThreadHooks(threading.local):
    """Per thread: the stack of ``(pack, unpack)`` pairs, and the message of an open
    ``disable_saved_tensors_hooks`` (None when hooks are allowed)."""

    disabled: str | None = None

    def __init__(self) -> None:
        self.stack: list[tuple[Callable[[Any], Any], Callable[[Any], Any]]] = []


_thread = _ThreadHooks()


def current_hooks() -> tuple[Callable[[Any], Any], Callable[[Any], Any]] | None:
    """This thread's innermost ``(pack_hook, unpack_hook)``, or None."""
    stack = _thread.stack
    return stack[-1] if stack else None


class saved_tensors_hooks:
    """Within the block, every tensor saved for backward is packed by ``pack_hook(tensor)``
    and read back, in backward, by ``unpack_hook(packed)`` (which must return a Tensor).

    The hooks in force when a tensor is saved are the ones used for it; blocks nest (the
    innermost wins) and are per thread. The unpacked tensor takes the saved tensor's place in
    the graph (its ``grad_fn`` or leaf), so it need not be the same object; saved tensors
    packed by hooks are not version-checked (PyTorch cannot see through the hooks either).
    """

    def __init__(self, pack_hook: Callable[["Tensor"], Any],
                 unpack_hook: Callable[[Any], "Tensor"]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> None:
        message = _thread.disabled
        if message is not None:
            raise RuntimeError(message)
        _thread.stack.append((self.pack_hook, self.unpack_hook))
        with _open.lock:
            _open.hooks += 1

    def __exit__(self, *exc: object) -> None:
        _thread.stack.pop()
        with _open.lock:
            _open.hooks -= 1


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors live on the host (the CPU backend) until backward, which moves each back
    to the device it was saved from. ``pin_memory`` is accepted for PyTorch's signature (the
    array backends have no pinned host memory: it only asks for a non-blocking copy back).

    >>> with save_on_cpu():
    ...     loss = model(x).sum()   # activations are kept on the CPU
    >>> loss.backward()
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        self.pin_memory = bool(pin_memory)
        self.device_type = device_type

        def pack(tensor: "Tensor") -> tuple[Any, "Tensor"]:
            # a copy even on the CPU, as PyTorch's: later in-place changes must not reach it
            return tensor.device, tensor.detach().to("cpu", copy=True)

        def unpack(packed: tuple[Any, "Tensor"]) -> "Tensor":
            device, host = packed
            return host.to(device, non_blocking=self.pin_memory)

        super().__init__(pack, unpack)


class disable_saved_tensors_hooks:
    """Within the block, opening ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``;
    entering it while hooks are open raises the same. Blocks nest; usable as a decorator."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        if _thread.stack:
            raise RuntimeError(self.error_message)
        self._prev = _thread.disabled
        _thread.disabled = self.error_message

    def __exit__(self, *exc: object) -> None:
        _thread.disabled = self._prev

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        import functools

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with disable_saved_tensors_hooks(self.error_message):
                return fn(*args, **kwargs)

        return wrapper


# -- packing and unpacking (called by graph.SavedTensor / SavedOutput) -------------------

INFERENCE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `arraygrad.no_grad()` instead "
    "of `arraygrad.inference_mode()`.")


def pack(saved: Any, tensor: "Tensor", output: bool,
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
    from arraygrad.autograd.graph import PackedSavedOutput, PackedSavedTensor

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


def unpacked(packed: Any, unpack_hook: Callable[[Any], Any], grad_fn: Node | None,
             output_nr: int, leaf: bool) -> "Tensor":
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
        out._acc_ref = weakref.ref(cast("AccumulateGrad", grad_fn))
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

    def unpack(self) -> "Tensor":
        """The saved tensor, as the node's backward reads it."""
        from arraygrad.autograd.graph import FREED, FREED_MESSAGE

        saved = self.node._saved
        if saved is FREED:
            raise RuntimeError(FREED_MESSAGE)
        return saved[self.index].unpack(self.node)

    def register_hooks(self, pack_hook: Callable[["Tensor"], Any],
                       unpack_hook: Callable[[Any], "Tensor"]) -> None:
        """Pack the saved tensor with ``pack_hook`` now; backward reads it back through
        ``unpack_hook``. One pair per saved tensor."""
        from arraygrad.autograd.graph import FREED, PackedSavedOutput, PackedSavedTensor, SavedOutput

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
        pack(s, tensor, isinstance(s, SavedOutput), (pack_hook, unpack_hook))
