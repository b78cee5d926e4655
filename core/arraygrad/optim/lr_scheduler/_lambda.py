"""``LambdaLR`` and ``MultiplicativeLR``: rates from user functions of the epoch."""

from __future__ import annotations

import types
from typing import Any, Callable, Sequence, Union

from arraygrad.optim.lr_scheduler._base import LRScheduler, group_values
from arraygrad.optim.optimizer import Optimizer

__all__ = ["LambdaLR", "MultiplicativeLR"]

_Lambdas = Union[Callable[[int], float], Sequence[Callable[[int], float]]]


class _LambdaScheduler(LRScheduler):
    """Holds one function per group; state dicts save callable objects' ``__dict__`` (plain
    functions and lambdas are saved as None, as PyTorch)."""

    lr_lambdas: list[Callable[[int], float]]

    def _set_lambdas(self, optimizer: Optimizer, lr_lambda: _Lambdas) -> None:
        n = len(optimizer.param_groups)
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * n  # type: ignore[list-item]
        else:
            if len(lr_lambda) != n:
                raise ValueError(f"Expected {n} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)

    def state_dict(self) -> dict[str, Any]:
        """Attributes, with each lambda as None or (a callable object) its ``__dict__``."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType)
                               else fn.__dict__.copy() for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore attributes, and the saved ``__dict__`` of callable-object lambdas."""
        state = dict(state_dict)
        lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, lambdas):
            if saved is not None:
                fn.__dict__.update(saved)


class LambdaLR(_LambdaScheduler):
    """``lr = initial_lr * lr_lambda(epoch)`` (one function, or one per group)."""

    def __init__(self, optimizer: Optimizer, lr_lambda: _Lambdas, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """``base_lr * lambda(last_epoch)`` per group."""
        self._warn_if_called_outside_step()
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(_LambdaScheduler):
    """Multiply each group's rate by ``lr_lambda(epoch)`` every epoch (not at construction)."""

    def __init__(self, optimizer: Optimizer, lr_lambda: _Lambdas, last_epoch: int = -1) -> None:
        self.optimizer = optimizer
        self._set_lambdas(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """``lr * lambda(last_epoch)`` per group (unchanged at construction)."""
        self._warn_if_called_outside_step()
        if self._is_initial:
            return group_values(self.optimizer, "lr")
        return [group["lr"] * fn(self.last_epoch)
                for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]
