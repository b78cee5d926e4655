"""Scenarios for ``test_dataloader_worker_failures.py``, each run in a subprocess (with a
timeout there): before the fixes they hung, which must fail a test, not stall the suite.

``python _worker_failure_scenarios.py NAME`` prints ``RAISED <class>: <message>`` when
iterating raised, ``BATCHES <n>`` when it ended normally, and for ``orphans`` the worker
pids, then ``READY`` before it waits to be killed.
"""

import os
import signal
import sys
import time

import arraygrad as ag
from arraygrad.utils.data import DataLoader, Dataset, get_worker_info

BIG = 1 << 20  # float64 elements: an 8 MB batch, far more than a pipe buffer (64 KB)


class Sizes(Dataset):
    """Sample 0 is small and carries its worker's pid; every other sample is ``BIG``."""

    def __len__(self):
        return 6

    def __getitem__(self, i):
        if i == 0:
            return ag.tensor([float(os.getpid())])
        return ag.ones(BIG)


class Unpicklable(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return {"value": i, "reader": (x for x in range(3))}  # a generator cannot be pickled


def _rebuild_refused():
    raise ValueError("this object cannot be rebuilt here")


class RefusedInMain:
    """Pickles in the worker; unpickling it (in the main process) raises."""

    def __reduce__(self):
        return _rebuild_refused, ()


class SendsRefused(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return RefusedInMain()


def raise_local_exception(i):
    class LocalError(Exception):  # its class cannot be pickled: it lives in a function
        pass

    raise LocalError(f"sample {i} is broken")


class RaisesLocal(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        raise_local_exception(i)


class Pids(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return ag.tensor([float(info.id), float(i)])


def dies_mid_send():
    """The worker is SIGKILLed while it is blocked writing an 8 MB batch to the main process."""
    it = iter(DataLoader(Sizes(), batch_size=None, num_workers=1))
    pid = int(next(it).item())
    time.sleep(2)  # the worker writes the next batch until the pipe is full, and blocks
    os.kill(pid, signal.SIGKILL)
    for _ in it:
        pass


def orphans():
    """Workers blocked sending large batches; the test SIGKILLs this process."""
    loader = DataLoader(Sizes(), batch_size=None, num_workers=2)
    it = iter(loader)
    print(*[w.pid for w in it._pool.workers], flush=True)
    time.sleep(1)  # both workers fill their pipes and block in a write
    print("READY", flush=True)
    time.sleep(600)


def unpicklable_batch():
    list(DataLoader(Unpicklable(), batch_size=None, num_workers=1))


def unpicklable_in_main():
    list(DataLoader(SendsRefused(), batch_size=None, num_workers=1))


def local_exception():
    list(DataLoader(RaisesLocal(), batch_size=None, num_workers=1))


def start_methods():
    """Batches in order under every start method (the result pipes travel to the workers)."""
    for method in ("fork", "spawn", "forkserver"):
        got = [b.tolist() for b in DataLoader(Pids(), batch_size=2, num_workers=2,
                                              multiprocessing_context=method)]
        assert [row[1] for batch in got for row in batch] == list(range(8)), (method, got)
        assert {row[0] for batch in got for row in batch} == {0.0, 1.0}, (method, got)
    print("BATCHES", 4, flush=True)


if __name__ == "__main__":
    try:
        globals()[sys.argv[1]]()
    except Exception as exc:
        print(f"RAISED {type(exc).__name__}: {exc}", flush=True)
    else:
        print("ENDED", flush=True)
