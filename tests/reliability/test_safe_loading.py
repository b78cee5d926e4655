"""``arraygrad.load`` never unpickles; damaged files raise clear errors without crashing or
allocating unbounded memory. The fuzz run prints how many mutated files it tried."""

from __future__ import annotations

import json
import pickle
import random
import struct
import time

import pytest

import arraygrad as ag
from reliability_helpers import report


class _Marker:
    """Unpickling this would create a file: the proof that no code ran."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_pickle_payload_is_refused_and_never_executed(tmp_path):
    marker = tmp_path / "pwned"
    bad = tmp_path / "model.pt"
    bad.write_bytes(pickle.dumps({"weight": _Marker(str(marker))}))
    with pytest.raises((RuntimeError, ValueError), match="(?i)pickle|not an arraygrad"):
        ag.load(bad)
    assert not marker.exists()


def test_truncated_and_oversized_header(tmp_path):
    good = tmp_path / "good.safetensors"
    ag.save({"w": ag.randn(4, 4), "n": {"b": ag.arange(3)}}, good)
    data = good.read_bytes()
    for cut in (0, 4, 8, 20, len(data) // 2, len(data) - 1):
        p = tmp_path / f"cut{cut}"
        p.write_bytes(data[:cut])
        with pytest.raises((RuntimeError, ValueError)):
            ag.load(p)
    huge = tmp_path / "huge"
    huge.write_bytes(struct.pack("<Q", 1 << 62) + b"{}")
    with pytest.raises((RuntimeError, ValueError), match="(?i)header"):
        ag.load(huge)


def test_lying_offsets_do_not_allocate(tmp_path):
    header = json.dumps({"w": {"dtype": "F32", "shape": [1 << 20, 1 << 20],
                               "data_offsets": [0, 4 << 40]}}).encode()
    p = tmp_path / "lies"
    p.write_bytes(struct.pack("<Q", len(header)) + header + b"\0" * 16)
    with pytest.raises((RuntimeError, ValueError)):
        ag.load(p)


def test_fuzzed_files_raise_cleanly_within_time_budget(tmp_path):
    good = tmp_path / "good.safetensors"
    ag.save({"a": ag.randn(3, 5), "b": ag.tensor([1, 2, 3]), "c": ag.tensor([True, False]),
             "nested": {"x": ag.randn(2, dtype=ag.float64)}}, good)
    data = bytearray(good.read_bytes())
    rng = random.Random(0)
    tried = loaded = rejected = 0
    deadline = time.monotonic() + 5.0
    target = tmp_path / "fuzz"
    while time.monotonic() < deadline and tried < 3000:
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            kind = rng.random()
            pos = rng.randrange(len(mutated))
            if kind < 0.6:
                mutated[pos] ^= 1 << rng.randrange(8)  # bit flip
            elif kind < 0.8:
                del mutated[pos:pos + rng.randint(1, 8)]
            else:
                mutated[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        target.write_bytes(bytes(mutated))
        tried += 1
        try:
            ag.load(target)
            loaded += 1  # a flip inside tensor data is still a valid file
        except (RuntimeError, ValueError):
            rejected += 1
    report("fuzzed files tried", f"{tried} (rejected cleanly {rejected}, still valid {loaded})")
    assert tried >= 200 and rejected > 0
