"""What arraygrad deliberately does not have of PyTorch's public surface, and why.

The table (``absences.toml`` beside this file) is the census's list: one section per torch
module (``["torch.nn.functional"]``), each entry a public name, or a keyword as
``"name(keyword=)"``, mapped to its reason. A reason may name a shared one as ``"@area.key"``
from the ``[reasons.area]`` sub-tables. ``docs/differences.md`` is generated from it
(``tools/census/docs.py``), and naming an absent attribute raises an AttributeError that gives
the reason.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

_TABLE = Path(__file__).with_name("absences.toml")


@functools.cache
def table() -> dict[str, dict[str, str]]:
    """Every section of the table, shared reasons resolved: ``{torch module: {name: reason}}``."""
    raw = tomllib.loads(_TABLE.read_text(encoding="utf-8"))
    shared = {f"{area}.{key}": text for area, keys in raw.pop("reasons", {}).items()
              for key, text in keys.items()}
    resolved: dict[str, dict[str, str]] = {}
    for module, entries in raw.items():
        section = resolved.setdefault(module, {})
        for name, reason in entries.items():
            if reason.startswith("@"):
                if reason[1:] not in shared:
                    raise KeyError(f"absences.toml: [{module}] {name} names an unknown reason {reason}")
                reason = shared[reason[1:]]
            section[name] = reason
    return resolved


def entries(module: str) -> dict[str, str]:
    """The absent names (and keywords) of torch module ``module``, with their reasons."""
    return table().get(module, {})


def reason(module: str, name: str) -> str | None:
    """Why torch module ``module``'s ``name`` is absent from arraygrad; None if not listed."""
    return table().get(module, {}).get(name)


def missing_attribute(module: str, name: str, ours: str) -> AttributeError:
    """The AttributeError for ``ours.name``: with the table's reason when ``name`` is listed."""
    why = reason(module, name)
    if why is None:
        return AttributeError(f"module {ours!r} has no attribute {name!r}")
    return AttributeError(f"module {ours!r} has no attribute {name!r}: {why} "
                          f"(docs/differences.md)")
