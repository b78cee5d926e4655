"""DDP's cost: steps/s of an MLP at 1, 2 and 4 ranks, and all_reduce of 1 and 16 MB against
raw mpi4py on the same buffers (the floor).

    python benchmarks/ddp.py                 # launches itself with mpiexec -n 1, 2, 4
    python benchmarks/ddp.py --ranks 1 2 --steps 10

Each rank runs the same per-rank batch (weak scaling); "comm" is the share of a DDP step
that a step of the bare model (same forward, backward and update, no DDP) does not spend.
Ranks beyond the machine's cores share cores, so those figures measure contention too.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def _median_time(fn, repeat):
    fn()  # warm up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def worker(steps: int) -> None:
    import numpy as np
    from mpi4py import MPI

    import arraygrad as ag
    import arraygrad.distributed as dist
    from arraygrad import nn
    from arraygrad.nn.parallel import DistributedDataParallel

    dist.init_process_group()
    rank, world = dist.get_rank(), dist.get_world_size()
    ag.manual_seed(0)
    x, y = ag.randn(128, 784), ag.randint(0, 10, (128,))
    loss_fn = nn.CrossEntropyLoss()

    def make():
        ag.manual_seed(0)
        return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                             nn.Linear(512, 10))

    def stepper(model):
        opt = ag.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

        def step():
            opt.zero_grad()
            loss_fn(model(x), y).backward()
            opt.step()
        return step

    comm = MPI.COMM_WORLD
    comm.Barrier()
    bare = _median_time(stepper(make()), steps)
    comm.Barrier()
    ddp = _median_time(stepper(DistributedDataParallel(make())), steps)
    result = {"ranks": world, "bare_step_s": bare, "ddp_step_s": ddp, "ddp_steps_per_s": 1 / ddp}
    for mb in (1, 16):
        t = ag.ones(mb * 2 ** 20 // 4)
        raw = t.numpy()

        def ours():
            dist.all_reduce(t)

        def floor():
            comm.Allreduce(MPI.IN_PLACE, raw)

        comm.Barrier()
        result[f"allreduce_{mb}MB_s"] = _median_time(ours, max(3, steps // 2))
        comm.Barrier()
        result[f"mpi4py_{mb}MB_s"] = _median_time(floor, max(3, steps // 2))
    times = comm.gather(result, root=0)
    if rank == 0:
        # the slowest rank sets the pace
        merged = {k: (max(r[k] for r in times) if k.endswith("_s") else times[0][k])
                  for k in times[0]}
        merged["ddp_steps_per_s"] = 1 / merged["ddp_step_s"]
        print("RESULT " + json.dumps(merged), flush=True)
    dist.destroy_process_group()
    del np


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", type=int, nargs="+", default=[1, 2, 4])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.steps)
        return 0
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    print(f"{'ranks':>5} {'steps/s':>8} {'step ms':>8} {'bare ms':>8} {'comm':>5} "
          f"{'1MB ms':>7} {'floor':>6} {'16MB ms':>8} {'floor':>6}")
    for n in args.ranks:
        out = subprocess.run([mpiexec, "-n", str(n), sys.executable, "-m", "mpi4py",
                              os.path.abspath(__file__), "--worker", "--steps", str(args.steps)],
                             capture_output=True, text=True, env=env, timeout=600, check=True)
        r = json.loads(next(line for line in out.stdout.splitlines()
                            if line.startswith("RESULT "))[7:])
        comm = max(0.0, 1 - r["bare_step_s"] / r["ddp_step_s"])
        print(f"{n:5d} {r['ddp_steps_per_s']:8.1f} {r['ddp_step_s'] * 1e3:8.2f} "
              f"{r['bare_step_s'] * 1e3:8.2f} {comm:5.0%} {r['allreduce_1MB_s'] * 1e3:7.3f} "
              f"{r['mpi4py_1MB_s'] * 1e3:6.3f} {r['allreduce_16MB_s'] * 1e3:8.2f} "
              f"{r['mpi4py_16MB_s'] * 1e3:6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
