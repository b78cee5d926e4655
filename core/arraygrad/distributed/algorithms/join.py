"""``Join``: training on uneven inputs (PyTorch's ``torch.distributed.algorithms.join``).

Ranks that run out of inputs leave the ``with Join([...]):`` loop early; at its exit
they keep running their joinables' *join hooks*, which issue the same collectives the
still-training ranks issue each iteration (zeros, shadow broadcasts), until every rank
has joined; then the post-hooks run. Each iteration, the first joinable of a training
rank calls ``Join.notify_join_context(self)``, an all-reduce of 1 that the joined ranks
answer with 0: the sum is the number of ranks still training.

MPI does not match a non-blocking collective with a blocking one, so the joined side
answers the notification's asynchronous all-reduce with an asynchronous one too.
"""

from __future__ import annotations

import abc
import warnings
from types import TracebackType
from typing import Any, NamedTuple

from arraygrad.distributed.collectives import all_reduce
from arraygrad.distributed.groups import get_rank
from arraygrad.distributed.work import Work

__all__ = ["Join", "JoinHook", "Joinable"]


class JoinHook:
    """What a joined rank runs: ``main_hook()`` once per iteration of the ranks still training
    (shadowing their collectives), ``post_hook(is_last_joiner)`` once all have joined."""

    def main_hook(self) -> None:
        """Shadow one training iteration's collectives (default: nothing)."""

    def post_hook(self, is_last_joiner: bool) -> None:
        """Run once every rank joined; ``is_last_joiner``: this rank was among the last."""


class _JoinConfig(NamedTuple):
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config() -> "_JoinConfig":
        return _JoinConfig(enable=False, throw_on_early_termination=False,
                           is_first_joinable=False)


class Joinable(abc.ABC):
    """A class that takes part in ``Join``: ``join_hook(**kwargs)``, ``join_device`` and
    ``join_process_group``; its constructor must call ``Joinable.__init__``."""

    @abc.abstractmethod
    def __init__(self) -> None:
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abc.abstractmethod
    def join_hook(self, **kwargs: Any) -> JoinHook:
        """The ``JoinHook`` of this joinable (``kwargs``: the ``Join``'s extra keywords)."""

    @property
    @abc.abstractmethod
    def join_device(self) -> Any:
        """The device of the join context's own collectives."""

    @property
    @abc.abstractmethod
    def join_process_group(self) -> Any:
        """The process group of the join context's own collectives."""


def _ones(device: Any, value: float) -> Any:
    from arraygrad.creation import full

    return full((1,), value, device=device)


class Join:
    """The join context manager: ``with Join([model, optimizer]):`` around the training loop.

    ``enable=False`` turns it off; ``throw_on_early_termination=True`` makes every rank
    raise (RuntimeError) as soon as one has run out of inputs, instead of shadowing.
    Extra keywords go to every ``join_hook``.
    """

    def __init__(self, joinables: list[Joinable], enable: bool = True,
                 throw_on_early_termination: bool = False, **kwargs: Any) -> None:
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [j.join_hook(**kwargs) for j in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        for i, joinable in enumerate(joinables):
            joinable._join_config = _JoinConfig(enable, throw_on_early_termination, i == 0)
        group, device = None, None
        for joinable in joinables:
            if group is None:
                group = joinable.join_process_group
            elif group != joinable.join_process_group:
                raise ValueError("Using join context manager with multiple process groups")
            if device is None:
                device = joinable.join_device
        self._process_group = group
        self._rank = get_rank(group)
        self._device = device

    def __enter__(self) -> None:
        """Nothing happens on entry."""

    def __exit__(self, type: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        """Run the main hooks until every rank joined, then the post-hooks."""
        if not self._enable or type:
            return  # an exception in the loop propagates as it is
        is_last_joiner = True
        i = 0
        while self._get_num_nonjoined_procs() != 0:
            if i > 1000:
                warnings.warn(f"Detected uneven input skew of greater than 1000. This means "
                              f"that rank {self._rank} has at least 1000 fewer inputs than "
                              "other currently-active ranks. This level of skew could lead to "
                              "performance degradation during training.", stacklevel=2)
            if self._throw_on_early_termination:
                self._notify_procs_to_terminate()
            for hook in self._join_hooks:
                hook.main_hook()
            is_last_joiner = False
            i += 1
        for hook in self._join_hooks:
            hook.post_hook(is_last_joiner)

    def _get_num_nonjoined_procs(self) -> int:
        """Answer the training ranks' notification (asynchronous, as theirs) with 0."""
        zeros = _ones(self._device, 0.0)
        work = all_reduce(zeros, group=self._process_group, async_op=True)
        if work is not None:
            work.wait()
        return int(zeros.item())

    def _notify_procs_to_terminate(self) -> None:
        ones = _ones(self._device, 1.0)
        all_reduce(ones, group=self._process_group)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable: Joinable) -> Work | None:
        """Tell the join context this rank still trains (the first joinable's call does an
        asynchronous all-reduce of 1; the others' nothing); with
        ``throw_on_early_termination``, raise if a rank has run out of inputs."""
        if not hasattr(joinable, "_join_config"):
            raise AssertionError(f"Check that the {type(joinable)} constructor calls the "
                                 "``Joinable`` constructor")
        config = joinable._join_config
        if not config.is_first_joinable or not config.enable:
            return None
        group = joinable.join_process_group
        work = all_reduce(_ones(joinable.join_device, 1.0), group=group, async_op=True)
        if config.throw_on_early_termination:
            if work is not None:
                work.wait()  # before the next collective: MPI orders them per communicator
            zeros = _ones(joinable.join_device, 0.0)
            all_reduce(zeros, group=group)
            if zeros.item():
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing "
                                   "across all ranks.")
        return work
