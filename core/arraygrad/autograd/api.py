"""``backward`` and ``grad``: checking the user's arguments, then running the engine."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable, Sequence

from arraygrad.autograd.engine import run_backward
from arraygrad.autograd.gradient_edge import GradientEdge, edge_tuple

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

    _TensorOrTensors = Tensor | Sequence[Tensor]

__all__ = ["backward", "grad"]

# ``grad(is_grads_batched=True)`` maps the backward with vmap, which sits in a layer above
# this one: ``autograd.batched_grad`` hands its implementation in when it is imported (with
# ``arraygrad.autograd``), so this module imports nothing above it.
_batched: list[Callable[..., Any]] = []


def set_batched_grad(impl: Callable[..., Any]) -> None:
    """Install the implementation of ``grad(..., is_grads_batched=True)``."""
    _batched[:] = [impl]


def _as_tuple(value: Any, what: str) -> tuple[Any, ...]:
    from arraygrad.tensor import Tensor

    if value is None:
        return ()
    if isinstance(value, (Tensor, GradientEdge)):  # a GradientEdge is a tuple: first
        return (value,)
    if isinstance(value, (list, tuple)):
        return tuple(value)
    try:  # any iterable, as PyTorch's tuple(inputs): a ParameterList, model.parameters()
        return tuple(value)
    except TypeError:
        raise TypeError(f"{what}: expected a Tensor or a sequence of Tensors, got "
                        f"{type(value).__name__}") from None


def _inputs_tuple(inputs: Any, what: str) -> tuple[Any, ...]:
    """``inputs`` as a tuple; a dict gives its values (the result is then a dict, as
    PyTorch's); another mapping is refused."""
    from collections.abc import Mapping

    if type(inputs) is dict:
        return tuple(inputs.values())
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{what}()` must be a dict, not "
                        f"{type(inputs).__name__}. Other Mapping types are not supported.")
    return _as_tuple(inputs, what)


def _mixable(a: Any, b: Any) -> bool:
    """Whether tensors of backends ``a`` and ``b`` combine: one is a vmap level over the other
    (``ops.promotion.outer_backend``)."""
    from arraygrad.backends.stacking import outer_backend

    return outer_backend(a, b) is not None


def _make_grads(outputs: tuple[Tensor, ...], grads: tuple[Any, ...], op: str) -> list[Tensor]:
    """The gradient for each output: given, or ones for a one-element output."""
    from arraygrad.tensor import Tensor, wrap

    if grads and len(grads) != len(outputs):
        raise RuntimeError(
            f"{op}: got {len(grads)} gradients for {len(outputs)} outputs")
    result = []
    for i, out in enumerate(outputs):
        g = grads[i] if grads else None
        if isinstance(out, GradientEdge):
            # arraygrad's nodes keep no metadata of their inputs: the gradient must be given
            if not isinstance(g, Tensor):
                raise RuntimeError(f"{op}: output {i} is a GradientEdge: pass its gradient in "
                                   "grad_outputs (arraygrad cannot create it implicitly)")
            result.append(g)
            continue
        if g is None:
            if math.prod(out._data.shape) != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            backend = out._backend
            if out._data.dtype not in backend.floating_natives:
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
            d = out._data
            result.append(wrap(backend.xp.ones(d.shape, dtype=d.dtype), backend))
            continue
        if not isinstance(g, Tensor):
            raise TypeError(
                f"{op}: element {i} of gradients tuple is not a Tensor or None, got {type(g).__name__}")
        if tuple(g.shape) != tuple(out.shape):
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                f"has a shape of {out.shape}.")
        if g._backend is not out._backend and not _mixable(g._backend, out._backend):
            raise RuntimeError(
                f"{op}: grad_output[{i}] is on device {g.device} but output[{i}] is on {out.device}")
        if (out.dtype.is_floating_point or out.dtype.is_complex) and not (
                g.dtype.is_floating_point or g.dtype.is_complex):
            raise RuntimeError(
                f"{op}: grad_output[{i}] has dtype {g.dtype} but output[{i}] has dtype "
                f"{out.dtype}; expected a floating point gradient")
        if g._data.dtype != out._data.dtype:
            g = g.type_as(out)  # a Tensor method: the autograd API imports no ops
        result.append(g)
    return result


def _root_edges(outputs: tuple[Tensor, ...]) -> list[Any]:
    from arraygrad.tensor import Tensor

    edges = []
    for i, out in enumerate(outputs):
        edge = out._gradient_edge() if isinstance(out, Tensor) else edge_tuple(out)
        if edge is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn")
        edges.append(edge)
    return edges


def _input_edges(inputs: tuple[Any, ...], op: str) -> list[Any]:
    from arraygrad.tensor import Tensor

    edges = []
    for i, t in enumerate(inputs):
        found = edge_tuple(t)
        if found is not None:
            edges.append(found)
            continue
        if not isinstance(t, Tensor):
            raise RuntimeError("all inputs have to be Tensors or GradientEdges, but got "
                               f"{type(t).__name__}")
        edge = t._gradient_edge()
        if edge is None:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
        edges.append(edge)
    return edges


def backward(tensors: _TensorOrTensors,
             grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
             retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables: Tensor | Sequence[Tensor | None] | None = None,
             inputs: _TensorOrTensors | None = None) -> None:
    """Accumulate into ``.grad`` of the graph's leaves the gradient of ``tensors``.

    >>> c = 2 * a + 3 * b + 1
    >>> arraygrad.autograd.backward(c, grad_tensors=arraygrad.tensor([1., 1.]))
    """
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError("backward: pass grad_tensors only (grad_variables is its old name)")
        grad_tensors = grad_variables
    from arraygrad.tensor import Tensor  # (a module: no import machinery call)

    # one tensor, ``Tensor.backward``'s case, without a call
    outputs = (tensors,) if tensors.__class__ is Tensor else _as_tuple(tensors, "backward")
    if not outputs:
        raise RuntimeError("backward: no tensors given")
    grads = _as_tuple(grad_tensors, "backward") if grad_tensors is not None else ()
    if retain_graph is None:
        retain_graph = create_graph
    input_list = _inputs_tuple(inputs, "backward") if inputs is not None else None
    if input_list is not None and not input_list:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    roots = _root_edges(outputs)
    root_grads = _make_grads(outputs, grads, "backward")
    edges = _input_edges(input_list, "backward") if input_list is not None else None
    # non-leaf inputs get their gradient in .grad with the engine's commit, so the final
    # callbacks (queue_callback) see it
    input_tensors = None if input_list is None else tuple(
        None if isinstance(t, GradientEdge) else t for t in input_list)
    run_backward(roots, root_grads, retain_graph=retain_graph, create_graph=create_graph,
                 inputs=edges, accumulate=True, allow_unused=True, input_tensors=input_tensors)


def grad(outputs: _TensorOrTensors, inputs: _TensorOrTensors,
         grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
         retain_graph: bool | None = None, create_graph: bool = False, only_inputs: bool = True,
         allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple[Tensor, ...]:
    """The gradients of ``outputs`` with respect to ``inputs``, returned (not accumulated).
    (Typed as PyTorch types it: an unused input's ``None``, with ``allow_unused``, is left
    out of the type so that typed code can use the gradients.)

    With ``is_grads_batched`` the first dimension of each grad_output is a batch of
    vectors, and each result holds the batch of VJPs (computed with ``vmap``).

    >>> arraygrad.autograd.grad(d, (a, b, c), arraygrad.tensor([1., 1.]))
    (tensor([4., 4.]), tensor([6., 6.]), tensor([2., 2.]))
    """
    if allow_unused is None:
        allow_unused = materialize_grads
    elif materialize_grads and not allow_unused:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True")
    outs = _as_tuple(outputs, "grad")
    ins = _inputs_tuple(inputs, "grad")
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if type(inputs) is dict:  # PyTorch's: the gradients by the same keys
        found = grad(outs, ins, grad_outputs, retain_graph, create_graph, only_inputs,
                     allow_unused, is_grads_batched, materialize_grads)
        return dict(zip(inputs.keys(), found))
    grads = _as_tuple(grad_outputs, "grad") if grad_outputs is not None else ()
    if is_grads_batched:  # the first dim of each grad_output is a batch of vectors
        return _batched[0](outs, ins, grads, create_graph=create_graph,
                           allow_unused=allow_unused, materialize_grads=materialize_grads)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _root_edges(outs)
    root_grads = _make_grads(outs, grads, "grad")
    edges = _input_edges(ins, "grad")
    captured = run_backward(roots, root_grads, retain_graph=retain_graph,
                            create_graph=create_graph, inputs=edges, accumulate=False,
                            allow_unused=allow_unused)
    result: list[Any] = []
    for t, g in zip(ins, captured):
        if g is not None and not isinstance(t, GradientEdge) and g._backend is not t._backend:
            from arraygrad.backends.stacking import gradient_for  # (not at import: tensor's layer)

            g = gradient_for(g, t._backend, ended_only=True)  # batched by a vmap call that ended
        if g is None and materialize_grads:
            if isinstance(t, GradientEdge):
                raise RuntimeError("materialize_grads cannot be used when the given input is "
                                   "a GradientEdge")
            g = t.new_zeros(t.shape)  # zeros_like(t), without importing the creation layer
        elif g is not None and not create_graph:
            g = g.detach()
        result.append(g)
    return tuple(result)
