"""Run by the launcher test: print rank, size and the BLAS thread setting; maybe fail."""

import argparse
import os

import arraygrad as ag
import arraygrad.distributed as dist

parser = argparse.ArgumentParser()
parser.add_argument("--fail-on", type=int, default=-1)
args = parser.parse_args()
dist.init_process_group()
if dist.get_rank() == args.fail_on:
    raise RuntimeError("failing on purpose")
dist.all_reduce(ag.ones(1))
print(f"rank{dist.get_rank()}/{dist.get_world_size()}:threads={os.environ['OMP_NUM_THREADS']}",
      flush=True)
