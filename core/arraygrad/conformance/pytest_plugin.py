"""The conformance suite's pytest plugin (entry point ``pytest11``).

Inert unless ``--arraygrad-backend=NAME`` is given. Then the test modules of
``arraygrad.conformance`` run against that backend: every check gets its
stable id (``forward[mul/broadcast]``), declared expected failures become
strict xfails, and the session ends with the report table (and, when asked,
``--arraygrad-report-json``).

    pytest --pyargs arraygrad.conformance --arraygrad-backend=strict
"""

from __future__ import annotations

from typing import Any

import pytest

from arraygrad.conformance.case import CHECK_KINDS, check_id
from arraygrad.conformance.report import Outcome, Report


_CONTEXT: pytest.StashKey[Any] = pytest.StashKey()   # Context, or None when the backend is unusable
_SKIP: pytest.StashKey[Any] = pytest.StashKey()      # why every check skips (backend unusable), or None
_REPORT: pytest.StashKey[Any] = pytest.StashKey()
_META: pytest.StashKey[Any] = pytest.StashKey()      # nodeid -> (check_id, row, kind)
_ALL_IDS: pytest.StashKey[Any] = pytest.StashKey()   # every collected check id, before -k deselects any

_KIND_OF_TEST = {f"test_{check_id(k, 'x').split('[')[0]}": k for k in CHECK_KINDS}


def pytest_addoption(parser: Any) -> None:
    """``--arraygrad-backend`` switches the plugin on; ``--arraygrad-report-json`` saves JSON."""
    group = parser.getgroup("arraygrad", "arraygrad backend conformance")
    group.addoption("--arraygrad-backend", default=None, metavar="NAME",
                    help="run arraygrad's conformance suite against backend NAME")
    group.addoption("--arraygrad-sample", default=None, type=int, metavar="SEED",
                    help="run a reduced suite: one check per op (per table row, a forward "
                    "check where the op has one), drawn with SEED (CI's form: every op at "
                    "least once)")
    group.addoption("--arraygrad-report-json", nargs="?", const="", default=None,
                    metavar="PATH", help="also write the report as JSON to PATH "
                    "(default: arraygrad-conformance-<backend>.json in the current directory)")


def active(config: Any) -> bool:
    """Whether this session checks a backend."""
    return config.getoption("arraygrad_backend", None) is not None


def context(config: Any) -> Any:
    """The ``Context`` of the backend under test (None when inert or unusable)."""
    return config.stash.get(_CONTEXT, None)


def skip_reason(config: Any) -> str | None:
    """Why checks cannot run in this session, or None."""
    if not active(config):
        return "conformance suite is inert: pass --arraygrad-backend = NAME"
    return config.stash.get(_SKIP, None)


def pytest_configure(config: Any) -> None:
    """Resolve the backend and gather declarations and cases once per session."""
    if not active(config):
        return
    from arraygrad.conformance.context import make_context
    from arraygrad.conformance.declarations import collect

    name = config.getoption("arraygrad_backend")
    config.stash[_REPORT] = Report(name)
    config.stash[_META] = {}
    try:
        config.stash[_CONTEXT] = make_context(name, collect())
        config.stash[_SKIP] = None
    except RuntimeError as exc:  # missing or unavailable backend: every check skips
        config.stash[_CONTEXT] = None
        config.stash[_SKIP] = str(exc)


@pytest.fixture
def conformance(request: Any) -> Any:
    """The ``Context`` of the backend under test; skips the check when there is none."""
    reason = skip_reason(request.config)
    if reason:
        pytest.skip(reason)
    return context(request.config)


def _meta(item: Any) -> tuple[Any, ...] | None:
    """``(check_id, row, kind)`` of a conformance test item, or None for other tests."""
    module = getattr(item, "module", None)
    if module is None or not module.__name__.startswith("arraygrad.conformance."):
        return None
    callspec = getattr(item, "callspec", None)
    case = callspec.params.get("case") if callspec else None
    kind = _KIND_OF_TEST.get(item.originalname)
    cid = item.name[len("test_"):]
    if case is not None and kind is not None:
        return cid, case.op, kind
    return cid, cid.split("[")[0], None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: Any, items: Any) -> None:
    """Give every check its id and mark declared expected failures (strict), before ``-k``."""
    if not active(config):
        return
    ctx = context(config)
    meta = config.stash[_META]
    for item in items:
        m = _meta(item)
        if m is None:
            continue
        meta[item.nodeid] = m
        reason = ctx.xfail.get(m[0]) if ctx else None
        if reason:
            item.add_marker(pytest.mark.xfail(reason=reason, strict=True))
    config.stash[_ALL_IDS] = {m[0] for m in meta.values()}
    seed = config.getoption("arraygrad_sample", None)
    if seed is not None:
        keep = sample_items([i for i in items if i.nodeid in meta],
                            lambda i: meta[i.nodeid][1], lambda i: meta[i.nodeid][2], seed)
        dropped = [i for i in items if i.nodeid in meta and i.nodeid not in keep]
        items[:] = [i for i in items if i.nodeid not in meta or i.nodeid in keep]
        config.hook.pytest_deselected(items=dropped)


def sample_items(items: Any, row_of: Any, kind_of: Any, seed: int) -> set[str]:
    """The node ids of one item per row (``row_of(item)``), drawn with ``seed`` among the row's
    ``forward`` checks where it has some (the cheapest kind: no gradients, one reference run),
    else among all its checks. The same seed and items give the same sample."""
    import random

    by_row: dict[Any, list[Any]] = {}
    for item in items:
        by_row.setdefault(row_of(item), []).append(item)
    rng = random.Random(seed)
    keep = set()
    for _, row in sorted(by_row.items(), key=lambda kv: str(kv[0])):
        forward = [i.nodeid for i in row if kind_of(i) == "forward"]
        keep.add(rng.choice(sorted(forward or [i.nodeid for i in row])))
    return keep


def all_check_ids(config: Any) -> set[Any]:
    """Every check id collected this session (ignoring ``-k``)."""
    return config.stash.get(_ALL_IDS, set())


def pytest_runtest_logreport(report: Any) -> None:
    """Record each check's outcome for the table."""
    config = _config[0]
    if config is None or not active(config):
        return
    m = config.stash[_META].get(report.nodeid)
    if m is None:
        return
    status, reason = _status(report)
    if status is not None:
        config.stash[_REPORT].add(Outcome(m[0], m[1], m[2], status, reason))


def _status(report: Any) -> tuple[Any, ...]:
    if hasattr(report, "wasxfail"):
        if report.skipped:
            return "xfail", report.wasxfail
        if report.failed:  # strict: an expected failure that passed is an error
            return "FAIL", f"expected failure passed (XPASS strict): {report.wasxfail}"
    if report.failed:
        msg = getattr(report.longrepr, "reprcrash", None)
        return "FAIL", (msg.message if msg else str(report.longrepr)).splitlines()[0][:300]
    if report.skipped:
        longrepr = report.longrepr
        text = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        return "skip", text.removeprefix("Skipped: ")
    if report.when == "call":
        return "pass", ""
    return None, ""


_config = [None]


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: Any) -> None:
    """Remember the config for the report hook (which receives no config)."""
    _config[0] = session.config


def pytest_terminal_summary(terminalreporter: Any, exitstatus: Any, config: Any) -> None:
    """Print the table; write the JSON file when asked."""
    if not active(config):
        return
    report = config.stash[_REPORT]
    tr = terminalreporter
    tr.section(f"arraygrad conformance: {report.backend}")
    reason = skip_reason(config)
    if reason:
        tr.write_line(f"skipped: {reason}")
    tr.write_line(report.render())
    path = config.getoption("arraygrad_report_json")
    if path is not None:
        path = path or f"arraygrad-conformance-{report.backend}.json"
        with open(path, "w", encoding="utf-8") as f:
            f.write(report.to_json())
        tr.write_line(f"report written to {path}")
