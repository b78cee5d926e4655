"""Every hook a plugin may implement, in one place.

Hooks take a *registrar* callable rather than returning values, so a plugin
can register several things and the host can check each one as it arrives.
"""

from __future__ import annotations

from typing import Any

from arraygrad.plugins.markers import hookspec



@hookspec
def arraygrad_register_backends(register: Any) -> None:
    """Register array backends: call ``register(backend)`` with ``Backend`` instances."""


@hookspec
def arraygrad_register_ops(registry: Any) -> None:
    """Register ops and per-backend kernels on ``registry`` (an ``arraygrad.plugins.registry.OpRegistrar``).

    ``registry.op(name, fn, namespace=..., method=..., cases=...)`` adds a new op;
    ``registry.kernel(op_name, backend_name, fn)`` adds a fast kernel for an
    existing op on one backend. A name clash raises unless ``override=True``.
    """


@hookspec
def arraygrad_conformance(register: Any) -> None:
    """Declare conformance facts: ``register.backend(name, capabilities=..., xfail={check_id: reason})``
    for a backend, ``register.cases(cases)`` for extra op cases."""


@hookspec
def arraygrad_register_distributed(register: Any) -> None:
    """Register process-group backends for ``arraygrad.distributed``: call
    ``register(name, factory)``, where ``factory(timeout=...)`` returns the world's
    ``arraygrad.distributed.backend.ProcessGroupBackend`` (e.g. ``"mpi"``, ``"nccl"``)."""
