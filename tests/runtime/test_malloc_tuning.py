"""The NumPy backend fixes glibc's mmap and trim thresholds once when it registers (NumPy's
large temporaries then stay in the heap between steps), and leaves them alone where the
user asked: ``ARRAYGRAD_MALLOC_TUNING=0`` or glibc's own environment knobs."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from arraygrad_numpy import malloc_tuning

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not malloc_tuning._glibc(),
    reason="glibc's mallopt only (other C libraries keep their own policy)")

_PROBE = ("import arraygrad, arraygrad_numpy.malloc_tuning as m; arraygrad.ones(2); "
          "print(m._done)")


def _probe(**env):
    clean = {k: v for k, v in os.environ.items()
             if k not in ("ARRAYGRAD_MALLOC_TUNING", *malloc_tuning._USERS_OWN)}
    out = subprocess.run([sys.executable, "-c", _PROBE], env={**clean, **env},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_set_once_when_the_backend_registers():
    assert _probe() == "[True]"


@pytest.mark.parametrize("env", [{"ARRAYGRAD_MALLOC_TUNING": "0"},
                                 {"MALLOC_TRIM_THRESHOLD_": "1000000"},
                                 {"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1000000"}])
def test_left_alone_where_the_user_asked(env):
    assert _probe(**env) == "[False]"


def test_a_second_call_does_nothing_more():
    first = malloc_tuning.tune_malloc()
    assert malloc_tuning.tune_malloc() is first
