"""Rank 1 raises while rank 0 waits in a collective: the job must end, not hang."""

import arraygrad as ag
import arraygrad.distributed as dist

dist.init_process_group()
if dist.get_rank() == 1:
    raise ValueError("rank 1 fails on purpose")
dist.all_reduce(ag.ones(3))  # never completes: rank 1 is gone
