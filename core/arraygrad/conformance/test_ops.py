"""Per-op checks: ``forward[case]``, ``grad[case]``, ``double_backward[case]``, ``dtypes[case]``,
``devices[case]`` for every built-in and plugin op case (see ``op_checks``)."""

from __future__ import annotations

from typing import Any

import pytest

from arraygrad.conformance.op_checks import CHECKS
from arraygrad.conformance.pytest_plugin import context



def pytest_generate_tests(metafunc: Any) -> None:
    """One test per case that asks for this check kind."""
    kind = metafunc.function.check_kind
    ctx = context(metafunc.config)
    if ctx is None:  # inert or unusable backend: one placeholder that skips
        metafunc.parametrize("case", [pytest.param(None, id="no-backend")])
        return
    metafunc.parametrize("case", [pytest.param(c, id=c.name) for c in ctx.cases
                                  if kind in c.checks])


def _check(kind: str) -> Any:
    def test(conformance: Any, case: Any) -> None:
        CHECKS[kind](conformance, case)
    test.check_kind = kind  # type: ignore[attr-defined]  # read back by the collection hook
    test.__doc__ = CHECKS[kind].__doc__
    return test


test_forward = _check("forward")
test_grad = _check("grad")
test_double_backward = _check("double_grad")
test_dtypes = _check("dtypes")
test_devices = _check("devices")
