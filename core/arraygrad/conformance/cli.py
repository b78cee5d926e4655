"""``arraygrad-conformance BACKEND [--strict] [pytest args]``: run the suite on one backend.

Equivalent to ``pytest --pyargs arraygrad.conformance --arraygrad-backend=BACKEND``,
except that a backend that cannot run here (e.g. ``cupy`` without a device)
prints one line saying why and exits 0, or 1 with ``--strict``. A name no installed backend
has (a mistyped one) is an error: exit 2, listing the installed backends.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["main"]

USAGE = "usage: arraygrad-conformance BACKEND [--strict] [pytest args...]"


def main(argv: Any = None) -> int:
    """Run the suite; returns pytest's exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0].startswith("-"):
        print(USAGE, file=sys.stderr)
        return 2
    name, rest = args[0], args[1:]
    strict = "--strict" in rest
    rest = [a for a in rest if a != "--strict"]
    from arraygrad.backends import registry

    known = {info.name: info for info in registry.available()}
    info = known.get(name)
    if info is None:  # a typo must not pass as a skipped run
        print(f"arraygrad-conformance: no backend named {name!r}; installed backends: "
              f"{', '.join(sorted(known)) or 'none'}", file=sys.stderr)
        return 2
    if not info.available:
        print(f"arraygrad-conformance: skipped {name}: {info.reason}")
        return 1 if strict else 0
    import pytest

    return int(pytest.main(["--pyargs", "arraygrad.conformance",
                            f"--arraygrad-backend={name}", *rest]))


if __name__ == "__main__":
    sys.exit(main())
