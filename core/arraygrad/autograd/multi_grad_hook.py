"""``register_multi_grad_hook`` (``torch.autograd.graph``): one hook over several tensors'
gradients, built on ``Tensor.register_hook`` as PyTorch's is.

- ``mode="all"``: ``fn(grads)`` once per backward pass, when the gradients of every tensor
  that pass computes have arrived (``grads`` has None for the tensors it does not reach: not
  in the graph, or not needed for the ``inputs`` of ``autograd.grad``/``backward``).
- ``mode="any"``: ``fn(grad)`` once per pass, with the first gradient to arrive.
"""

from __future__ import annotations

import functools
import threading
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence, cast

from arraygrad.autograd.hooks import RemovableHandle, _next_id

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["register_multi_grad_hook"]


class _MultiHandle(RemovableHandle):
    """The handle of a multi-grad hook: removes the hook from every tensor."""

    __slots__ = ("handles",)

    def __init__(self, handles: tuple[RemovableHandle, ...]) -> None:
        self.id = next(_next_id)  # no hook dict of its own: ``remove`` goes to ``handles``
        self._dicts = ()
        self.handles = handles

    def remove(self) -> None:
        """Remove the hook from every tensor (harmless twice)."""
        for handle in self.handles:
            handle.remove()


class _EngineQueries:
    """The engine's two queries, handed in by ``autograd.engine`` when it loads, not
    imported: this module sits below the engine (which imports the graph that re-exports
    this module's function). Hooks only run inside a backward pass, so they are set by then."""

    current_task: Callable[[], Any]
    will_execute: Callable[[Any, Any], bool]


engine_queries = _EngineQueries()


def _running_task() -> Any:
    task = engine_queries.current_task()
    if task is None:
        raise AssertionError("expected this hook to be called inside a backward call")
    return task


def register_multi_grad_hook(tensors: Sequence["Tensor"],
                             fn: Callable[[Sequence["Tensor | None"]], None]
                             | Callable[["Tensor"], None],
                             *, mode: Literal["all", "any"] = "all") -> RemovableHandle:
    """Register ``fn`` over the gradients of ``tensors`` (see the module docstring for the
    two ``mode``s); returns a handle whose ``remove()`` removes it.

    >>> h = register_multi_grad_hook((a, b), lambda grads: print([g is not None for g in grads]))
    """
    supported_modes = ("all", "any")
    if mode not in supported_modes:
        raise ValueError(f"Expects mode to be one of {supported_modes} but got {mode}")
    tensors = tuple(tensors)
    lock = threading.Lock()
    if mode == "all":
        for t in tensors:  # check first: nothing is registered when one tensor cannot be
            if not t.requires_grad:
                raise RuntimeError(
                    "cannot register a hook on a tensor that doesn't require gradient")
        # the tensors' nodes now (a leaf's AccumulateGrad is kept alive by this list, so
        # it is the one its graphs use)
        nodes = [cast(tuple[Any, ...], t._gradient_edge())[0] for t in tensors]  # all require grad
        n = len(tensors)
        # per pass (keyed by its task; the entry is dropped when fn runs or the pass ends):
        # [task, gradients so far, how many arrived, how many will]
        passes: dict[int, list[Any]] = {}

        def inner_hook(idx: int) -> Callable[[Any], None]:
            def hook(grad: Any) -> None:
                will_execute = engine_queries.will_execute
                task = _running_task()
                if not will_execute(task, nodes[idx]):
                    # the engine may hand a gradient to a tensor the pass does not need (its
                    # hooks run, nothing accumulates); PyTorch computes none: ignore it
                    return
                key = id(task)
                with lock:
                    state = passes.get(key)
                    if state is None or state[0] is not task:
                        expected = sum(will_execute(task, node) for node in nodes)
                        state = passes[key] = [task, [None] * n, 0, expected]
                        task.callbacks.append(lambda: passes.pop(key, None))
                    state[1][idx] = grad
                    state[2] += 1
                    done = state[2] == state[3]
                    if done:
                        del passes[key]
                if done:
                    fn(state[1])

            return hook

        handles = tuple(t.register_hook(inner_hook(i)) for i, t in enumerate(tensors))
    else:
        ran: dict[int, Any] = {}

        @functools.wraps(fn)
        def wrapped(grad: Any) -> None:
            task = _running_task()
            key = id(task)
            with lock:
                if ran.get(key) is task:
                    return
                ran[key] = task
                task.callbacks.append(lambda: ran.pop(key, None))
            fn(grad)

        handles = tuple(t.register_hook(wrapped) for t in tensors if t.requires_grad)
    return _MultiHandle(handles)
