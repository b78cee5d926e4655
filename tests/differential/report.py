"""``python -m tests.differential.report [N] [SEED]``: agreement of N random calls with PyTorch,
and the disagreements grouped by op."""

import collections
import sys

import torch

import arraygrad as ag
from tests.differential.compare import run

if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    agree, failures = run(n, seed, torch, ag)
    print(f"{agree}/{n} calls agree ({100.0 * agree / n:.1f}%)")
    for name, count in collections.Counter(f.split("[")[0] for f in failures).most_common():
        print(f"  {name}: {count}")
