"""Shared helpers for the reliability tests: snapshots of tensor and graph state."""

from __future__ import annotations

import arraygrad as ag


def state_of(*tensors) -> list:
    """Everything a failed call must leave unchanged, per tensor."""
    out = []
    for t in tensors:
        grad = t._grad
        out.append((t.tolist(), t.requires_grad, t._version, t._grad_fn,
                    None if grad is None else grad.tolist(),
                    None if t._grad_fn is None else t._grad_fn._freed))
    return out


def leaf(values, dtype=None):
    """A float leaf that requires grad."""
    return ag.tensor(values, dtype=dtype, requires_grad=True)


FIGURES: dict = {}
"""Figures the reliability tests measured (cases tried, RSS, threads x iterations),
printed at the end of the pytest run by ``conftest.pytest_terminal_summary``."""


def report(name: str, text: str) -> None:
    """Record a figure for the end-of-run summary (and print it for ``-s`` runs)."""
    FIGURES[name] = text
    print(f"\n{name}: {text}")
