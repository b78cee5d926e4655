"""Replay units: array functions a recording writes down as ONE instruction each.

Most of a training step's array work happens inside a few array-level functions of the
ops (a linear layer's product and bias, its three backward products, ReLU's and
log-softmax's first-order backward). Recorded op by op, each array operation inside them
costs the recorder a ``TracedArray`` and an instruction. The ops mark them
``@array_kernel`` (``transform_state``: a fact about the function, which knows nothing of
the compiler); while a recording runs, the recorder takes a call of one on traced arrays
whole (``hooks.kernel_call``, ``unit_record``): it runs the function once on the real arrays
and writes it down as one instruction calling the (undecorated) function, so a replay makes the very
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

Outside a recording a call of a kernel is the call of its function and nothing more: each
kernel is an object of its own class whose ``__call__`` is the function itself (a
``staticmethod``, called from C), switched to the recorder's call while the recorder's
``hooks.kernel_call`` is installed (``transform_state.ArrayKernel``). The eager path pays
nothing for compile.
"""

from __future__ import annotations

# the marker lives in the leaf ``transform_state`` (the ops below the compiler use it); the
# recorder's side is installed there while it records (``compiler.hooks``)
from arraygrad.transform_state import ArrayKernel, array_kernel, kernel_function

__all__ = ["ArrayKernel", "array_kernel", "kernel_function"]
