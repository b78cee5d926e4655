"""``LRScheduler``, the base of the learning-rate schedulers, and helpers they share.

Each ``step()`` advances ``last_epoch`` and writes the new rate into every
parameter group's ``"lr"``. The chainable forms (new rate from the current
one) match PyTorch, so schedulers can be stacked on one optimizer; passing
``epoch`` to ``step`` (deprecated in PyTorch) uses the closed form instead.

A ``step`` made inside ``arraygrad.compile`` changes Python state only: the recorder makes
the same call at every replay (``compiler.schedulers``), and the optimizer's update reads the
new rate live.
"""

from __future__ import annotations

import warnings
import weakref
from functools import wraps
from typing import Any, Iterator

from contextlib import contextmanager

from arraygrad.optim._checks import scalar
from arraygrad.optim.optimizer import Optimizer
from arraygrad.tensor import Tensor

__all__ = ["LRScheduler", "EPOCH_DEPRECATION_WARNING"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose.")


def check_optimizer(optimizer: object) -> None:
    """A scheduler needs an ``Optimizer`` (PyTorch's TypeError otherwise)."""
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")


def format_param(name: str, optimizer: Optimizer, param: Any) -> list[Any]:
    """One value per parameter group: a list of the right length, or one value repeated."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(
                f"{name} must have the same length as optimizer.param_groups. "
                f"{name} has {len(param)} values, param_groups has "
                f"{len(optimizer.param_groups)}.")
    else:
        param = [param] * len(optimizer.param_groups)
    return [p.clone() if isinstance(p, Tensor) else p for p in param]


def group_values(optimizer: Optimizer, key: str) -> list[Any]:
    """Every group's ``key`` (tensors cloned, so later in-place changes do not leak)."""
    return [g[key].clone() if isinstance(g[key], Tensor) else g[key]
            for g in optimizer.param_groups]


def set_group_value(group: dict[str, Any], key: str, value: Any) -> None:
    """Write ``value`` into ``group[key]``, in place when the group holds a tensor ``lr``."""
    if isinstance(group[key], Tensor):
        group[key].fill_(scalar(value))
    else:
        group[key] = value


def _track_step_calls(optimizer: Optimizer) -> None:
    """Wrap ``optimizer.step`` once so a scheduler can warn when it runs first."""
    if getattr(optimizer.step, "_wrapped_by_lr_sched", False):
        return
    func = type(optimizer).step
    opt_ref = weakref.ref(optimizer)

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        opt = opt_ref()
        assert opt is not None  # the wrapper lives on the optimizer, so it is alive
        opt._opt_called = True
        return func(opt, *args, **kwargs)

    # a marker on the wrapper and a per-instance step, as PyTorch does
    wrapper._wrapped_by_lr_sched = True  # type: ignore[attr-defined]
    optimizer.step = wrapper  # type: ignore[method-assign]


class LRScheduler:
    """Base class: subclasses define ``get_lr()`` (the rates after one more step) and, where
    there is one, ``_get_closed_form_lr()``.

    ``last_epoch=-1`` starts a schedule (each group's ``initial_lr`` is set to
    its ``lr``); a larger value resumes one, which needs ``initial_lr`` in the
    groups (a ``KeyError`` otherwise, as PyTorch).
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False
    _last_lr: list[Any]

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        check_optimizer(optimizer)
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                initial_lr = group["lr"]
                group.setdefault("initial_lr",
                                 initial_lr.clone() if isinstance(initial_lr, Tensor)
                                 else initial_lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not "
                        "recommended)")
        self.base_lrs: list[Any] = group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _track_step_calls(optimizer)
        self._initial_step()

    def _initial_step(self) -> None:
        """The step every scheduler takes when it is made (it sets the first rate)."""
        self._step_count = 0
        with self._initial_mode():
            self.step()

    @contextmanager
    def _initial_mode(self) -> Iterator[None]:
        self._is_initial = True
        try:
            yield
        finally:
            self._is_initial = False

    def state_dict(self) -> dict[str, Any]:
        """Every attribute except the optimizer (PyTorch's keys)."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore attributes saved by ``state_dict``."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[Any]:
        """The learning rates set by the latest ``step()``."""
        return self._last_lr

    def get_lr(self) -> list[Any]:
        """The learning rates of the next step (chainable form)."""
        raise NotImplementedError

    def _warn_if_called_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=3)

    def step(self, epoch: int | None = None) -> None:
        """Advance one epoch (``epoch`` is deprecated; it jumps, using the closed form)."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_wrapped_by_lr_sched"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    "before `lr_scheduler.step()`. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                    "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                    "will result in PyTorch skipping the first value of the learning rate "
                    "schedule. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch: int | None = None) -> None:
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            set_group_value(group, "lr", lr)
        self._last_lr = group_values(self.optimizer, "lr")


# PyTorch's older name, still importable there
_LRScheduler = LRScheduler
