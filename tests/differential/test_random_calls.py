"""Differential testing against PyTorch: random calls of the op surface on both libraries from
the same data must agree (values, dtypes, shapes, error classes, gradients). Skipped without
PyTorch. ``python -m tests.differential.report N`` prints the agreement rate of N calls."""

import pytest

try:
    import torch
except ImportError:
    torch = None

import arraygrad as ag
from tests.differential.compare import run

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

# Differences on purpose, each in docs/differences.md: (name prefix, text in the report)
KNOWN = [
    ("floor_divide", "derivative for aten::floor_divide is not implemented"),  # ours: zero
]


def _known(detail: str) -> bool:
    return any(detail.startswith(name) and text in detail for name, text in KNOWN)


@needs_torch
@pytest.mark.parametrize("seed", [11, 12])
def test_random_calls_agree_with_pytorch(seed):
    agree, failures = run(400, seed, torch, ag)
    unexplained = [f for f in failures if not _known(f)]
    assert not unexplained, "\n---\n".join(unexplained[:5])
