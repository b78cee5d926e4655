"""Hooks on the tensors saved for backward: ``saved_tensors_hooks``, ``save_on_cpu``,
``disable_saved_tensors_hooks`` (PyTorch's ``torch.autograd.graph`` names).

Every value an op saves for backward becomes a ``graph.SavedTensor`` (an input) or a
``graph.SavedOutput`` (the op's own output), whichever path recorded it (a rule, a fast path,
a custom ``Function``'s ``ctx.save_for_backward``). Their constructors are the one place
saving happens, so that is where the innermost hooks of the thread pack the tensor
(``graph._pack``); the saved value's ``unpack`` (every read: backward, ``node._saved_x``,
``ctx.saved_tensors``) calls the unpack hook captured then, as PyTorch does. This module
holds the hooks' state and imports nothing of the graph (it sits below it).

With no hooks open in any thread, saving costs one attribute test (``_open.hooks``).

>>> with saved_tensors_hooks(lambda t: t.detach().numpy(), arraygrad.from_numpy):
...     y = x.exp()          # exp's output is packed to a NumPy array
>>> y.sum().backward()       # ... and unpacked here
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks"]


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


INFERENCE_MESSAGE = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
    "inference mode in computation tracked by autograd. To work around this, you can make a "
    "clone to get a normal tensor and use it in autograd, or use `arraygrad.no_grad()` instead "
    "of `arraygrad.inference_mode()`.")
