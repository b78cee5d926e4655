"""The nccl backend on 2 GPUs: all_reduce (sync, async, AVG) and broadcast of CuPy tensors."""

import numpy as np

import arraygrad as ag
import arraygrad.distributed as dist

dist.init_process_group(backend="nccl")
r, n = dist.get_rank(), dist.get_world_size()
dev = f"cuda:{r % 2}"
t = ag.ones(4, device=dev) * (r + 1)
dist.all_reduce(t)
np.testing.assert_array_equal(t.cpu().numpy(), np.full(4, n * (n + 1) / 2))
t = ag.ones(4, device=dev) * (r + 1)
dist.all_reduce(t, op=dist.ReduceOp.AVG, async_op=True).wait()
np.testing.assert_array_equal(t.cpu().numpy(), np.full(4, (n + 1) / 2))
t = ag.ones(4, device=dev) * r
dist.broadcast(t, src=1)
np.testing.assert_array_equal(t.cpu().numpy(), np.ones(4))
dist.destroy_process_group()
print("nccl ok", flush=True)
