"""``suite_test(group, checks)``: one parametrized test per named suite-wide check.

Each ``test_<group>`` module defines ``CHECKS = {name: fn(ctx)}``; the test's
ids are then ``<group>[<name>]``, e.g. ``engine[retain_graph_error]``.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest


__all__ = ["suite_test"]


def suite_test(checks: dict[Any, Any]) -> Any:
    """A test function running ``checks[name](ctx)`` for each name."""
    @pytest.mark.parametrize("check", list(checks))
    def test(conformance: Any, check: Callable[..., Any]) -> None:
        checks[check](conformance)
    return test
