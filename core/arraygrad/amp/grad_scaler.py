"""``arraygrad.amp.GradScaler`` (``torch.amp.GradScaler``): dynamic loss scaling for float16
training, PyTorch's algorithm and numbers.

``scale(loss)`` multiplies by the scale (2**16 at first); ``step(optimizer)`` divides the
gradients by it (``unscale_``), checks them for inf/NaN, and steps only when there are none;
``update()`` multiplies the scale by ``backoff_factor`` after a skipped step, and by
``growth_factor`` after ``growth_interval`` steps in a row without one. Disabled
(``enabled=False``, or ``device="cuda"`` without a usable CUDA backend, with PyTorch's
warning), every method is a pass-through: ``step`` just calls ``optimizer.step()``.
"""

from __future__ import annotations

import enum
import math
import warnings
from collections import defaultdict
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import no_grad
from arraygrad.creation import full
from arraygrad.ops import elementwise as ew

__all__ = ["GradScaler", "OptState"]


class OptState(enum.Enum):
    """Where an optimizer is in the iteration: gradients as scaled, unscaled, or stepped."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _fresh_state() -> dict[str, Any]:
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scales the loss so float16 gradients do not underflow, and steps only on finite
    gradients (see the module docstring)."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            from arraygrad import cuda

            if not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                              "Disabling.", stacklevel=2)
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale: Any = None  # a 0-d float32 tensor, made at the first scale()
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker: Any = None  # a 0-d int32 tensor
            self._per_optimizer_states: dict[int, dict[str, Any]] = defaultdict(_fresh_state)

    # -- the scale ----------------------------------------------------------------------
    def _check_scale_growth_tracker(self, funcname: str) -> tuple[Any, Any]:
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) "
               "earlier in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def _lazy_init_scale_growth_tracker(self, dev: Any) -> None:
        self._scale = full((), self._init_scale, dtype=_dt.float32, device=dev)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=_dt.int32, device=dev)

    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor, or lists/tuples of them) times the scale; unchanged when
        disabled."""
        if not self._enabled:
            return outputs
        from arraygrad.tensor import Tensor

        def apply(value: Any) -> Any:
            if isinstance(value, Tensor):
                if self._scale is None:
                    self._lazy_init_scale_growth_tracker(value.device)
                return value * self._scale.to(value.device)
            if isinstance(value, (list, tuple)):
                return type(value)(apply(v) for v in value)
            if isinstance(value, (set, frozenset, dict)) or not hasattr(value, "__iter__"):
                raise ValueError("outputs must be a Tensor or an iterable of Tensors")
            return map(apply, value)

        return apply(outputs)

    # -- unscaling ----------------------------------------------------------------------
    def _unscale_grads_(self, optimizer: Any, inv_scale: Any, found_inf: Any,
                        allow_fp16: bool) -> dict[Any, Any]:
        """Multiply every gradient by ``inv_scale`` in place; per device, a 0-d float32
        tensor that is 1.0 when some gradient there had an inf or NaN."""
        per_device: dict[Any, Any] = {}
        with no_grad():
            grads = []
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if not allow_fp16 and param.grad.dtype is _dt.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    grads.append(param.grad)
            for grad in grads:
                dev = grad.device
                if dev not in per_device:
                    per_device[dev] = found_inf.to(dev).clone()
                # no host sync per gradient: the flags stay on the device until step()
                bad = ew.logical_not(ew.isfinite(grad)).any().to(_dt.float32)
                per_device[dev] = ew.maximum(per_device[dev], bad)
                grad.mul_(inv_scale.to(dev).to(grad.dtype))
        return per_device

    def unscale_(self, optimizer: Any) -> None:
        """Divide ``optimizer``'s gradients by the scale now (before clipping them, say);
        ``step`` then does not unscale again. Once per optimizer per ``update``."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        # the reciprocal in float64, then float32, as PyTorch
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = full((), 0.0, dtype=_dt.float32, device=self._scale.device)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf, False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale (unless ``unscale_`` did) and call ``optimizer.step(*args, **kwargs)``
        unless a gradient is inf/NaN; returns what ``step`` returned (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        result = None
        if not sum(float(v.item()) for v in state["found_inf_per_device"].values()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return result

    def update(self, new_scale: Any = None) -> None:
        """Back the scale off after a skipped step, or grow it after ``growth_interval``
        clean ones; or set it to ``new_scale`` (a float or a 1-element tensor)."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if (new_scale.device.type != self._device or new_scale.numel() != 1
                        or new_scale.requires_grad):
                    raise AssertionError(reason)
                scale.copy_(new_scale.reshape(()))
        else:
            found = [f for s in self._per_optimizer_states.values()
                     for f in s["found_inf_per_device"].values()]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            self._update_scale(sum(float(f.item()) for f in found) > 0)
        self._per_optimizer_states = defaultdict(_fresh_state)

    def _update_scale(self, found_inf: bool) -> None:
        """PyTorch's ``_amp_update_scale_``: back off, or count a clean step and grow."""
        scale, tracker = self._scale, self._growth_tracker
        if found_inf:
            scale.fill_(float(scale.item()) * self._backoff_factor)
            tracker.fill_(0)
            return
        successful = int(tracker.item()) + 1
        if successful == self._growth_interval:
            grown = float(scale.item()) * self._growth_factor
            if math.isfinite(grown):
                scale.fill_(grown)
            tracker.fill_(0)
        else:
            tracker.fill_(successful)

    # -- queries and settings -----------------------------------------------------------
    def get_scale(self) -> float:
        """The current scale (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return float(self._init_scale if self._scale is None else self._scale.item())

    def get_growth_factor(self) -> float:
        """The factor the scale grows by."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Set the factor the scale grows by."""
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        """The factor the scale backs off by."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Set the factor the scale backs off by."""
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        """How many clean steps in a row grow the scale."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Set how many clean steps in a row grow the scale."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self) -> int:
        if not self._enabled:
            return 0
        return int(self._init_growth_tracker if self._growth_tracker is None
                   else self._growth_tracker.item())

    def is_enabled(self) -> bool:
        """Whether the scaler scales (False when disabled)."""
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """``scale``, ``growth_factor``, ``backoff_factor``, ``growth_interval`` and
        ``_growth_tracker``; ``{}`` when disabled."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore a ``state_dict`` (nothing when disabled)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = float(state_dict["scale"])
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._init_growth_tracker = int(state_dict["_growth_tracker"])
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        if self._enabled:
            if len(self._per_optimizer_states) != 0:
                raise AssertionError("A GradScaler instance may only be pickled at the beginning "
                                     "of an iteration, or at the end after scaler.update().")
            state["_init_scale"] = self.get_scale()
            state["_init_growth_tracker"] = self._get_growth_tracker()
            state["_scale"] = None
            state["_growth_tracker"] = None
            state["_per_optimizer_states"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self._enabled:
            self._per_optimizer_states = defaultdict(_fresh_state)
