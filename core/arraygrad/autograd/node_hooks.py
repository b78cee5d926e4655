"""Hooks attach to a node by wrapping its run.

The engine runs every node one way, ``node._run(grads, task)``. A node without
hooks uses its class's plain run; the first hook registered on a node (a node
pre- or post-hook, a tensor hook of one of its outputs, ``retain_grad``, or for
a leaf's ``AccumulateGrad`` the leaf's own tensor hooks and post-accumulate-grad
hooks) installs a ``NodeHooks`` as that node's own ``_run``, so hook-free nodes
pay nothing for hooks. Once every hook is removed, the next run uninstalls it.

The order is PyTorch's: the tensor hooks of the node's outputs, ``retain_grad``
(both on arrival of the summed gradient), the node's pre-hooks, the node, its
post-hooks. A leaf's node hooks and post-accumulate-grad hooks run at the
engine's commit, around the accumulation into ``.grad`` (``LeafHooks.apply``).

A wrapper holds its node weakly: the node's ``__dict__`` holds the wrapper, and
a strong reference back would be a cycle for the garbage collector.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Callable

from arraygrad.autograd.grad_mode import _state

if TYPE_CHECKING:
    from arraygrad.autograd.graph import AccumulateGrad, Node

__all__ = ["NodeHooks", "LeafHooks"]


def _checked(node: Node, old: Any, new: Any, what: str, hook: Any = None) -> Any:
    """A hook's replacement for gradient ``old`` (None: keep ``old``): a tensor of the same
    shape and dtype, as PyTorch requires (a float64 ``.grad`` must not land on a float32
    leaf because a hook returned one)."""
    if new is None:
        return old
    if not hasattr(new, "_grad_fn"):  # a Tensor (checked by its slot: no import of tensor here)
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if old is not None:
        if tuple(new.shape) != tuple(old.shape):
            raise RuntimeError(
                f"{what} of {node.name()} changed the size of the gradient from "
                f"{list(old.shape)} to {list(new.shape)}")
        if new.dtype is not old.dtype or new.device != old.device:
            name = getattr(hook, "__name__", type(hook).__name__)
            raise RuntimeError(
                f"hook '{name}' has changed the type of value (was {old._type_name()} got "
                f"{new._type_name()})")
    return new


def _pre_hooks(node: Node, grads: list[Any]) -> list[Any]:
    """``grads`` after the node's pre-hooks (each may return new gradients)."""
    hooks = node._pre_hooks
    if hooks:
        for hook in tuple(hooks.values()):
            new = hook(tuple(grads))
            if new is not None:
                grads = [_checked(node, o, n, "a pre-hook", hook) for o, n in zip(grads, new)]
    return grads


def _post_hooks(node: Node, outs: tuple[Any, ...], grads: list[Any]) -> tuple[Any, ...]:
    """``outs`` after the node's post-hooks (each may return new input gradients)."""
    hooks = node._post_hooks
    if hooks:
        for hook in tuple(hooks.values()):
            new = hook(outs, tuple(grads))
            if new is not None:
                outs = tuple(new)
    return outs


class NodeHooks:
    """A node's run with its hooks around it, installed as the node's own ``_run``.

    ``arrive`` and ``execute`` are the two halves of ``__call__``: the engine
    calls them apart only when it captures gradients for ``autograd.grad``,
    which it does between them (after the tensor hooks, before the node).
    """

    __slots__ = ("_node",)
    # a weak reference: the wrapper is the node's own attribute, so the node outlives it
    _node: Callable[[], Node]

    def __init__(self, node: Node) -> None:
        self._node = weakref.ref(node)  # type: ignore[assignment]  # never dead while called: see _node

    @classmethod
    def install(cls, node: Node) -> None:
        """Wrap ``node``'s run (once: a node has one wrapper for all its hooks)."""
        if "_run" not in node.__dict__:
            node._run = cls(node)  # type: ignore[method-assign]  # the per-node wrapper (Node._run)

    def _uninstall(self, node: Node) -> None:
        node.__dict__.pop("_run", None)

    def has_hooks(self, node: Node) -> bool:
        """Whether ``node`` still has a hook or a retained gradient to look after."""
        tensor_hooks = node._tensor_pre_hooks
        return bool(node._pre_hooks or node._post_hooks or node._retains_grad
                    or (tensor_hooks and any(tensor_hooks.values())))

    def __call__(self, grads: list[Any], task: Any) -> Any:
        """The node's run: ``arrive`` then ``execute``."""
        node = self._node()
        if not self.has_hooks(node):
            # every hook was removed: the node gets its plain run back. The second look
            # catches a hook another thread registered meanwhile, whose install saw this
            # wrapper still in place
            self._uninstall(node)
            if self.has_hooks(node):
                self.install(node)
            else:
                return type(node)._run(node, grads, task)
        return self.execute(self.arrive(grads, task), task)

    def arrive(self, grads: list[Any], task: Any) -> list[Any]:
        """The summed gradient arrives: the outputs' tensor hooks, then ``retain_grad``."""
        node = self._node()
        tensor_hooks = node._tensor_pre_hooks
        if tensor_hooks:
            for nr, hooks in tensor_hooks.items():
                if not hooks or grads[nr] is None:
                    continue
                for hook in tuple(hooks.values()):
                    grads[nr] = _checked(node, grads[nr], hook(grads[nr]), "a tensor hook", hook)
        retains = node._retains_grad
        if retains:
            for nr, ref in retains.items():
                tensor, g = ref(), grads[nr]
                if tensor is not None and g is not None:  # written by the engine's commit
                    task.retained.append((tensor, g if _state.enabled else g.detach()))
        return grads

    def execute(self, grads: list[Any], task: Any) -> Any:
        """Pre-hooks, the node's plain run, post-hooks."""
        node = self._node()
        grads = _pre_hooks(node, grads)
        outs = type(node)._run(node, grads, task)
        return outs if outs is None else _post_hooks(node, outs, grads)


class LeafHooks(NodeHooks):
    """The hooks of a leaf's ``AccumulateGrad``.

    Its run only defers the gradient to the engine's commit, so the node hooks
    wrap the accumulation instead: ``apply`` is installed as the node's own
    ``_apply`` and runs pre-hooks, the accumulation, the leaf's
    post-accumulate-grad hooks (which see the new ``.grad``), post-hooks.
    """

    __slots__ = ()
    _node: Callable[[], AccumulateGrad]

    @classmethod
    def install(cls, node: Node) -> None:
        if "_run" not in node.__dict__:
            wrapper = cls(node)
            node._run = wrapper  # type: ignore[method-assign]  # the per-node wrapper (Node._run)
            node._apply = wrapper.apply  # type: ignore[method-assign]  # likewise for the leaf's commit

    def _uninstall(self, node: Node) -> None:
        node.__dict__.pop("_run", None)
        node.__dict__.pop("_apply", None)

    def has_hooks(self, node: Node) -> bool:
        var = node.variable  # type: ignore[attr-defined]  # a LeafHooks wraps an AccumulateGrad
        return bool(node._pre_hooks or node._post_hooks or var._hooks or var._post_acc_hooks)

    def execute(self, grads: list[Any], task: Any) -> Any:
        node = self._node()
        return type(node)._run(node, grads, task)

    def apply(self, grads: list[Any]) -> tuple[Any, ...]:
        """The accumulation into ``.grad`` with the node's and the leaf's hooks around it."""
        node = self._node()
        grads = _pre_hooks(node, grads)
        outs = type(node)._apply(node, grads)
        var = node.variable
        hooks = var._post_acc_hooks
        if hooks:
            for hook in tuple(hooks.values()):
                hook(var)
        return _post_hooks(node, outs, grads)
