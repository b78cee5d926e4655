"""The backend's declarations: every expected failure must name a check that exists, and
every arraygrad dtype the backend lacks is declared (and refused with a clear error)."""

from __future__ import annotations

from typing import Any, Callable

import pytest

import arraygrad as ag
from arraygrad.conformance.pytest_plugin import all_check_ids


def xfail_ids_known(conformance: Any, request: Any) -> None:
    """``declarations[xfail_ids_known]``: an xfail naming an unknown check id is an error."""
    unknown = sorted(set(conformance.xfail) - all_check_ids(request.config))
    assert not unknown, f"xfail names unknown check ids: {unknown}"


def dtypes_declared(conformance: Any, request: Any) -> None:
    """``declarations[dtypes_declared]``: each arraygrad dtype is either provided (a tensor of
    it is made and read back) or declared in ``capabilities["lacks"]`` and refused with a
    TypeError naming the backend and the dtype; a declared dtype the backend has is an error."""
    provided = set(conformance.backend.supported_dtypes())
    problems = []
    for d in ag.dtypes.ALL_DTYPES:
        if d in provided:
            if d.name in conformance.lacks:
                problems.append(f"{d.name} is declared lacking but the backend provides it")
                continue
            t = ag.ones(3, dtype=d, device=conformance.device)
            back = t.tolist() if conformance.values else [1, 1, 1]  # (meta: nothing to read)
            if t.dtype is not d or back != [1, 1, 1]:  # (True == 1)
                problems.append(f"{d.name}: ones(3) read back as {t.dtype} {back}")
        elif d.name not in conformance.lacks:
            problems.append(f"{d.name} is not provided and not declared in capabilities['lacks']")
        else:
            try:
                ag.zeros(2, dtype=d, device=conformance.device)
                problems.append(f"{d.name}: declared lacking, yet zeros() made a tensor of it")
            except TypeError as e:
                if conformance.backend.name not in str(e) or d.name not in str(e):
                    problems.append(f"{d.name}: the error does not name the backend and the "
                                    f"dtype: {e}")
    assert not problems, "; ".join(problems)


CHECKS: dict[str, Callable[..., None]] = {"xfail_ids_known": xfail_ids_known,
                                          "dtypes_declared": dtypes_declared}


@pytest.mark.parametrize("check", list(CHECKS))
def test_declarations(conformance: Any, check: str, request: Any) -> None:
    """The declaration checks (``declarations[...]``)."""
    CHECKS[check](conformance, request)
