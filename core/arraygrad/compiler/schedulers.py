"""LR schedulers stepped inside a recorded call: their ``step`` is replayed as a host call.

A scheduler's ``step`` changes Python state only (its counters and the groups' ``"lr"``),
which a program of array work cannot redo. While a call is recorded, each scheduler the call
can reach (``state.discover`` finds them) gets an instance ``step`` that runs the real one
as a ``scalars.host_effect``: it runs once now, and again at the same point of every replay,
so the optimizer's live read of ``lr`` sees the rate eager would. A step given a tensor (a
``ReduceLROnPlateau`` metric computed by the step) is left as it is: reading that tensor into
Python breaks the graph.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.compiler.scalars import host_effect, recording_flag
from arraygrad.tensor import Tensor

__all__ = ["replay_steps", "restore_steps"]


def _replayed(method: Callable[..., Any]) -> Callable[..., Any]:
    def step(*args: Any, **kwargs: Any) -> Any:
        if not recording_flag.on or any(isinstance(a, Tensor)
                                        for a in (*args, *kwargs.values())):
            return method(*args, **kwargs)
        return host_effect(method, *args, **kwargs)
    return step


def replay_steps(schedulers: list[Any]) -> list[Any]:
    """Give each scheduler a replayed ``step``; returns what ``restore_steps`` undoes."""
    done = []
    for s in schedulers:
        if "step" not in vars(s):  # (an instance attribute of the user's own: left alone)
            s.step = _replayed(s.step)
            done.append(s)
    return done


def restore_steps(done: list[Any]) -> None:
    """Take the replayed ``step`` away again."""
    for s in done:
        vars(s).pop("step", None)
