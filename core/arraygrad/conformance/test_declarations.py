"""The backend's declarations: every expected failure must name a check that exists."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from arraygrad.conformance.pytest_plugin import all_check_ids



@pytest.mark.parametrize("check", ["xfail_ids_known"])
def test_declarations(conformance: Any, check: Callable[..., Any], request: Any) -> None:
    """``declarations[xfail_ids_known]``: an xfail naming an unknown check id is an error."""
    unknown = sorted(set(conformance.xfail) - all_check_ids(request.config))
    assert not unknown, f"xfail names unknown check ids: {unknown}"
