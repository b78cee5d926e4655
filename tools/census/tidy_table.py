"""Rewrite core/arraygrad/absences.toml in its canonical order, merging what merges split.

    python tools/census/tidy_table.py

The header comment first, then the ``[reasons.*]`` sub-tables in order of first appearance,
then one section per census module in the census's order (a module without entries keeps an
empty section), each section's entries sorted by name. A section or key written twice (two
branches adding the same entry) is kept once; two different reasons for one key are an error.
Comments inside sections are dropped.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import surface  # noqa: E402

TABLE = Path(__file__).resolve().parents[2] / "core" / "arraygrad" / "absences.toml"
_HEADER = re.compile(r"^\[(.+?)\]\s*(#.*)?$")


def split_entry(line: str) -> tuple[str, str]:
    """``(key, value)`` of an entry line; a quoted key may hold "=" itself: "name(keyword=)"."""
    stripped = line.strip()
    if stripped.startswith('"'):
        end = stripped.index('"', 1) + 1
        return stripped[:end], stripped[end:].strip().removeprefix("=").strip()
    key, _, value = stripped.partition("=")
    return key.strip(), value.strip()


def tidy(text: str, prefer_first: bool = False) -> str:
    """The canonical form of the table's text (``prefer_first``: a key given two reasons keeps
    the first, reported on stderr, instead of stopping)."""
    header: list[str] = []
    sections: dict[str, dict[str, str]] = {}
    comments: dict[str, str] = {}
    current: str | None = None
    for line in text.splitlines():
        match = _HEADER.match(line)
        if match:
            current = match.group(1).strip()
            sections.setdefault(current, {})
            if match.group(2):
                comments[current] = match.group(2)
            continue
        if current is None:
            header.append(line)
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, value = split_entry(line)
        old = sections[current].get(key)
        if old is not None and old != value:
            message = f"absences.toml: [{current}] {key} has two reasons: {old} / {value}"
            if not prefer_first:
                raise SystemExit(message)
            print(message + " (kept the first)", file=sys.stderr)
            continue
        sections[current][key] = value
    order = [s for s in sections if s == "reasons" or s.startswith("reasons.")]
    modules = [m for m in surface.MODULES]
    unknown = [s for s in sections if s not in order and s.strip('"') not in modules]
    if unknown:
        raise SystemExit(f"absences.toml: sections that are not census modules: {unknown}")
    out = [line for line in header]
    while out and not out[-1].strip():
        out.pop()
    out.append("")
    for name in order + [f'"{m}"' for m in modules]:
        entries = sections.get(name, {})
        out.append(f"[{name}]" + (f"  {comments[name]}" if name in comments else ""))
        keys = entries if name.startswith("reasons") else sorted(entries, key=lambda k: k.strip('"'))
        out.extend(f"{key} = {entries[key]}" for key in keys)
        out.append("")
    return "\n".join(out)


def main() -> int:
    TABLE.write_text(tidy(TABLE.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
