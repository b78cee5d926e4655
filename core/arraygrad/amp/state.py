"""Autocast's per-thread state and the casts it makes in the ops (``torch.autocast``'s C++ part).

Each thread has, per device type, whether autocast is on and its lower-precision dtype,
plus the weight-cache switch and the nesting count (PyTorch's ``set_autocast_enabled``,
``get_autocast_dtype``... read and write them). The ops of PyTorch's autocast lists call
``cast`` on their tensor inputs first, only while ``on`` is nonzero (a single global read
when autocast is off):

* ``LOWER`` ops (``matmul``, ``linear``, ``conv2d``...) compute in the autocast dtype: their
  floating inputs on that device (float64 excepted) are cast to it;
* ``FP32`` ops (the losses, and on CUDA the normalisations and softmaxes) compute in float32:
  such inputs are cast up to float32.

The casts are ordinary differentiable ones (a ``ToCopyBackward0`` node), so gradients reach
float32 weights as float32. A backward pass does not autocast the ops its formulas run,
unless autocast was entered inside it (``custom_bwd``).

The default lower-precision dtype of the CPU is bfloat16, as PyTorch's.
"""

from __future__ import annotations

import threading
from typing import Any

from arraygrad import dtypes as _dt

__all__ = ["on", "cast", "LOWER", "FP32", "DEVICE_TYPES", "is_enabled", "set_enabled",
           "entry", "set_entry", "reenter",
           "get_dtype", "set_dtype", "raw_dtype", "set_raw_dtype", "cache_enabled",
           "set_cache_enabled", "increment_nesting", "decrement_nesting", "clear_cache",
           "check_device_type"]

# PyTorch's device types for autocast, with their default lower-precision dtypes (by name)
DEVICE_TYPES = {"cpu": "bfloat16", "cuda": "float16", "ipu": "float16", "xpu": "float16",
                "maia": "bfloat16", "xla": "bfloat16", "mps": "float16", "hpu": "bfloat16",
                "mtia": "float16", "privateuseone": "float16"}
_KNOWN = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, "
          "vulkan, mps, meta, hpu, mtia, privateuseone")

# Which ops compute in the autocast dtype and which in float32, per device type (PyTorch's
# lists, as far as arraygrad has the ops; checked against PyTorch's CPU autocast in tests)
_LOWER_COMMON = frozenset({
    "matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "linear", "conv1d", "conv2d",
    "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "prelu",
    "multi_dot", "chain_matmul"})
LOWER = {"cpu": _LOWER_COMMON | {"scaled_dot_product_attention", "einsum"},
         "cuda": _LOWER_COMMON | {"mv", "addmv", "addr"}}
_FP32_LOSSES = frozenset({
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy",
    "kl_div", "binary_cross_entropy", "binary_cross_entropy_with_logits", "poisson_nll_loss",
    "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss", "soft_margin_loss",
    "triplet_margin_loss", "multi_margin_loss", "multilabel_margin_loss", "cdist", "prod"})
FP32 = {"cpu": _FP32_LOSSES,
        "cuda": _FP32_LOSSES | {"layer_norm", "group_norm", "softmax", "log_softmax",
                                "cosine_similarity", "normalize", "pdist", "dist", "softplus",
                                "cumsum", "cumprod", "sum", "logsumexp", "norm", "renorm"}}

on = 0
"""How many (thread, device type) pairs have autocast on now: the ops' one check."""
_on_lock = threading.Lock()


class _Local(threading.local):
    def __init__(self) -> None:
        self.enabled: dict[str, int] = {}  # device type -> backward depth when turned on
        self.dtype: dict[str, Any] = {}  # device type -> dtype, or a missing dtype's name
        self.cache_enabled = True
        self.nesting = 0


_local = _Local()


def check_device_type(device_type: str) -> str:
    """``device_type`` if autocast knows it; PyTorch's RuntimeError otherwise."""
    if not isinstance(device_type, str) or device_type not in DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {_KNOWN} device type at start of device string: "
                           f"{device_type}")
    return device_type


def _backward_depth() -> int:
    from arraygrad.autograd.engine import _local as engine_local

    return len(engine_local.tasks)


def is_enabled(device_type: str = "cuda") -> bool:
    """Whether autocast is on for ``device_type`` in this thread."""
    return check_device_type(device_type) in _local.enabled


def set_enabled(device_type: str, enabled: bool) -> None:
    """Turn autocast on or off for ``device_type`` in this thread."""
    check_device_type(device_type)
    if bool(enabled) != (device_type in _local.enabled):
        set_entry(device_type, _backward_depth() if enabled else None)


def entry(device_type: str) -> int | None:
    """``device_type``'s autocast entry in this thread: the backward depth it was turned on
    at, or None when off (autocast's exit restores it with ``set_entry``)."""
    return _local.enabled.get(check_device_type(device_type))


def set_entry(device_type: str, value: int | None) -> None:
    """Set what ``entry`` returns; ``reenter``'s value turns autocast on at the current
    backward depth (its ops autocast even inside a backward pass)."""
    global on
    was = device_type in _local.enabled
    with _on_lock:
        if value is None:
            if was:
                del _local.enabled[device_type]
                on -= 1
        else:
            _local.enabled[device_type] = value
            if not was:
                on += 1


def reenter() -> int:
    """The entry for autocast turned on here and now (the current backward depth)."""
    return _backward_depth()


def raw_dtype(device_type: str) -> Any:
    """The autocast dtype of ``device_type``: a dtype, or the name of one arraygrad lacks."""
    value = _local.dtype.get(check_device_type(device_type), DEVICE_TYPES[device_type])
    if isinstance(value, str):
        return _dt.BY_NAME.get(value, value)
    return value


def set_raw_dtype(device_type: str, value: Any) -> None:
    """Store what ``raw_dtype`` returned (autocast's exit restores it so)."""
    _local.dtype[check_device_type(device_type)] = value


def get_dtype(device_type: str) -> _dt.dtype:
    """The autocast dtype of ``device_type`` (the missing-dtype AttributeError for a name
    arraygrad has no dtype of)."""
    value = raw_dtype(device_type)
    if isinstance(value, str):
        found = _dt.BY_NAME.get(value)
        if found is None:
            raise _dt.missing_dtype_error(value)
        return found
    return value


def set_dtype(device_type: str, dtype: _dt.dtype) -> None:
    """Set the autocast dtype of ``device_type`` in this thread."""
    if not isinstance(dtype, _dt.dtype):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' must be arraygrad.dtype, "
                        f"not {type(dtype).__name__}")
    set_raw_dtype(device_type, dtype)


def cache_enabled() -> bool:
    """Whether autocast's weight cache is on (stored: arraygrad casts every time)."""
    return _local.cache_enabled


def set_cache_enabled(enabled: bool) -> None:
    """Set the weight-cache switch (see ``cache_enabled``)."""
    _local.cache_enabled = bool(enabled)


def increment_nesting() -> int:
    """One more autocast region entered; returns the new depth."""
    _local.nesting += 1
    return _local.nesting


def decrement_nesting() -> int:
    """One autocast region left; returns the new depth (it may go negative, as PyTorch's)."""
    _local.nesting -= 1
    return _local.nesting


def clear_cache() -> None:
    """Drop autocast's cached weight casts: arraygrad keeps none (it casts at each use)."""


def cast(op: str, *tensors: Any) -> tuple[Any, ...]:
    """``tensors`` as op ``op`` takes them under autocast: each floating tensor (float64
    excepted) on a device type with autocast on, cast to that device type's autocast dtype
    (``LOWER`` ops) or to float32 (``FP32`` ops); everything else unchanged."""
    from arraygrad.tensor import Tensor

    enabled = _local.enabled
    if not enabled:
        return tensors
    depth = -1
    out = []
    for t in tensors:
        if isinstance(t, Tensor) and t.dtype.is_floating_point and t.dtype is not _dt.float64:
            kind = t.device.type
            entered = enabled.get(kind)
            if entered is not None:
                if depth < 0:
                    depth = _backward_depth()
                if depth == entered:  # not inside a backward pass begun under autocast
                    target = _target(op, kind)
                    if target is not None and t.dtype is not target:
                        t = t.to(target)
        out.append(t)
    return tuple(out)


def _target(op: str, kind: str) -> _dt.dtype | None:
    """The dtype op ``op`` computes in on ``kind`` under autocast (None: its inputs' own)."""
    if op in LOWER.get(kind, _LOWER_COMMON):
        value = raw_dtype(kind)
        return value if isinstance(value, _dt.dtype) else None
    if op in FP32.get(kind, _FP32_LOSSES):
        return _dt.float32
    return None
