"""The conformance report: outcomes by check id, rendered as a table and as JSON.

Rows are ops, columns are check kinds; a cell sums up every case of that op:
FAIL if any case failed, else xfail if any was an expected failure, else pass
if any passed, else skip ("-" where the kind does not apply). Checks that are
not about one op (engine, random, ...) are listed under the table, as are the
reasons of every non-passing check.
"""

from __future__ import annotations

from typing import Any

import json
from dataclasses import dataclass, field

from arraygrad.conformance.case import CHECK_KINDS

__all__ = ["Outcome", "Report"]

_RANK = {"FAIL": 3, "xfail": 2, "pass": 1, "skip": 0}


@dataclass
class Outcome:
    """One check's result: ``status`` is pass, FAIL, xfail or skip."""

    check_id: str
    row: str
    kind: str | None
    status: str
    reason: str = ""


@dataclass
class Report:
    """Outcomes of one conformance session on one backend."""

    backend: str
    outcomes: dict[Any, Any] = field(default_factory=dict)

    def add(self, outcome: Outcome) -> None:
        """Record an outcome; a later phase's failure (e.g. teardown) overrides a pass."""
        old = self.outcomes.get(outcome.check_id)
        if old is None or _RANK[outcome.status] >= _RANK[old.status]:
            self.outcomes[outcome.check_id] = outcome

    def cells(self) -> dict[Any, Any]:
        """``{op: {kind: status}}`` for the per-op checks."""
        table: dict[Any, Any] = {}
        for o in self.outcomes.values():
            if o.kind is None:
                continue
            row = table.setdefault(o.row, {})
            old = row.get(o.kind)
            if old is None or _RANK[o.status] > _RANK[old]:
                row[o.kind] = o.status
        return table

    def counts(self) -> dict[Any, Any]:
        """How many checks ended in each status."""
        counts = {s: 0 for s in _RANK}
        for o in self.outcomes.values():
            counts[o.status] += 1
        return counts

    def render(self) -> str:
        """The table, the suite-wide checks and the reasons, as text."""
        cells = self.cells()
        head = ["op"] + [k.replace("_", " ") for k in CHECK_KINDS]
        rows = [[op] + [cells[op].get(k, "-") for k in CHECK_KINDS] for op in cells]
        widths = [max(len(r[i]) for r in [head] + rows) for i in range(len(head))]
        line = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()  # noqa: E731
        out = [f"arraygrad conformance: backend {self.backend!r}", line(head),
               line(["-" * w for w in widths])]
        out += [line(r) for r in rows]
        other = [o for o in self.outcomes.values() if o.kind is None]
        if other:
            out.append("")
            out.append("suite checks:")
            out += [f"  {o.status:<5}  {o.check_id}" for o in other]
        groups: dict[Any, Any] = {}  # one line per distinct (status, reason), naming its checks
        for o in self.outcomes.values():
            if o.status != "pass":
                groups.setdefault((o.status, o.reason), []).append(o.check_id)
        if groups:
            out.append("")
            out.append("reasons:")
            for (status, reason), ids in groups.items():
                shown = ", ".join(ids[:3]) + (f" and {len(ids) - 3} more" if len(ids) > 3 else "")
                out.append(f"  {status:<5}  {shown}: {reason}")
        c = self.counts()
        out.append("")
        out.append(f"{len(self.outcomes)} checks: {c['pass']} pass, {c['FAIL']} FAIL, "
                   f"{c['xfail']} xfail, {c['skip']} skip")
        return "\n".join(out)

    def to_json(self) -> str:
        """The same content as ``render``, as JSON."""
        return json.dumps({
            "backend": self.backend,
            "columns": list(CHECK_KINDS),
            "table": self.cells(),
            "checks": {o.check_id: {"row": o.row, "kind": o.kind, "status": o.status,
                                    "reason": o.reason} for o in self.outcomes.values()},
            "counts": self.counts(),
        }, indent=2)
