"""Custom differentiable operations: ``autograd.Function`` and its ``ctx``.

>>> class Exp(Function):
...     @staticmethod
...     def forward(ctx, x):
...         y = x.exp()
...         ctx.save_for_backward(y)
...         return y
...     @staticmethod
...     def backward(ctx, grad):
...         (y,) = ctx.saved_tensors
...         return grad * y
>>> Exp.apply(arraygrad.tensor([0.], requires_grad=True))
tensor([1.], grad_fn=<ExpBackward>)
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator

from arraygrad.autograd.grad_mode import _state, no_grad
from arraygrad.autograd.graph import FREED, FREED_MESSAGE, Node, SavedOutput, SavedTensor

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable"]


class FunctionCtx:
    """The ``ctx`` a custom Function's ``forward`` and ``backward`` share."""

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors (or None) for backward; read them back with ``ctx.saved_tensors``."""
        from arraygrad.tensor import Tensor

        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    f"save_for_backward can only save variables, but argument {i} is of type "
                    f"{type(t).__name__}")
        self._to_save = tensors

    def save_for_forward(self, *tensors: Any) -> None:
        """Keep tensors (or None) for ``jvp``, which reads them with ``ctx.saved_tensors``."""
        self._fw_saved = tensors

    def mark_dirty(self, *tensors: Any) -> None:
        """Declare inputs modified in place by ``forward``."""
        self._dirty = tensors

    def mark_non_differentiable(self, *tensors: Any) -> None:
        """Declare outputs that never get a gradient (e.g. indices)."""
        self._non_differentiable = tensors

    def set_materialize_grads(self, value: bool) -> None:
        """Whether missing output gradients reach ``backward`` as zeros (default) or None."""
        self.materialize_grads = bool(value)


class BackwardCFunction(FunctionCtx, Node):
    """The graph node of one ``Function.apply`` call; it is also that call's ``ctx``."""

    _function: Any = None  # the Function subclass whose apply made this node
    _in_jvp = False  # ``jvp`` is running: ``saved_tensors`` are ``save_for_forward``'s
    _fw_saved: tuple[Any, ...] = ()

    def __init__(self) -> None:
        Node.__init__(self)
        self._to_save: tuple[Any, ...] = ()
        self._dirty = ()
        self._non_differentiable = ()
        self.materialize_grads = True
        self.needs_input_grad = ()
        self._input_meta: tuple[Any, ...] = ()

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """The tensors given to ``save_for_backward`` (version-checked)."""
        if self._freed:
            raise RuntimeError(FREED_MESSAGE)
        if self._in_jvp:
            return tuple(self._fw_saved)
        if self._saved:
            return tuple(s.unpack(self) if s is not None else None for s in self._saved)
        return tuple(self._to_save)

    saved_variables = saved_tensors

    def _release(self) -> None:
        if self._saved:
            self._saved = FREED

    def _apply(self, grads: list[Any]) -> tuple[Any, ...]:
        from arraygrad.ops.rule import finish_grad
        from arraygrad.tensor import Tensor

        result = self._function.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self._input_meta)
        if len(result) != n:
            extra_ok = len(result) > n and all(r is None for r in result[n:])
            if not extra_ok:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {n}, got {len(result)})")
            result = result[:n]
        out: list[Any] = []
        for i, (g, meta) in enumerate(zip(result, self._input_meta)):
            if g is not None and meta is None:
                raise RuntimeError(
                    f"function {self.name()} returned a gradient different than None at "
                    f"position {i + 1}, but the corresponding forward input was not a Variable")
            if g is None or self._next[i] is None:
                out.append(None)
                continue
            if not isinstance(g, Tensor):
                raise TypeError(
                    f"function {self.name()} returned a gradient of type {type(g).__name__} at "
                    f"index {i}; expected a Tensor or None")
            shape = meta[0]
            if g._data.shape != shape and not _expands_to(shape, g._data.shape):
                raise RuntimeError(
                    f"Function {self.name()} returned an invalid gradient at index {i} - got "
                    f"{list(result[i].shape)} but expected shape compatible with {list(shape)}")
            # the recorder's own last step, shared with every rule: a broadcast gradient is
            # summed back to the input's shape and cast back to its dtype
            g = finish_grad(g, meta)
            out.append(g)
        return tuple(out)


def _expands_to(shape: tuple[Any, ...], target: tuple[Any, ...]) -> bool:
    """Whether ``shape`` broadcasts to ``target``."""
    if len(shape) > len(target):
        return False
    return all(s == 1 or s == t for s, t in zip(shape[::-1], target[::-1]))


class _FunctionMeta(type):
    """Gives each Function subclass its own node class, named ``<Name>Backward``."""

    def __init__(cls, name: str, bases: Any, attrs: Any) -> None:
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(f"{name}Backward", (BackwardCFunction,), {"_function": cls})


class Function(metaclass=_FunctionMeta):
    """Base class of custom differentiable operations; call them with ``.apply``.

    Subclasses define ``forward(ctx, *args)`` (or ``forward(*args)`` plus
    ``setup_context(ctx, inputs, output)``) and ``backward(ctx, *grads)``
    returning one gradient (or None) per forward argument.
    """

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> None:
        """Compute the outputs from the inputs (run without recording)."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
        """Save what backward needs, when ``forward`` does not take ``ctx``."""
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> None:
        """Gradients of the inputs from the gradients of the outputs."""
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Forward mode: the outputs' tangents from the inputs' (a tensor input without one
        gets zeros, a non-tensor None); ``ctx.saved_tensors`` are ``save_for_forward``'s."""
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run the function on ``args``, recording it when an input requires grad."""
        from arraygrad.tensor import Tensor

        ctx = cls._backward_cls()
        tensor_args = [a if isinstance(a, Tensor) else None for a in args]
        ctx.needs_input_grad = tuple(a is not None and a._requires_grad for a in tensor_args)
        uses_setup = cls.setup_context is not Function.setup_context
        tangents = _input_tangents(cls, tensor_args)
        with no_grad(), _no_tangents():
            if uses_setup:
                output = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
        is_tuple = isinstance(output, tuple)
        outputs: Any = output if is_tuple else (output,)
        record = _state.enabled and any(ctx.needs_input_grad)
        if not record:
            if tangents is not None:
                _forward_mode(cls, ctx, args, tangents, outputs)
            return output
        ctx._next = tuple(a._gradient_edge() if a is not None and a._requires_grad else None
                          for a in tensor_args)
        ctx._input_meta = tuple((a._data.shape, a._data.dtype) if a is not None else None
                                for a in tensor_args)
        non_diff = {id(t) for t in ctx._non_differentiable}
        dirty = {id(t) for t in ctx._dirty}
        for t in ctx._dirty:
            if t._grad_fn is None and t._requires_grad:
                raise RuntimeError(
                    f"{cls.__name__}: a leaf Variable that requires grad has been used in an "
                    f"in-place operation (marked dirty in forward).")
        wrapped: list[Any] = []
        for i, out in enumerate(outputs):
            if not isinstance(out, Tensor):
                wrapped.append(out)
                continue
            marked_non_diff = id(out) in non_diff
            if any(out is a for a in tensor_args) and id(out) not in dirty:
                out = out.detach()  # an input returned as-is gets its own tensor
            if not marked_non_diff and out._data.dtype in out._backend.differentiable_natives:
                out._grad_fn = ctx
                out._output_nr = i
                out._requires_grad = True
            wrapped.append(out)
        ctx._out_meta = tuple((o._data.shape, o._data.dtype, o._backend) if isinstance(o, Tensor)
                              else ((), None, None) for o in wrapped)
        ctx._n_outputs = len(wrapped)
        saved: list[Any] = []
        for t in ctx._to_save:
            if t is None:
                saved.append(None)
            elif t._grad_fn is ctx:
                saved.append(SavedOutput(t))
            else:
                saved.append(SavedTensor(t))
        ctx._saved = tuple(saved)
        ctx._to_save = ()
        if tangents is not None:
            _forward_mode(cls, ctx, args, tangents, wrapped)
        return tuple(wrapped) if is_tuple else wrapped[0]


def _input_tangents(cls: Any, tensor_args: list[Any]) -> list[Any] | None:
    """Forward AD: the inputs' tangents when one has one at the open level, else None.
    Raises (before ``forward`` runs) when the Function has no ``jvp``."""
    from arraygrad.autograd.forward_ad import state, tangent_of

    if not state.on:
        return None
    found = [None if a is None else tangent_of(a) for a in tensor_args]
    if all(t is None for t in found):
        return None
    if cls.jvp is Function.jvp:
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")
    return found


@contextmanager
def _no_tangents() -> Iterator[None]:
    """A Function's ``forward`` (and ``jvp``) compute on primals: no tangents propagate."""
    from arraygrad.autograd.forward_ad import state

    before = state.on
    state.on = False
    try:
        yield
    finally:
        state.on = before


def _forward_mode(cls: Any, ctx: Any, args: tuple[Any, ...], tangents: list[Any], outputs: Any) -> None:
    """Run ``jvp`` and attach its tangents to the (floating) outputs."""
    from arraygrad.autograd.forward_ad import set_tangent, state
    from arraygrad.tensor import Tensor

    given = [None if not isinstance(a, Tensor) else (t if t is not None else a.detach() * 0)
             for a, t in zip(args, tangents)]
    ctx._in_jvp = True
    try:
        with _no_tangents():
            found = cls.jvp(ctx, *given)
    finally:
        ctx._in_jvp = False
    found = found if isinstance(found, tuple) else (found,)
    for out, tan in zip(outputs, found):
        if isinstance(out, Tensor) and tan is not None and out.dtype.is_floating_point:
            if tuple(tan.shape) != tuple(out.shape):
                raise RuntimeError(
                    f"Function {cls.__name__}Backward returned an invalid tangent: expected "
                    f"shape {list(out.shape)} but got {list(tan.shape)}")
            set_tangent(out, tan if tan.dtype == out.dtype else tan.to(out.dtype), state.dual_level)


def once_differentiable(fn: Callable[..., Any]) -> Any:
    """Decorate a ``backward`` that is not itself differentiable: it runs without recording."""

    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        with no_grad():
            return fn(ctx, *args)

    return wrapper
