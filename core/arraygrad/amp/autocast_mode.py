"""``arraygrad.autocast`` (``torch.autocast``): a region whose ops run in mixed precision, and
``custom_fwd``/``custom_bwd`` for custom autograd functions.

Inside ``with autocast(device_type, dtype):``, the ops of PyTorch's autocast lists cast their
floating inputs on that device type: matrix products, ``linear`` and convolutions to
``dtype``, losses (and on CUDA normalisations and softmaxes) to float32 (``amp.state``).
As in PyTorch, an unusable request warns and runs disabled: CUDA autocast without a usable
CUDA backend, or a dtype the device type does not support (bfloat16 on a CUDA backend
without it). The CPU's default dtype is bfloat16, as PyTorch's.
"""

from __future__ import annotations

import collections.abc
import functools
import warnings
from typing import Any, Callable, Literal

from arraygrad import dtypes as _dt
from arraygrad.amp import state

__all__ = ["autocast", "custom_fwd", "custom_bwd", "is_autocast_available"]


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast knows ``device_type`` (PyTorch's RuntimeError for an unknown type)."""
    state.check_device_type(device_type)
    return True


def _describe(value: Any) -> str:
    return f"arraygrad.{value}" if isinstance(value, str) else repr(value)


class autocast:
    """A region (``with``) or function (decorator) whose ops on ``device_type`` run in mixed
    precision: ``dtype`` (the device type's autocast dtype by default) for matrix products and
    convolutions, float32 for losses. ``enabled=False`` turns autocast off inside, nested
    regions included; ``cache_enabled`` is stored (arraygrad casts at each use)."""

    def __init__(self, device_type: str, dtype: _dt.dtype | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type not in state.DEVICE_TYPES:
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self.fast_dtype: Any = state.raw_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = state.cache_enabled() if cache_enabled is None else bool(cache_enabled)
        if enabled:
            enabled = self._usable()
        self._enabled = bool(enabled)
        self._saved: list[tuple[Any, Any, bool]] = []

    def _usable(self) -> bool:
        """Whether this request can autocast; PyTorch's warning (and False) when it cannot."""
        fast = self.fast_dtype
        if self.device == "cuda":
            from arraygrad import cuda

            if not cuda.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.",
                              stacklevel=3)
                return False
            if fast is _dt.bfloat16 and not cuda.is_bf16_supported():
                raise RuntimeError("Current CUDA Device does not support bfloat16. Please switch "
                                   "dtype to float16.")
            return True
        if fast is _dt.float16 or fast is _dt.bfloat16:
            return True
        name = self.device.upper()
        warnings.warn(f"In {name} autocast, but the target dtype is not supported. Disabling "
                      f"autocast.\n{name} Autocast only supports dtypes of arraygrad.bfloat16, "
                      f"arraygrad.float16 currently.", stacklevel=3)
        return False

    def __enter__(self) -> "autocast":
        self._saved.append((state.entry(self.device), state.raw_dtype(self.device),
                            state.cache_enabled()))
        state.set_entry(self.device, state.reenter() if self._enabled else None)
        state.set_raw_dtype(self.device, self.fast_dtype)
        state.increment_nesting()
        state.set_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, *exc: Any) -> Literal[False]:
        if state.decrement_nesting() == 0:
            state.clear_cache()
        entry, dtype, cache = self._saved.pop()
        state.set_entry(self.device, entry)
        state.set_raw_dtype(self.device, dtype)
        state.set_cache_enabled(cache)
        return False

    def __call__(self, func: Callable[..., Any]) -> Callable[..., Any]:
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. Did you "
                "mean to use autocast as a context manager? For example:\n"
                "    with torch.autocast(device_type=...):\n        output = model(input)")

        @functools.wraps(func)
        def decorate_autocast(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return decorate_autocast

    def __repr__(self) -> str:
        return (f"autocast(device_type={self.device!r}, dtype={_describe(self.fast_dtype)}, "
                f"enabled={self._enabled})")


def _cast(value: Any, device_type: str, dtype: _dt.dtype) -> Any:
    """``value`` with its floating tensors on ``device_type`` (not float64) cast to ``dtype``,
    through lists, tuples and dicts."""
    from arraygrad.tensor import Tensor

    if isinstance(value, Tensor):
        eligible = (value.dtype.is_floating_point and value.device.type == device_type
                    and value.dtype is not _dt.float64)
        return value.to(dtype) if eligible else value
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, device_type, dtype) for v in value)
    return value


def custom_fwd(fwd: Callable[..., Any] | None = None, *, device_type: str,
               cast_inputs: _dt.dtype | None = None) -> Any:
    """Decorator for a custom ``Function.forward``: inside an autocast region, with
    ``cast_inputs`` it runs with autocast off on inputs cast to ``cast_inputs``; without, it
    runs under the region's autocast. ``custom_bwd`` then runs ``backward`` the same way."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args: Any, **kwargs: Any) -> Any:
        args[0]._dtype = state.raw_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = state.is_enabled(device_type)
            return fwd(*args, **kwargs)
        args[0]._fwd_used_autocast = False
        if state.is_enabled(device_type):
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd: Callable[..., Any] | None = None, *, device_type: str) -> Any:
    """Decorator for a custom ``Function.backward``: runs it with the autocast state its
    ``custom_fwd`` forward ran with."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args: Any, **kwargs: Any) -> Any:
        ctx = args[0]
        region = autocast.__new__(autocast)  # the forward's state as it was, no checks again
        region.device, region.fast_dtype = device_type, ctx._dtype
        region._enabled, region._cache_enabled = ctx._fwd_used_autocast, state.cache_enabled()
        region._saved = []
        with region:
            return bwd(*args, **kwargs)

    return decorate_bwd
