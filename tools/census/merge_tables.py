"""Merge versions of core/arraygrad/absences.toml section by section (a textual merge mixes up
sections when two branches add entries at the ends of neighbouring ones).

    python tools/census/merge_tables.py OURS THEIRS [MORE...] > merged.toml

Each argument is a file (``git show branch:core/arraygrad/absences.toml > f``). The result is
the union of every section's entries, in the canonical order ``tidy_table`` writes; the same
key with two different reasons keeps the first version's (reported on stderr: read them).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tidy_table  # noqa: E402


def merge(texts: list[str]) -> str:
    """One table holding every version's entries (the first version's header comment)."""
    tidied = [tidy_table.tidy(t) for t in texts]
    header, _, _ = tidied[0].partition("\n[")
    body = []
    for text in tidied:
        _, _, sections = text.partition("\n[")
        body.append("[" + sections)
    return tidy_table.tidy(header + "\n" + "\n".join(body), prefer_first=True)


if __name__ == "__main__":
    sys.stdout.write(merge([Path(p).read_text(encoding="utf-8") for p in sys.argv[1:]]))
