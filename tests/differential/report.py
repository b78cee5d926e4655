"""``python -m tests.differential.report [N] [SEED] [--all] [--bad P]``: agreement of N random
calls with PyTorch, and the disagreements grouped by op. ``--all``: every op family
(``calls.all_specs``), not only ``calls.SPECS``; ``--bad P``: each call mutated into a bad
one with probability P (``bad_calls``); ``-v``: print every disagreement."""

import argparse
import collections

import torch

import arraygrad as ag
from tests.differential.calls import SPECS, all_specs
from tests.differential.compare import run

if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("n", type=int, nargs="?", default=2000)
    parser.add_argument("seed", type=int, nargs="?", default=1)
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--bad", type=float, default=0.0)
    parser.add_argument("-v", action="store_true")
    a = parser.parse_args()
    agree, failures = run(a.n, a.seed, torch, ag, specs=all_specs() if a.all else SPECS,
                          bad=a.bad)
    print(f"{agree}/{a.n} calls agree ({100.0 * agree / a.n:.1f}%)")
    for name, count in collections.Counter(f.split("[")[0] for f in failures).most_common():
        print(f"  {name}: {count}")
    if a.v:
        print("\n---\n".join(failures))
