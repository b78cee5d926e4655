"""No tracked text file keeps a merge's conflict markers (docs/differences.md once did)."""

from __future__ import annotations

import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
MARKER = re.compile(r"^(<{7} |>{7} |={7}$)", re.MULTILINE)


def test_no_tracked_file_has_conflict_markers():
    listed = subprocess.run(["git", "ls-files", "*.md", "*.py", "*.toml", "Makefile"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    assert listed, "git ls-files listed nothing"
    marked = [name for name in listed
              if MARKER.search((ROOT / name).read_text(encoding="utf-8", errors="replace"))]
    assert marked == []
