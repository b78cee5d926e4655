"""The census: for each public name of PyTorch's surface, whether arraygrad has it, lists it as
absent with a reason (``core/arraygrad/absences.toml``), or misses it; and for each callable both
have, which of PyTorch's keywords arraygrad refuses.

Run it as a script for the per-module figures::

    python tools/census/census.py            # names: present / listed / missing per module
    python tools/census/census.py --keywords # and keywords (calls every callable; a subprocess
                                             # is advised: calls may change global state)
    python tools/census/census.py --json out.json --keywords
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import inspect
import signal
import sys
import types
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import surface  # noqa: E402

from arraygrad import absences  # noqa: E402


def arraygrad_module(torch_name: str) -> Any:
    """arraygrad's counterpart of torch module ``torch_name``; None when it has none."""
    if torch_name in surface.CLASSES:
        owner, _, attr = torch_name.rpartition(".")
        return getattr(arraygrad_module(owner), attr, None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module("arraygrad" + torch_name[len("torch"):])
    except ImportError:
        return None


def _has(module: Any, name: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            getattr(module, name)
    except AttributeError:
        return False
    except Exception:  # noqa: BLE001 - a name that exists but fails to build is present
        return True
    return True


@dataclasses.dataclass
class ModuleCensus:
    """What one torch module's names come to in arraygrad."""

    module: str
    present: list[str]
    listed: list[str]
    missing: list[str]
    stale: list[str]  # listed as absent, but arraygrad has it (or PyTorch does not)
    keywords_checked: int = 0
    keywords_missing: list[str] = dataclasses.field(default_factory=list)  # "name(kw=)"
    keywords_listed: list[str] = dataclasses.field(default_factory=list)


def _whole_module_reason(torch_name: str) -> str | None:
    """The reason a whole torch module is absent, when its parent's table lists it."""
    parent, _, leaf = torch_name.rpartition(".")
    while parent:
        reason = absences.reason(parent, leaf)
        if reason is not None:
            return reason
        parent, _, more = parent.rpartition(".")
        leaf = f"{more}.{leaf}"
    return None


def names_census(torch_name: str) -> ModuleCensus:
    """Present / listed / missing for the public names of one torch module."""
    names = surface.public_names(torch_name)
    ours = arraygrad_module(torch_name)
    listed_here = absences.entries(torch_name)
    whole = _whole_module_reason(torch_name) if ours is None else None
    present, listed, missing = [], [], []
    for name in names:
        if ours is not None and _has(ours, name):
            present.append(name)
        elif whole is not None or name in listed_here:
            listed.append(name)
        else:
            missing.append(name)
    stale = sorted(n for n in listed_here if "(" not in n and (n in present or n not in names))
    return ModuleCensus(torch_name, present, listed, missing, stale)


def _bound(owner: Any, module_name: str, name: str) -> Any:
    """The callable to call: a Tensor method bound to a fresh small tensor, else the object."""
    if module_name == "torch.Tensor":
        return getattr(owner.ones(2, 2) if hasattr(owner, "ones") else owner, name)
    return None


# Callables whose probe call would start processes (a probe ``fn=`` runs in each child): their
# keywords are read from arraygrad's own signature, which no wrapper hides (plain functions).
READ_FROM_SIGNATURE = {("torch.multiprocessing", "spawn"), ("torch.multiprocessing", "start_processes")}


def _signature_takes(target: Any, keyword: str) -> bool:
    """Whether ``target``'s signature names ``keyword`` or takes ``**kwargs``."""
    parameters = inspect.signature(target).parameters.values()
    return any(p.name == keyword and p.kind is not p.POSITIONAL_ONLY or p.kind is p.VAR_KEYWORD
               for p in parameters)


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout()


def keywords_census(result: ModuleCensus) -> None:
    """Fill in which of PyTorch's keywords arraygrad refuses, for the callables both have."""
    import torch
    import arraygrad
    ours = arraygrad_module(result.module)
    if ours is None:
        return
    listed_here = absences.entries(result.module)
    present = set(result.present)
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for name, theirs in surface.iter_callables(result.module):
            if name not in present:
                continue
            mine = getattr(ours, name)
            if not callable(mine):
                continue
            tensor_method = result.module == "torch.Tensor"
            bound_theirs = getattr(torch.ones(2, 2), name) if tensor_method else None
            try:
                signal.alarm(5)
                keywords = surface.torch_keywords(theirs, bound_theirs)
            except _Timeout:
                keywords = []
            finally:
                signal.alarm(0)
            if mine is theirs:
                # the very object PyTorch exports (the standard library's Pool, Queue, ...):
                # its keywords are PyTorch's by identity, and calling it would start processes
                result.keywords_checked += len(keywords)
                continue
            for keyword in keywords:
                result.keywords_checked += 1
                target = getattr(arraygrad.ones(2, 2), name) if tensor_method else mine
                if (result.module, name) in READ_FROM_SIGNATURE:
                    if not _signature_takes(target, keyword):
                        key = f"{name}({keyword}=)"
                        (result.keywords_listed if key in listed_here
                         else result.keywords_missing).append(key)
                    continue
                try:
                    signal.alarm(5)
                    error = surface.call_with_keyword(target, keyword)
                except _Timeout:
                    error = None
                finally:
                    signal.alarm(0)
                if surface.refuses_keyword(error, keyword):
                    key = f"{name}({keyword}=)"
                    (result.keywords_listed if key in listed_here
                     else result.keywords_missing).append(key)
    finally:
        signal.signal(signal.SIGALRM, old)


def take_census(modules: tuple[str, ...] = surface.MODULES, keywords: bool = False) -> list[ModuleCensus]:
    """The census of every module (names; keywords too when asked)."""
    results = []
    for module in modules:
        result = names_census(module)
        if keywords:
            keywords_census(result)
        results.append(result)
    return results


def format_table(results: list[ModuleCensus]) -> str:
    """A plain-text table: module, names, present, listed, missing (and keywords when taken)."""
    rows = [f"{'module':34s} {'names':>6s} {'present':>8s} {'listed':>7s} {'missing':>8s}"
            f" {'kw checked':>10s} {'kw listed':>9s} {'kw missing':>10s}"]
    total = [0] * 6
    for r in results:
        figures = [len(r.present) + len(r.listed) + len(r.missing), len(r.present), len(r.listed),
                   len(r.missing), r.keywords_checked, len(r.keywords_listed)]
        total = [a + b for a, b in zip(total, figures)]
        rows.append(f"{r.module:34s} {figures[0]:6d} {figures[1]:8d} {figures[2]:7d} {figures[3]:8d}"
                    f" {figures[4]:10d} {figures[5]:9d} {len(r.keywords_missing):10d}")
    missing_kw = sum(len(r.keywords_missing) for r in results)
    rows.append(f"{'total':34s} {total[0]:6d} {total[1]:8d} {total[2]:7d} {total[3]:8d}"
                f" {total[4]:10d} {total[5]:9d} {missing_kw:10d}")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keywords", action="store_true", help="also probe keyword arguments")
    parser.add_argument("--json", help="write the full census to this file")
    parser.add_argument("--missing", action="store_true", help="print every missing name")
    parser.add_argument("modules", nargs="*", help="only these torch modules")
    args = parser.parse_args(argv)
    modules = tuple(args.modules) or surface.MODULES
    results = take_census(modules, keywords=args.keywords)
    print(format_table(results))
    if args.missing:
        for r in results:
            for name in r.missing:
                print(f"MISSING {r.module}.{name}")
            for key in r.keywords_missing:
                print(f"MISSING-KW {r.module}.{key}")
            for name in r.stale:
                print(f"STALE {r.module}.{name}")
    if args.json:
        Path(args.json).write_text(json.dumps([dataclasses.asdict(r) for r in results], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
