"""Differential testing against PyTorch: random calls of the op surface on both libraries from
the same data must agree (values, dtypes, shapes, error classes, gradients). Skipped without
PyTorch. ``python -m tests.differential.report N [SEED] [--all] [--bad P]`` prints the
agreement rate of N calls."""

import pytest

try:
    import torch
except ImportError:
    torch = None

import arraygrad as ag
from tests.differential.bad_calls import mutations
from tests.differential.calls import all_specs
from tests.differential.compare import run

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

# Differences on purpose, each in docs/differences.md: (name prefix, text in the report)
KNOWN = [
    ("floor_divide", "derivative for aten::floor_divide is not implemented"),  # ours: zero
    # an out-of-range (negative) index: ours refuses it, PyTorch's CPU kernel reads it
    ("take_along_dim", "torch ok  / ours err take_along_dim(): index"),
    # an empty adaptive pooling's backward: ours an empty gradient, PyTorch refuses
    ("nn.functional.adaptive_", "Expected grad_output to have non-zero size"),
    # inf among a bin's inputs: ours averages by a product with the bin matrix (NaN beside it)
    ("nn.functional.adaptive_avg_pool", "specials=True float64 good: values"),
    # the ELU family's gradient at a NaN input: PyTorch's own depends on where the element
    # falls (its vector loop gives NaN, its scalar tail and short tensors the slope, as
    # ours does everywhere), so on a given machine some draws differ
    ("nn.functional.selu", "specials=True float64 good: gradient"),
    ("nn.functional.elu", "specials=True float64 good: gradient"),
]

# the agreement the extended calls (every family, 40% bad calls) must reach on these seeds
AGREEMENT = 0.99


def _known(detail: str) -> bool:
    return any(detail.startswith(name) and text in detail for name, text in KNOWN)


@needs_torch
@pytest.mark.parametrize("seed", [11, 12])
def test_random_calls_agree_with_pytorch(seed):
    agree, failures = run(400, seed, torch, ag)
    unexplained = [f for f in failures if not _known(f)]
    assert not unexplained, "\n---\n".join(unexplained[:5])


@needs_torch
@pytest.mark.parametrize("seed", [21, 22, 23])
def test_good_and_bad_calls_of_every_family_agree_with_pytorch(seed):
    n = 600
    agree, failures = run(n, seed, torch, ag, specs=all_specs(), bad=0.4)
    unexplained = [f for f in failures if not _known(f)]
    assert (n - len(unexplained)) / n >= AGREEMENT, "\n---\n".join(unexplained[:8])


def test_every_family_and_every_bad_input_kind_is_drawn():
    names = {s.name for s in all_specs()}
    for family in ("zeros", "arange", "randint", "Tensor.__getitem__", "Tensor.__setitem__",
                   "gather", "scatter", "reshape", "cat", "bitwise_and", "eq",
                   "nn.functional.max_pool2d", "nn.functional.conv2d",
                   "nn.functional.cross_entropy", "linalg.inv", "sum", "add"):
        assert family in names
    kinds = set()
    import random

    from tests.differential.calls import shapes_for
    r = random.Random(0)
    for spec in all_specs():
        shapes = shapes_for(spec, r)
        kinds |= set(mutations(spec, shapes, spec.args(r, shapes)))
    assert kinds == {"keyword", "dim", "shape", "dtype", "type", "number", "index"}
