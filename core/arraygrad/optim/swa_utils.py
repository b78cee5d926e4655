"""Stochastic Weight Averaging and exponential moving averages of a model
(``torch.optim.swa_utils``): ``AveragedModel``, its averaging functions, ``update_bn`` and
the ``SWALR`` schedule, with PyTorch's formulas.

>>> swa_model = AveragedModel(model)                                  # equal weights (SWA)
>>> ema_model = AveragedModel(model, multi_avg_fn=get_ema_multi_avg_fn(0.999),
...                           use_buffers=True)                       # EMA
>>> swa_model.update_parameters(model)       # after some optimizer steps
>>> update_bn(loader, swa_model)              # recompute BatchNorm statistics
"""

from __future__ import annotations

import itertools
import math
from copy import deepcopy
from typing import Any, Callable, Iterable, Literal, Union

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import no_grad
from arraygrad.creation import tensor
from arraygrad.nn.modules.batchnorm import _BatchNorm
from arraygrad.nn.modules.module import Module
from arraygrad.optim.lr_scheduler._base import LRScheduler, format_param
from arraygrad.optim.optimizer import Optimizer
from arraygrad.tensor import Tensor

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn", "PARAM_LIST",
           "LRScheduler", "Module", "Tensor"]

PARAM_LIST = Union[tuple[Tensor, ...], list[Tensor]]


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable[[PARAM_LIST, PARAM_LIST, Any], None]:
    """The exponential moving average of lists of parameters, in place:
    ``ema = decay * ema + (1 - decay) * current`` (a lerp, for floating parameters)."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")

    @no_grad()
    def ema_update(ema_param_list: PARAM_LIST, current_param_list: PARAM_LIST, _: Any) -> None:
        if ema_param_list[0].dtype.is_floating_point:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.lerp_(p_model, 1 - decay)
        else:
            for p_ema, p_model in zip(ema_param_list, current_param_list):
                p_ema.copy_(p_ema * decay + p_model * (1 - decay))

    return ema_update


def get_swa_multi_avg_fn() -> Callable[[PARAM_LIST, PARAM_LIST, Any], None]:
    """The running equal-weight average of lists of parameters, in place:
    ``avg += (current - avg) / (n_averaged + 1)`` (a lerp, for floating parameters)."""
    @no_grad()
    def swa_update(averaged_param_list: PARAM_LIST, current_param_list: PARAM_LIST,
                   num_averaged: Tensor | int) -> None:
        if averaged_param_list[0].dtype.is_floating_point:
            weight = 1 / (num_averaged + 1)
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                p_avg.lerp_(p_model, weight.item() if isinstance(weight, Tensor) else weight)
        else:
            for p_avg, p_model in zip(averaged_param_list, current_param_list):
                diff = p_model - p_avg
                if isinstance(num_averaged, Tensor):
                    p_avg.copy_(p_avg + diff / (num_averaged + 1))
                else:
                    p_avg.add_(diff, alpha=1.0 / (num_averaged + 1))

    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable[[Tensor, Tensor, Any], Tensor]:
    """The exponential moving average of one parameter:
    ``decay * ema + (1 - decay) * current``."""
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in "
                         "[0,1] range.")

    @no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged: Any) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param

    return ema_update


def get_swa_avg_fn() -> Callable[[Tensor, Tensor, Any], Tensor]:
    """The running equal-weight average of one parameter:
    ``avg + (current - avg) / (n_averaged + 1)``."""
    @no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor,
                   num_averaged: Tensor | int) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)

    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` (on ``device``, when given) holding running averages of its
    parameters (and, with ``use_buffers``, of its buffers; otherwise the buffers are copied):
    equal weights (SWA) by default, or ``avg_fn(avg, current, n_averaged)`` per parameter, or
    ``multi_avg_fn(avg_list, current_list, n_averaged)`` in place. The first
    ``update_parameters`` copies the model; ``n_averaged`` counts the calls. Calling the
    averaged model runs the copy."""

    n_averaged: Tensor

    def __init__(self, model: Module, device: Any = None,
                 avg_fn: Callable[[Tensor, Tensor, Tensor | int], Tensor] | None = None,
                 multi_avg_fn: Callable[[PARAM_LIST, PARAM_LIST, Tensor | int], None] | None = None,
                 use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", tensor(0, dtype=_dt.long, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The averaged copy's forward."""
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """Average ``model``'s current parameters (and buffers, with ``use_buffers``) in."""
        mine = (itertools.chain(self.module.parameters(), self.module.buffers())
                if self.use_buffers else self.parameters())
        theirs = (itertools.chain(model.parameters(), model.buffers())
                  if self.use_buffers else model.parameters())
        averaged: list[Tensor] = []
        current: list[Tensor] = []
        first = bool(self.n_averaged == 0)
        with no_grad():
            for p_avg, p_model in zip(mine, theirs):
                p_model_ = p_model.detach().to(p_avg.device)
                averaged.append(p_avg.detach())
                current.append(p_model_)
                if first:
                    p_avg.detach().copy_(p_model_)
            if self.n_averaged > 0:
                self._average(averaged, current)
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers()):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            self.n_averaged += 1

    def _average(self, averaged: list[Tensor], current: list[Tensor]) -> None:
        if self.multi_avg_fn is not None or self.avg_fn is None:
            # per (device, dtype) group, as PyTorch's foreach kernels take them
            groups: dict[tuple[str, Any], tuple[list[Tensor], list[Tensor]]] = {}
            for a, c in zip(averaged, current):
                mine, theirs = groups.setdefault((str(a.device), a.dtype), ([], []))
                mine.append(a)
                theirs.append(c)
            update = self.multi_avg_fn or get_swa_multi_avg_fn()
            for (device, _), (mine, theirs) in groups.items():
                update(mine, theirs, self.n_averaged.to(device))
        else:
            for a, c in zip(averaged, current):
                a.copy_(self.avg_fn(a, c, self.n_averaged.to(a.device)))


def update_bn(loader: Iterable[Any], model: Module, device: Any = None) -> None:
    """Recompute the running statistics of ``model``'s BatchNorm layers with one pass over
    ``loader`` (each batch a tensor, or a list/tuple whose first element is the input), as a
    cumulative average (``momentum=None`` during the pass), then restore the momenta and
    the training mode."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for batch in loader:
            if isinstance(batch, (list, tuple)):
                batch = batch[0]
            if device is not None:
                batch = batch.to(device)
            model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's learning rate to ``swa_lr`` (one value, or one per group) over
    ``anneal_epochs`` epochs, along a cosine (``"cos"``) or a line (``"linear"``), then keep
    it there; for the end of training with SWA."""

    def __init__(self, optimizer: Optimizer, swa_lr: float | list[float],
                 anneal_epochs: int = 10, anneal_strategy: Literal["cos", "linear"] = "cos",
                 last_epoch: int = -1) -> None:
        for lr, group in zip(format_param("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: Any, swa_lr: Any, alpha: float) -> Any:
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def get_lr(self) -> list[Any]:
        """The rates of the next step: between each group's current ``lr`` (the rate it
        would have had without annealing) and its ``swa_lr``."""
        self._warn_if_called_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha)
                    for g in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [g["swa_lr"] * alpha + lr * (1 - alpha)
                for g, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def state_dict(self) -> dict[str, Any]:
        """Every attribute except the optimizer and the annealing function."""
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the state (the annealing function from its strategy)."""
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
