"""The recording in progress as the rest of the core reaches it: array factories and the
random generators ask here for their recording counterparts (``creation._backend`` and
``random.generator_for``, each behind one flag test)."""

from __future__ import annotations

from typing import Any

from arraygrad.compiler.recording_backend import RecordingBackend, RecordingGenerator
from arraygrad.compiler.traced import current

__all__ = ["recorded_backend", "recorded_generator"]


def recorded_backend(backend: Any) -> Any:
    """``backend`` as the recording in progress sees it (itself when none is)."""
    rec = current.rec
    if rec is None or backend.__class__ is RecordingBackend:
        return backend
    return rec.wrap_backend(backend)


def recorded_generator(backend: Any, generator: Any) -> Any:
    """A generator whose draws from ``generator`` on ``backend`` are recorded."""
    rec = current.rec
    real = backend._real if backend.__class__ is RecordingBackend else backend
    if rec is None:  # pragma: no cover - the flag is only on while a recording is current
        return generator.native(real)
    return RecordingGenerator(real, generator, rec)
