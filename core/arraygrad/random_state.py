"""A generator's state as bytes that are safe to load: JSON, never pickle.

``Generator.get_state`` answers a tensor of these bytes (PyTorch's is a byte tensor too), and
programs save it in checkpoints (``torch.save({"rng": torch.get_rng_state()})``), so
``set_state`` reads bytes that may come from anywhere: decoding them must not run code. The
bytes are JSON of ``{"arraygrad_rng": 1, "seed": int, "native": ...}``, where ``native`` is
the backend generator's own JSON-safe state (``Generator.state()`` of the backend contract),
or ``{"token": ...}`` naming a snapshot kept in this process for a backend that cannot
serialise its generator, or None before the first draw.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

__all__ = ["encode", "decode", "FORMAT"]

FORMAT = 1
_MAX_BYTES = 1 << 20  # a state is a few hundred bytes: anything much larger is not one
_snapshots: dict[str, Any] = {}  # token -> (backend, native copy), for backends without state()


def encode(seed: int, native: tuple[Any, Any] | None) -> bytes:
    """The bytes of a generator at ``seed`` whose native generator is ``(backend, gen)``."""
    described: Any = None
    if native is not None:
        backend, gen = native
        state = gen.state()
        if state is None:
            token = secrets.token_hex(16)
            _snapshots[token] = (backend, gen.copy())
            described = {"token": token}
        else:
            described = {"backend": backend.name, "state": state}
    return json.dumps({"arraygrad_rng": FORMAT, "seed": seed, "native": described},
                      separators=(",", ":")).encode("ascii")


def decode(data: bytes) -> tuple[int, Any]:
    """``(seed, native)`` from ``encode``'s bytes: ``native`` is None, ``("state", backend
    name, state)`` or ``("snapshot", backend, gen)``. ValueError for anything else."""
    if len(data) > _MAX_BYTES:
        raise ValueError(f"a generator state is at most {_MAX_BYTES} bytes, got {len(data)}")
    try:
        doc = json.loads(data.decode("ascii"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ValueError(f"not a generator state made by get_state ({e})") from None
    if not isinstance(doc, dict) or doc.get("arraygrad_rng") != FORMAT:
        raise ValueError("not a generator state made by get_state (no arraygrad_rng format)")
    seed, native = doc.get("seed"), doc.get("native")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"a generator state's seed must be a non-negative int, got {seed!r}")
    if native is None:
        return seed, None
    if isinstance(native, dict) and isinstance(native.get("token"), str):
        snapshot = _snapshots.get(native["token"])
        if snapshot is None:
            raise ValueError("this generator state was made by another process, and its "
                             "backend cannot serialise its generator")
        return seed, ("snapshot", snapshot[0], snapshot[1].copy())
    if isinstance(native, dict) and isinstance(native.get("backend"), str):
        return seed, ("state", native["backend"], native.get("state"))
    raise ValueError(f"a generator state's native part is malformed: {native!r:.80}")
