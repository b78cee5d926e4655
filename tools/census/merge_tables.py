"""Merge two versions of core/arraygrad/absences.toml section by section, against their common
ancestor (a textual merge mixes up sections when two branches add entries at the ends of
neighbouring ones).

    git show $(git merge-base HEAD other):core/arraygrad/absences.toml > base.toml
    git show HEAD:core/arraygrad/absences.toml > ours.toml
    git show other:core/arraygrad/absences.toml > theirs.toml
    python tools/census/merge_tables.py base.toml ours.toml theirs.toml > merged.toml

An entry (or shared reason) either side removed since the ancestor is removed (the name was
built); one either side added or changed is kept, the changed side winning; both sides changing
one entry differently keeps ours, reported on stderr (read them). The result is in the canonical
order ``tidy_table`` writes.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tidy_table  # noqa: E402


def _entries(text: str) -> tuple[str, dict[tuple[str, str], str], list[str]]:
    """``(header, {(section, key): value}, sections in order)`` of a table's text."""
    tidied = tidy_table.tidy(text)
    header, _, body = tidied.partition("\n[")
    entries: dict[tuple[str, str], str] = {}
    order: list[str] = []
    section = ""
    for line in ("[" + body).splitlines():
        if line.startswith("["):
            section = line.split("]")[0] + "]"
            order.append(section)
        elif line.strip():
            key, value = tidy_table.split_entry(line)
            entries[(section, key)] = value
    return header, entries, order


def merge(base: str, ours: str, theirs: str) -> str:
    """The three-way merge of the tables' entries."""
    header, b, _ = _entries(base)
    _, o, o_order = _entries(ours)
    _, t, t_order = _entries(theirs)
    merged: dict[tuple[str, str], str] = {}
    for key in dict.fromkeys([*o, *t]):
        in_b, in_o, in_t = key in b, key in o, key in t
        if in_b and (not in_o or not in_t):
            continue  # removed on one side
        if in_o and in_t and o[key] != t[key]:
            if in_b and o[key] == b[key]:
                merged[key] = t[key]
            elif in_b and t[key] == b[key]:
                merged[key] = o[key]
            else:
                print(f"absences.toml: {key} changed on both sides: {o[key]} / {t[key]} "
                      "(kept ours)", file=sys.stderr)
                merged[key] = o[key]
        else:
            merged[key] = o[key] if in_o else t[key]
    lines = [header]
    for section in dict.fromkeys([*o_order, *t_order]):
        lines.append(section)
        lines.extend(f"{k} = {v}" for (s, k), v in merged.items() if s == section)
        lines.append("")
    return tidy_table.tidy("\n".join(lines))


if __name__ == "__main__":
    base, ours, theirs = (Path(p).read_text(encoding="utf-8") for p in sys.argv[1:4])
    sys.stdout.write(merge(base, ours, theirs))
