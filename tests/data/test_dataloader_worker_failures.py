"""DataLoader workers that die, lose their parent, or produce what cannot cross the process
boundary: every case ends with a clear error (or, for orphans, the workers exit) instead of
hanging. Each scenario runs in a subprocess with a timeout (``_worker_failure_scenarios.py``):
a hang fails the test and never stalls the suite."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCENARIOS = Path(__file__).parent / "_worker_failure_scenarios.py"
LIMIT_S = 60  # far above what a scenario needs: reaching it means it hung


def _run(name):
    try:
        proc = subprocess.run([sys.executable, str(SCENARIOS), name], capture_output=True,
                              text=True, timeout=LIMIT_S)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{name} hung (killed after {LIMIT_S} s); stderr:\n{exc.stderr}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_a_worker_killed_while_sending_a_large_batch_is_reported():
    out = _run("dies_mid_send")
    assert "RAISED RuntimeError: DataLoader worker (pid(s) " in out, out
    assert "exited unexpectedly" in out, out


def test_an_unpicklable_batch_is_an_error_naming_the_worker():
    out = _run("unpicklable_batch")
    assert "RAISED TypeError: Caught TypeError in DataLoader worker process 0" in out, out
    assert "cannot pickle 'generator' object" in out, out


def test_a_batch_the_main_process_cannot_unpickle_raises_its_error():
    # As in PyTorch, the unpickling error itself (read in pieces now, it must still surface).
    assert "RAISED ValueError: this object cannot be rebuilt here" in _run("unpicklable_in_main")


def test_an_exception_class_defined_in_a_function_still_reaches_the_main_process():
    out = _run("local_exception")
    assert "RAISED RuntimeError: Caught LocalError in DataLoader worker process 0" in out, out
    assert "sample 0 is broken" in out and "raise_local_exception" in out, out


def test_every_start_method_delivers_the_batches():
    assert "BATCHES 4" in _run("start_methods")


def _gone(pid):
    """Exited (a zombie not reaped yet counts: it runs nothing and holds no memory)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_workers_exit_when_their_main_process_is_killed():
    proc = subprocess.Popen([sys.executable, str(SCENARIOS), "orphans"], stdout=subprocess.PIPE,
                            text=True)
    pids = []
    try:
        pids = [int(p) for p in proc.stdout.readline().split()]
        assert len(pids) == 2
        assert proc.stdout.readline().strip() == "READY"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=LIMIT_S)
        deadline = time.monotonic() + 30  # a bound on the wait, not a speed requirement
        while not all(_gone(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert all(_gone(p) for p in pids), f"orphaned DataLoader workers left running: {pids}"
    finally:
        proc.kill()
        for pid in pids:
            if not _gone(pid):
                os.kill(pid, signal.SIGKILL)
