"""Two process-wide switches of PyTorch's backward on CUDA streams:
``set_warn_on_accumulate_grad_stream_mismatch`` (warn when a leaf's gradient arrives on
another stream than the leaf's) and ``set_override_stale_capture_stream`` (during CUDA graph
capture, replace a node's stale stream by the capturing one).

arraygrad's engine records no stream per node (every node runs on the stream current at
backward) and has no CUDA graph capture, so neither situation arises: the switches are kept,
so a program setting them runs unchanged, and nothing acts on them, as on PyTorch's CPU build.
"""

from __future__ import annotations

__all__ = ["set_warn_on_accumulate_grad_stream_mismatch", "set_override_stale_capture_stream"]


class _Flags:
    warn_on_accumulate_grad_stream_mismatch = True  # PyTorch's initial states
    override_stale_capture_stream = False


flags = _Flags()


def set_warn_on_accumulate_grad_stream_mismatch(enabled: bool) -> None:
    """Whether to warn when a leaf's ``AccumulateGrad`` runs on another stream than the node
    that produced its gradient (never the case in arraygrad: see the module docstring)."""
    flags.warn_on_accumulate_grad_stream_mismatch = bool(enabled)


def set_override_stale_capture_stream(enabled: bool) -> None:
    """Whether CUDA graph capture replaces a stale non-capturing stream by the capturing one
    (arraygrad has no graph capture: see the module docstring). Process-wide."""
    flags.override_stale_capture_stream = bool(enabled)
