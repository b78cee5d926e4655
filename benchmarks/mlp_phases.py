"""Where an MLP step's time goes: forward, backward and update, for arraygrad and the NumPy
floor, interleaved (blocks of three steps, the first untimed) so the comparison holds on a
noisy machine.

    python benchmarks/mlp_phases.py            # mlp_step's 784-512-512-10, batch 128
    python benchmarks/mlp_phases.py --small    # mlp_small_step's 64-64-64-10, batch 32
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from one_thread import pin_one_thread  # noqa: E402

if __name__ == "__main__":
    pin_one_thread()  # before NumPy loads its BLAS

from workloads import mlp  # noqa: E402

PHASES = ("forward", "backward", "update")


def _arraygrad_phases(sizes, batch):
    import arraygrad as ag

    params, x, y = mlp.make_data(sizes, batch)
    layers = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        layers += [ag.nn.Linear(fan_in, fan_out), ag.nn.ReLU()]
    model = ag.nn.Sequential(*layers[:-1])
    with ag.no_grad():
        for p, v in zip(model.parameters(), params):
            p.copy_(ag.from_numpy(v))
    opt = ag.optim.SGD(model.parameters(), lr=0.01)
    xt, yt, loss_fn = ag.from_numpy(x), ag.from_numpy(y), ag.nn.CrossEntropyLoss()

    def step():
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = loss_fn(model(xt), yt)
        t1 = time.perf_counter()
        loss.backward()
        t2 = time.perf_counter()
        opt.step()
        return t1 - t0, t2 - t1, time.perf_counter() - t2
    return step


def _numpy_phases(sizes, batch):
    params, x, y = mlp.make_data(sizes, batch)

    def step():
        t0 = time.perf_counter()
        acts, g = mlp.numpy_forward(params, x, y)
        t1 = time.perf_counter()
        grads = mlp.numpy_backward(params, acts, g)
        t2 = time.perf_counter()
        mlp.numpy_update(params, grads)
        return t1 - t0, t2 - t1, time.perf_counter() - t2
    return step


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="the small MLP")
    parser.add_argument("--rounds", type=int, default=80)
    args = parser.parse_args(argv)
    sizes, batch = ((64, 64, 64, 10), 32) if args.small else ((784, 512, 512, 10), 128)
    steps = {"numpy": _numpy_phases(sizes, batch), "arraygrad": _arraygrad_phases(sizes, batch)}
    samples = {name: [] for name in steps}
    for _ in range(args.rounds):
        for name, step in steps.items():
            step()  # the first of a block settles caches after the other implementation
            samples[name] += [step(), step()]
    medians = {name: [statistics.median(s[i] for s in v) * 1e3 for i in range(3)]
               for name, v in samples.items()}
    print(f"{'ms':<10}" + "".join(f"{p:>10}" for p in PHASES) + f"{'sum':>10}")
    for name, m in medians.items():
        print(f"{name:<10}" + "".join(f"{v:10.3f}" for v in m) + f"{sum(m):10.3f}")
    ratio = [a / b for a, b in zip(medians["arraygrad"], medians["numpy"])]
    print(f"{'ratio':<10}" + "".join(f"{r:10.2f}" for r in ratio)
          + f"{sum(medians['arraygrad']) / sum(medians['numpy']):10.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
