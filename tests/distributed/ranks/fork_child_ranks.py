"""Every rank forks a child (as a DataLoader worker is forked) that runs the atexit handlers
and ends: it is no rank, so the job must go on and finish cleanly."""

import atexit
import os

import arraygrad as ag
import arraygrad.distributed as dist

dist.init_process_group()
pid = os.fork()
if pid == 0:
    atexit._run_exitfuncs()  # what a normal interpreter exit runs (MPI_Finalize comes after)
    os._exit(0)
os.waitpid(pid, 0)
out = ag.ones(3)
for _ in range(3):
    dist.all_reduce(out)
print(f"rank {dist.get_rank()} done {out.tolist()}", flush=True)
