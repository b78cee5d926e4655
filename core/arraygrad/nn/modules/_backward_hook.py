"""Full backward hooks of a ``Module``, built as PyTorch's ``torch.utils.hooks.BackwardHook``.

The module's tensor inputs and outputs are each passed through an identity
``autograd.Function``:

* the node wrapping the **outputs** gets a node pre-hook: when the output
  gradients arrive it records them as ``grad_output`` and runs the backward
  pre-hooks (which may replace them);
* the node wrapping the **inputs** gets a node post-hook: when the input
  gradients are computed it calls every full backward hook once with
  ``(module, grad_input, grad_output)`` (which may replace ``grad_input``).

``grad_input`` has one entry per positional argument of ``forward``: None for
arguments that are not tensors or do not require grad. Nothing is kept after
the hooks ran, so no tensor outlives the backward pass through this object.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.autograd.function import Function
from arraygrad.autograd.grad_mode import _state
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.autograd.graph import Node

__all__ = ["BackwardHook", "BackwardHookFunction"]


class BackwardHookFunction(Function):
    """Identity on any number of tensors; its node is where module hooks attach."""

    @staticmethod
    def forward(ctx: Any, *args: Any) -> Any:
        # fresh aliases (an input returned as-is would be detached by Function.apply anyway)
        outs = tuple(a.detach() for a in args)
        ctx.mark_non_differentiable(*[o for o, a in zip(outs, args) if not a.requires_grad])
        return outs

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        return grads

    @staticmethod
    def jvp(ctx: Any, *tangents: Any) -> Any:
        # forward AD through a hooked module: the identity's tangents are the inputs'
        return tangents


class BackwardHook:
    """Wires a module's full backward hooks and backward pre-hooks around one forward call."""

    def __init__(self, module: Any, user_hooks: Any, user_pre_hooks: Any) -> None:
        self.module = module
        self.user_hooks = list(user_hooks)
        self.user_pre_hooks = list(user_pre_hooks)
        self.grad_outputs: Any = None
        self.n_outputs = -1
        self.output_tensors_index: Any = None
        self.n_inputs = -1
        self.input_tensors_index: Any = None

    @staticmethod
    def _pack_with_none(indices: Any, values: Any, size: Any) -> tuple[Any, ...]:
        res = [None] * size
        for idx, val in zip(indices, values):
            res[idx] = val
        return tuple(res)

    @staticmethod
    def _unpack_none(indices: Any, values: Any) -> tuple[Any, ...]:
        return tuple(values[idx] for idx in indices)

    def _apply_on_tensors(self, register: Any, args: Any) -> tuple[Any, ...]:
        """Pass the tensors of ``args`` through ``BackwardHookFunction``; ``register(node)``."""
        tensors_idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in tensors_idx]
        if not (_state.enabled and any(t.requires_grad for t in tensors)):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        node = next(t.grad_fn for t in new_tensors if t.grad_fn is not None)
        register(node)
        out = list(args)
        for idx, val in zip(tensors_idx, new_tensors):
            out[idx] = val
        return tuple(out), tensors_idx

    def setup_input_hook(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """Wrap the positional inputs; the full hooks fire when their gradients are computed."""
        def register(node: Node) -> None:
            node.register_hook(self._input_hook)

        res, idx = self._apply_on_tensors(register, args)
        self.n_inputs = len(args)
        self.input_tensors_index = idx
        return res

    def _input_hook(self, grad_input: Any, _grad_output: Any) -> Any:
        if self.grad_outputs is None:
            # the gradient reached the inputs without passing through the outputs
            # (e.g. a double-backward graph): there is no grad_output to report
            return None
        res = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if not isinstance(out, (tuple, list)):
                out = (out,)
            if len(out) != len(res):
                raise RuntimeError(
                    f"Backward hook returned an invalid number of grad_input, got {len(out)}, but "
                    f"expected {len(res)}")
            res = tuple(out)
        self.grad_outputs = None
        return self._unpack_none(self.input_tensors_index, res)

    def setup_output_hook(self, result: Tensor) -> Tensor:
        """Wrap the outputs; the pre-hooks see ``grad_output`` when it arrives."""
        def register(node: Node) -> None:
            node.register_prehook(self._output_hook)

        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, idx = self._apply_on_tensors(register, args)
        self.n_outputs = len(args)
        self.output_tensors_index = idx
        return res if is_tuple else res[0]

    def _output_hook(self, grad_output: Tensor) -> Any:
        self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output,
                                                 self.n_outputs)
        for pre_hook in self.user_pre_hooks:
            new = pre_hook(self.module, self.grad_outputs)
            if new is None:
                continue
            if not isinstance(new, (tuple, list)):
                new = (new,)
            if len(new) != len(self.grad_outputs):
                raise RuntimeError(
                    f"Backward pre hook returned an invalid number of grad_output, got {len(new)}, "
                    f"but expected {len(self.grad_outputs)}")
            self.grad_outputs = tuple(new)
        local = self.grad_outputs
        if self.input_tensors_index is None:
            # no input requires grad: the input-side node never runs, so call the hooks here
            grad_inputs = self._pack_with_none([], [], self.n_inputs)
            for hook in self.user_hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple)
                                            and all(r is None for r in res)):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should always "
                        "return None or None for all gradients.")
            self.grad_outputs = None
        return tuple(local[i] for i in self.output_tensors_index)
