"""Replay units: array functions a recording writes down as ONE instruction each.

Most of a training step's array work happens inside a few array-level functions of the
ops (a linear layer's product and bias, its three backward products, ReLU's and
log-softmax's first-order backward). Recorded op by op, each array operation inside them
costs the recorder a ``TracedArray`` and an instruction; marked ``@replay_unit``, a call
of the function on traced arrays runs the function once on the real arrays and is written
down as one instruction calling the (undecorated) function, so a replay makes the very
same backend calls in the same order, and the recording call pays for one instruction.

A function may be a unit only when a call is a deterministic function of its arguments
that a replay may repeat: its positional arguments are arrays, the backend (a recording's
``RecordingBackend`` is replaced by the real backend) and plain constants; it reads no
array value into Python (no ``int()``/``bool()``/``.item()``: a value guard or a graph
break would be missed), draws no random numbers, writes none of its arguments, and returns
fresh arrays (a tuple of fresh arrays and Nones). Its control flow may depend on its
arguments' shapes and dtypes (the guard key fixes them) and on its constant arguments.
A call made with keyword arguments, with an argument of another kind (a live scalar, a
container, a tensor, a batching backend, another recording's leftover) or with no traced
array is recorded op by op, as any function is; a call answering no fresh array (a view,
an argument, a backend scalar) is one instruction made as ``record_call`` makes it, which
the replay keeps as a call. Code generation flattens the others (``unit_expand``).

Outside a recording a call of a unit is the call of its function and nothing more: each
unit is an object of its own class whose ``__call__`` is the function itself (a
``staticmethod``, called from C), switched to the recording call while the recording flag
is on (``transform_state.ReplayUnit``). The eager path pays nothing for compile.
"""

from __future__ import annotations

# the marker lives in the leaf ``transform_state`` (the ops below the compiler use it); the
# recorder's side registers itself there (``unit_record``)
from arraygrad.transform_state import ReplayUnit, replay_unit, unit_function

__all__ = ["ReplayUnit", "replay_unit", "unit_function"]
