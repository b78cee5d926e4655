"""Bad use on 2 ranks: every rank raises together, and the group still works afterwards."""

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.distributed as dist

dist.init_process_group()
r, n = dist.get_rank(), dist.get_world_size()
assert n == 2

# another shape (and another dtype) on one rank: RuntimeError naming both, on both ranks
t = ag.zeros(2 + r)
with pytest.raises(RuntimeError, match=r"all_reduce.*rank 0 has \[2\] float32, rank 1 has \[3\] float32"):
    dist.all_reduce(t)
np.testing.assert_array_equal(t.numpy(), np.zeros(2 + r))  # untouched
t = ag.zeros(2, dtype=ag.float32 if r == 0 else ag.float64)
with pytest.raises(RuntimeError, match=r"broadcast.*\[2\] float32.*\[2\] float64"):
    dist.broadcast(t, src=0)

# a wrong argument on one rank: that rank gets the reason, the other hears of it
out = [ag.zeros(2) for _ in range(n + r)]
with pytest.raises(RuntimeError, match="all_gather: tensor_list must be a list of 2" if r
                   else r"all_gather: rank\(s\) \[1\]"):
    dist.all_gather(out, ag.ones(2))
with pytest.raises(RuntimeError, match="AVG needs a floating-point"):
    dist.all_reduce(ag.ones(2, dtype=ag.int64), op=dist.ReduceOp.AVG)
with pytest.raises(RuntimeError, match="all_gather_into_tensor: output tensor size"):
    dist.all_gather_into_tensor(ag.zeros(3), ag.ones(2))
with pytest.raises(RuntimeError, match="the ranks name different roots"):
    dist.broadcast(ag.zeros(2), src=r)

# new_group with a rank outside the world: ValueError before any communication
with pytest.raises(ValueError, match=r"ranks \[5\] are not in the world of size 2"):
    dist.new_group([0, 5])

# recv into a tensor of another shape: the receiver says what was sent
if r == 0:
    dist.send(ag.ones(4), dst=1)
else:
    got = ag.zeros(3)
    with pytest.raises(RuntimeError, match=r"recv: rank 0 sent a tensor of \[4\] float32 but the "
                                           r"receiving tensor is \[3\] float32"):
        dist.recv(got, src=0)
with pytest.raises(ValueError, match="must not be the same as the rank"):
    dist.send(ag.ones(1), dst=r)

# init twice
with pytest.raises(ValueError, match="twice"):
    dist.init_process_group()

# the group still works
t = ag.ones(3) * (r + 1)
dist.all_reduce(t)
np.testing.assert_array_equal(t.numpy(), [3.0, 3.0, 3.0])
dist.destroy_process_group()
print(f"rank {r}: errors ok", flush=True)
