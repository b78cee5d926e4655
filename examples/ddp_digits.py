"""The demo's digits network trained data-parallel on several processes (``make demo-ddp``).

    python -m arraygrad.distributed.run --nproc-per-node 2 examples/ddp_digits.py
    mpiexec -n 2 python -m mpi4py examples/ddp_digits.py         # the same, spelled out

Each rank trains on its own shard of every epoch (``DistributedSampler``) with a per-rank
batch of ``64 / world size``, so the global batch is the single-process demo's 64;
``DistributedDataParallel`` averages the gradients, so every rank takes the same step.
Rank 0 reports; at the end every rank's parameters are checked to be bit-identical.
A plain ``python examples/ddp_digits.py`` is a world of one.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import arraygrad as ag  # noqa: E402
import arraygrad.distributed as dist  # noqa: E402
from arraygrad import nn  # noqa: E402
from arraygrad.nn.parallel import DistributedDataParallel  # noqa: E402
from arraygrad.utils.data import DataLoader, DistributedSampler, TensorDataset  # noqa: E402
from demo import DigitNet, accuracy, digits  # noqa: E402


def fingerprint(model: nn.Module) -> str:
    """A hash of every parameter's bytes."""
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(p.detach().numpy().tobytes())
    return h.hexdigest()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--global-batch", type=int, default=64)
    parser.add_argument("--target", type=float, default=0.97, help="the accuracy to reach")
    args = parser.parse_args(argv)

    dist.init_process_group()
    rank, world = dist.get_rank(), dist.get_world_size()
    say = print if rank == 0 else (lambda *a, **k: None)
    ag.manual_seed(args.seed + rank)  # dropout differs per rank; the weights come from rank 0
    (train_x, train_y), (test_x, test_y) = digits(args.seed)
    dataset = TensorDataset(train_x, train_y)
    sampler = DistributedSampler(dataset, seed=args.seed)
    loader = DataLoader(dataset, batch_size=args.global_batch // world, sampler=sampler)
    model = DistributedDataParallel(DigitNet())
    optimizer = ag.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = ag.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    loss_fn = nn.CrossEntropyLoss()
    say(f"digits on {world} process(es): {len(sampler)} of {len(train_y)} train images each, "
        f"batch {args.global_batch // world} per process")

    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        sampler.set_epoch(epoch)
        total, seen = 0.0, 0
        for images, labels in loader:
            loss = loss_fn(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(labels)
            seen += len(labels)
        scheduler.step()
        if epoch % 5 == 0 or epoch == args.epochs:
            say(f"epoch {epoch:2d}: rank 0 train loss {total / seen:.4f}, test accuracy "
                f"{accuracy(model.module, test_x, test_y):.4f}")
    elapsed = time.perf_counter() - start

    prints = [None] * world
    dist.all_gather_object(prints, fingerprint(model.module))
    identical = all(p == prints[0] for p in prints)
    final = accuracy(model.module, test_x, test_y)
    say(f"trained {args.epochs} epochs in {elapsed:.1f} s on {world} process(es); "
        f"test accuracy {final:.4f}")
    say(f"parameters on the {world} ranks: {'bit-identical' if identical else 'DIFFERENT'}")
    dist.destroy_process_group()
    if not identical:
        return 1
    return 0 if final >= args.target else 2


if __name__ == "__main__":
    raise SystemExit(main())
