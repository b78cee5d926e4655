"""``arraygrad.live_scalars`` under the compiler's name (the protocol lives in a leaf module
so that the optimizers and schedulers, below the compiler, need not import it)."""

from __future__ import annotations

from arraygrad.live_scalars import (LiveScalar, RecordingFlag, host_effect, is_recording, live,
                                    read_guarded, recording_flag)

__all__ = ["LiveScalar", "live", "read_guarded", "is_recording", "recording_flag",
           "RecordingFlag", "host_effect"]
