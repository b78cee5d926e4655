"""``arraygrad.nn.attention``: what changes how ``scaled_dot_product_attention`` runs.

``sdpa_kernel`` enables only the given backends inside a ``with`` block (see
``_backends``: arraygrad's one computation is PyTorch's math backend, so attention runs
while ``MATH`` or ``FLASH_ATTENTION`` is enabled, as on PyTorch's CPU). ``SDPAParams`` and
``can_use_flash_attention``/``can_use_efficient_attention`` answer PyTorch's fused-kernel
questions: arraygrad has no fused kernels, so never. ``flex_attention`` is the eager
reference of PyTorch's flexible attention.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterable, Iterator
from warnings import warn

from arraygrad.attention_backends import SDPBackend
from arraygrad import attention_backends as _backends

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS", "SDPAParams",
           "can_use_flash_attention", "can_use_efficient_attention", "warn"]

# PyTorch's switch for warnings on why a fused kernel could not run; arraygrad has none
WARN_FOR_UNFUSED_KERNELS = False

_NAMES = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
          "mem_efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH,
          "overrideable": SDPBackend.OVERRIDEABLE}


def _cur_sdpa_kernel_backends(with_priority: bool = False) -> list[SDPBackend]:
    backends = _backends.enabled()
    if with_priority:
        order = _backends.priority()
        backends = sorted(backends, key=lambda b: order.index(int(b)))
    return backends


def _sdpa_kernel(backends: Iterable[SDPBackend], set_priority: bool = False) -> None:
    backends = list(backends)
    for backend in _NAMES.values():
        _backends.set_enabled(backend, backend in backends)
    if set_priority:
        user = [int(b) for b in backends]
        user += [b for b in _backends.priority() if b not in user]
        _backends.set_priority(user)


@contextlib.contextmanager
def sdpa_kernel(backends: list[SDPBackend] | SDPBackend,
                set_priority: bool = False) -> Iterator[dict[str, Any]]:
    """Inside the block only ``backends`` (one, or a list) are enabled for
    ``scaled_dot_product_attention`` (with ``set_priority``, tried in that order); the
    previous setting comes back on exit.

    >>> with sdpa_kernel(SDPBackend.MATH):
    ...     F.scaled_dot_product_attention(q, k, v)
    """
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend "
                             f"instances, got {type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))
    previous = _cur_sdpa_kernel_backends(with_priority=set_priority)
    previous_order = _backends.priority()
    try:
        _sdpa_kernel(backends, set_priority)
        yield {}
    finally:
        _sdpa_kernel(previous, False)
        _backends.set_priority(previous_order)


class SDPAParams:
    """The arguments of one ``scaled_dot_product_attention`` call, for the
    ``can_use_*`` checks (PyTorch's positional constructor)."""

    def __init__(self, query: Any, key: Any, value: Any, attn_mask: Any, dropout: float,
                 is_causal: bool, enable_gqa: bool) -> None:
        from arraygrad.tensor import Tensor

        for name, t in (("query", query), ("key", key), ("value", value)):
            if not isinstance(t, Tensor):
                raise TypeError(f"SDPAParams: {name} must be a Tensor, got {type(t).__name__}")
        if attn_mask is not None and not isinstance(attn_mask, Tensor):
            raise TypeError(f"SDPAParams: attn_mask must be a Tensor or None, got "
                            f"{type(attn_mask).__name__}")
        self.query, self.key, self.value, self.attn_mask = query, key, value, attn_mask
        self.dropout = float(dropout)
        self.is_causal = bool(is_causal)
        self.enable_gqa = bool(enable_gqa)


def can_use_flash_attention(params: SDPAParams, debug: bool = False) -> bool:
    """Whether PyTorch's CUDA flash-attention kernel could run this call: never in arraygrad,
    which computes attention by its math formula (as PyTorch's CPU build answers)."""
    return False


def can_use_efficient_attention(params: SDPAParams, debug: bool = False) -> bool:
    """Whether PyTorch's memory-efficient CUDA kernel could run this call: never in
    arraygrad (see ``can_use_flash_attention``)."""
    return False


def _raise_kernel_warnings(params: SDPAParams) -> None:
    """With ``WARN_FOR_UNFUSED_KERNELS``: say that no fused kernel runs (PyTorch's hook)."""
    if WARN_FOR_UNFUSED_KERNELS:
        if not can_use_efficient_attention(params):
            warn("Efficient attention can't be used because:", stacklevel=2)
        if not can_use_flash_attention(params):
            warn("Flash attention can't be used because:", stacklevel=2)


def __getattr__(name: str) -> object:
    """A name PyTorch's ``torch.nn.attention`` has and arraygrad lists as absent: AttributeError with the
    reason (``absences.toml``)."""
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.nn.attention", name, "arraygrad.nn.attention")
