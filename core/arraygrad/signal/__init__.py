"""``arraygrad.signal``: PyTorch's ``torch.signal`` (its ``windows``)."""

from arraygrad.signal import windows

__all__ = ["windows"]
