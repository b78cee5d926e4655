"""The optimizer configurations the live-scalar tests run (shared by the simulated-recording
and the compiled tests): one per optimizer and per branch of its update that a live scalar feeds."""

from __future__ import annotations

from typing import Any


def optimizer_configs(asgd_t0: int, sparse: bool) -> list[tuple[str, dict[str, Any]]]:
    """``(optimizer name, keyword arguments)`` pairs; ``asgd_t0``: the step at which ASGD starts
    averaging (inside the run); ``sparse``: include SparseAdam (it never compiles: a graph break)."""
    configs: list[tuple[str, dict[str, Any]]] = [
        ("SGD", dict(lr=0.1)),
        ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
        ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True, maximize=True)),
        ("Adam", dict(lr=0.01, weight_decay=0.1)),
        ("Adam", dict(lr=0.01, amsgrad=True)),
        ("AdamW", dict(lr=0.01)),
        ("Adadelta", dict(weight_decay=0.1)),
        ("Adagrad", dict(lr_decay=0.01, weight_decay=0.1)),
        ("Adamax", dict(weight_decay=0.1)),
        ("ASGD", dict(t0=asgd_t0, weight_decay=0.1)),
        ("NAdam", dict(weight_decay=0.1)),
        ("NAdam", dict(weight_decay=0.1, decoupled_weight_decay=True)),
        ("RAdam", dict(weight_decay=0.1)),
        ("RAdam", dict(weight_decay=0.1, decoupled_weight_decay=True)),
        ("RMSprop", dict(momentum=0.9, centered=True, weight_decay=0.1)),
        ("RMSprop", dict()),
        ("Rprop", dict()),
    ]
    if sparse:
        configs.append(("SparseAdam", dict()))
    return configs
