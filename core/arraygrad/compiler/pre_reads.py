"""A state scalar read after the step changed it, computed from the state before the step.

PyTorch's optimizers read their step count after incrementing it (``step_t += 1; step =
_get_value(step_t)``) and NAdam its ``mu_product`` after multiplying it. A live scalar read
there would be evaluated where the replay uses it, and a Python branch on it (an op's own
``alpha != 1``) could not be a guard: guards are checked before a replay writes anything.

But such a write is simple: ``k op= operand`` or ``k[...] = value``, the operand a constant
or a value computed from the tensor itself, constants and live scalars that are known up
front. So the value the step read is a function of the state before the step: copy the
tensor's array, make the same computations and writes on the copy, in the program's order
(``interpret.run``), read the number. ``pre_getter`` builds
that function, or says (None) that the writes are not of that kind.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.compiler.capture_plan import HIDDEN, written_by
from arraygrad.compiler.interpret import run
from arraygrad.compiler.recording import SLOTS, Live, Recording

__all__ = ["pre_getter"]

# the in-place operators a pre-computable write may use (``s op= operand``)
_AUGMENTED = frozenset({"+=", "-=", "*=", "/="})


def _writes_of(rec: Recording, k: int) -> list[int] | None:
    """The instructions so far that write slot ``k`` (through a view too), each ``k op=
    operand``; None when one is of another kind."""
    base = rec.base
    found = []
    for i, ins in enumerate(rec.instrs):
        if ins.pure:
            continue
        targets = {base.get(s, s) for s in written_by(ins)}
        if HIDDEN in targets:  # it may write any slot it reads
            targets.update(base.get(s, s) for s in ins.reads)
        if k not in targets:
            continue
        if ins.args[:1] != (SLOTS[k],) or ins.kwargs or ins.coerce is not None:
            return None
        augmented = ins.kind in _AUGMENTED and len(ins.args) == 2
        whole = ins.kind == "setitem" and len(ins.args) == 3 and ins.args[1] is Ellipsis
        if not (augmented or whole):
            return None
        found.append(i)
    return found


def _cone(rec: Recording, slots: set[int], k: int) -> set[int] | None:
    """The pure instructions computing ``slots`` from slot ``k`` (the copy), constants and
    up-front live scalars alone; None when one reads other state or a value known only
    during the replay."""
    producer = rec.producer
    cone: set[int] = set()
    todo = list(slots)
    while todo:
        s = todo.pop()
        if s == k:
            continue
        i = producer.get(s)
        if s < rec.ninputs or i is None:
            return None
        if i in cone:
            continue
        ins = rec.instrs[i]
        if not ins.pure or ins.kind == "host" or not _up_front(ins.args) \
                or not _up_front(tuple(ins.kwargs.values())):
            return None
        cone.add(i)
        todo.extend(ins.reads)
    return cone


def _up_front(templates: tuple[Any, ...]) -> bool:
    """Whether every live scalar among ``templates`` (top level) is evaluated up front."""
    return all(t.pre for t in templates if t.__class__ is Live)


def pre_getter(rec: Recording, tensor: Any, k: int) -> Callable[[], Any] | None:
    """A getter of ``tensor.item()`` as the step reads it now (slot ``k``), evaluated from the
    state before the step, or None (see the module docstring)."""
    if k >= rec.ninputs:
        return None
    writes = _writes_of(rec, k)
    if writes is None:
        return None
    operands: set[int] = set()
    for i in writes:
        ins = rec.instrs[i]
        if not _up_front(ins.args):
            return None
        operands.update(s for s in ins.reads if s != k)
    cone = _cone(rec, operands, k)
    if cone is None:
        return None
    program = [rec.instrs[i] for i in sorted(cone.union(writes))]
    backend = rec.backend

    def getter() -> Any:
        arrays = {k: backend.xp.asarray(tensor._data, copy=True)}  # (the state is not written)
        run(program, arrays)
        return backend.to_host(arrays[k]).reshape(()).tolist()

    return getter
