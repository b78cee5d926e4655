"""One seed, one stream, whichever entry point draws: as in PyTorch, ``rand(n)`` equals
``empty(n).uniform_()`` and ``randn(n)`` equals ``empty(n).normal_()`` and
``normal(zeros(n), ones(n))`` (torch.distributions draws through the fillers, programs through
the factories). Checked on PyTorch too, so the identities are PyTorch's."""

from __future__ import annotations

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

FRAMEWORKS = [ag] + ([torch] if torch is not None else [])


@pytest.mark.parametrize("fw", FRAMEWORKS, ids=lambda m: m.__name__)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 7, 40])
def test_factories_and_fillers_draw_the_same_numbers(fw, dtype, n):
    d = getattr(fw, dtype)

    def drawn(make):
        fw.manual_seed(11)
        return make()

    assert fw.equal(drawn(lambda: fw.rand(n, dtype=d)),
                    drawn(lambda: fw.empty(n, dtype=d).uniform_()))
    randn = drawn(lambda: fw.randn(n, dtype=d))
    assert fw.equal(randn, drawn(lambda: fw.empty(n, dtype=d).normal_()))
    assert fw.equal(randn, drawn(lambda: fw.normal(fw.zeros(n, dtype=d), fw.ones(n, dtype=d))))


def test_the_fillers_still_scale_and_shift():
    ag.manual_seed(3)
    u = ag.rand(1000, dtype=ag.float64)
    ag.manual_seed(3)
    assert ag.allclose(ag.empty(1000, dtype=ag.float64).uniform_(-2, 5), u * 7 - 2)
    ag.manual_seed(3)
    z = ag.randn(1000, dtype=ag.float64)
    ag.manual_seed(3)
    assert ag.allclose(ag.empty(1000, dtype=ag.float64).normal_(1.5, 0.5), z * 0.5 + 1.5)
