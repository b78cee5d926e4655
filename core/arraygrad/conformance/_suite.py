"""``suite_test(group, checks)``: one parametrized test per named suite-wide check.

Each ``test_<group>`` module defines ``CHECKS = {name: fn(ctx)}``; the test's
ids are then ``<group>[<name>]``, e.g. ``engine[retain_graph_error]``.
"""

import pytest

__all__ = ["suite_test"]


def suite_test(checks: dict):
    """A test function running ``checks[name](ctx)`` for each name."""
    @pytest.mark.parametrize("check", list(checks))
    def test(conformance, check):
        checks[check](conformance)
    return test
