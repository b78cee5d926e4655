"""``arraygrad.cuda.amp``: PyTorch's deprecated CUDA spellings of ``arraygrad.amp``
(``torch.cuda.amp.autocast()`` is ``autocast("cuda")``, with PyTorch's FutureWarning)."""

from __future__ import annotations

from arraygrad.cuda.amp import autocast_mode, common, grad_scaler
from arraygrad.cuda.amp.autocast_mode import autocast, custom_bwd, custom_fwd
from arraygrad.cuda.amp.common import amp_definitely_not_available
from arraygrad.cuda.amp.grad_scaler import GradScaler

__all__ = ["autocast", "custom_fwd", "custom_bwd", "GradScaler", "amp_definitely_not_available",
           "autocast_mode", "common", "grad_scaler"]
