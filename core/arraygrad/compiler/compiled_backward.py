"""``CompiledFunctionBackward``: the ``grad_fn`` of a replayed training forward's outputs.

A replay of a training forward (``training.TrainingProgram``) runs the forward program and
gives its differentiable outputs this one node. It holds the arrays the backward program
reads (saved by the forward program) and has one edge per leaf or input the recorded
backward reached, so the engine accumulates what it returns into ``.grad`` exactly as
eager's ``AccumulateGrad`` would. Its backward runs the recorded backward program.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.autograd.grad_mode import _state
from arraygrad.autograd.graph import FREED, Node, _modified_message
from arraygrad.tensor import Tensor, wrap

if TYPE_CHECKING:
    from arraygrad.compiler.training import TrainingProgram

__all__ = ["CompiledFunctionBackward", "DOUBLE_BACKWARD", "released"]

DOUBLE_BACKWARD = (
    "arraygrad.compile: create_graph=True (double backward) through a compiled training "
    "forward (CompiledFunctionBackward) is not supported: its backward is a recorded program "
    "that records no graph. Call the module uncompiled (compiled._orig_mod) for higher-order "
    "gradients.")
"""The error of a double backward through a replayed training forward."""

_HOLDS = (True,)  # ``_saved`` of a node eager's graph would free: a backward releases it


class CompiledFunctionBackward(Node):
    """One replay's backward: the recorded backward program over the forward's arrays.

    ``_arrays``: the forward program's arrays the backward reads (dropped when a backward
    without ``retain_graph`` releases the node). Output gradients that did not arrive (an
    output not used in the loss) are zeros of the output's shape.
    """

    __slots__ = ("_program", "_arrays", "_watched")
    materialize_grads = False  # ``_apply`` makes the zeros itself (from the program's metadata)

    def __init__(self, program: TrainingProgram, arrays: tuple[Any, ...],
                 edges: tuple[Any, ...]) -> None:
        super().__init__()
        self._next = edges
        self._program = program
        self._arrays = arrays
        # (state tensor or None, version counter, version after the forward, output shape)
        self._watched: Any = ()
        if program.frees:  # eager's graph saved values: a second backward raises, as there
            self._saved = _HOLDS
        if program.nout > 1:
            self._n_outputs = program.nout

    def _apply(self, grads: list[Any]) -> tuple[Any, ...]:
        if _state.enabled:  # create_graph: the program records no graph to differentiate
            raise RuntimeError(DOUBLE_BACKWARD)
        program = self._program
        for t, vc, version, shape in self._watched:  # eager's saved-tensor version check
            if vc[0] != version:
                raise RuntimeError(_modified_message(self, t, version, vc[0], shape=shape))
        backend = program.backend
        return tuple([None if a is None else wrap(a, backend)
                      for a in program.run_backward(self._arrays, grads)])

    def _release(self) -> None:
        if self._saved:
            self._saved = FREED
            self._arrays = ()


class _ReleasedBackward(Node):
    """The ``grad_fn`` of a replayed step's result whose eager graph a backward inside the
    call released: a backward through it raises PyTorch's "second time" error, as eager's."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__()
        self._saved = FREED

    def name(self) -> str:
        return "CompiledFunctionBackward"


def released(t: Tensor) -> Tensor:
    """``t`` (a replay's fresh result) given a released graph, as eager's result has."""
    t._requires_grad = True
    t._grad_fn = _ReleasedBackward()
    return t
