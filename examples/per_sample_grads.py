"""Per-sample gradients of a small conv net with ``vmap(grad(loss))`` (docs/func.md).

The gradient of each image's loss, for every parameter, in one call:
``vmap(grad(loss), in_dims=(None, 0, 0))(params, images, labels)``, where ``loss`` runs the
network on one image through ``functional_call``. The program checks the result against a
Python loop over the images (``grad`` once per image) and prints the agreement and the
speedup of ``vmap`` over the loop::

    python examples/per_sample_grads.py [--batch N]
"""

from __future__ import annotations

import argparse
import time

import arraygrad as ag
from arraygrad import nn
from arraygrad.func import functional_call, grad, vmap


def main(argv: list[str] | None = None) -> None:
    """Compute per-sample gradients both ways; print the largest difference and the times."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batch", type=int, default=32, help="images in the batch")
    args = parser.parse_args(argv)

    ag.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(8 * 5 * 5, 10))
    params = {k: v.detach() for k, v in model.named_parameters()}
    images = ag.randn(args.batch, 1, 12, 12)
    labels = ag.randint(0, 10, (args.batch,))

    def loss(p: dict, image: ag.Tensor, label: ag.Tensor) -> ag.Tensor:
        logits = functional_call(model, p, (image.unsqueeze(0),))
        return nn.functional.cross_entropy(logits, label.unsqueeze(0))

    per_sample = vmap(grad(loss), in_dims=(None, 0, 0))
    per_sample(params, images, labels)  # warm up both ways once
    t0 = time.perf_counter()
    batched = per_sample(params, images, labels)
    t_vmap = time.perf_counter() - t0

    t0 = time.perf_counter()
    looped = [grad(loss)(params, images[i], labels[i]) for i in range(args.batch)]
    t_loop = time.perf_counter() - t0

    worst = max(float((batched[k][i] - looped[i][k]).abs().max())
                for k in params for i in range(args.batch))
    print(f"per-sample gradients of {sum(p.numel() for p in params.values())} parameters "
          f"for {args.batch} images")
    print(f"largest difference between vmap and the loop: {worst:.2e}")
    print(f"vmap {t_vmap * 1e3:.1f} ms, loop {t_loop * 1e3:.1f} ms: "
          f"speedup {t_loop / t_vmap:.2f}x")


if __name__ == "__main__":
    main()
