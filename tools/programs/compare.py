"""Run a corpus program on PyTorch and, unchanged, on arraygrad, and compare what they print.

    python tools/programs/compare.py NAME [NAME ...]      # recipes by name (recipes.py)
    python tools/programs/compare.py --all                # every recipe
    python tools/programs/compare.py --list               # the recipes, one line each
    python tools/programs/compare.py NAME --keep /tmp/x   # keep the scratch folders
    python tools/programs/compare.py --all --json out.json --report out.md

For each recipe: a scratch folder gets the program and the sibling files it imports (read out
of the program's repository mirror, ``/work/.mirror/<owner>+<repo>/repo``, at the corpus
manifest's commit; a notebook from the corpus, ``<stem>_ipynb.py``, where the corpus tool
wrote its code cells), the synthetic data the recipe writes where the program reads it, and
the stand-in packages it names (``standins/<name>/``, put first on ``PYTHONPATH``: synthetic
torchvision datasets, a CartPole, where the real ones would download or are absent). Then the program runs twice in fresh
processes, one thread each, with a fixed hash seed, a timeout and the recipe's arguments:

* on PyTorch, through ``shared_stream.py`` when the recipe draws random numbers (PyTorch then
  draws arraygrad's numbers: see that file), else through ``runner.py``;
* on arraygrad, through ``as_torch.py``.

The printed numbers are compared in order: every one (``exact`` recipes: each pair equal to a
relative 1e-5, or the recipe's ``rtol``, the largest difference reported; a pair one unit
apart in the last printed place counts as equal, since a value a hair either side of a rounding
boundary prints that way), or only the final
metric the recipe's ``final`` regex picks out of each output (``final`` recipes: within the
recipe's stated ``tolerance``; both must reach its ``learned`` bound). An ``exact`` recipe with
``drift_after`` (a regex) compares every number printed before the first line it matches
(``exact_first``: the first so many numbers), then the final metric: for training that is chaotic past some point, where the round-off of
two summation orders grows until the runs part (the recipe says where and why). Text matching the
recipe's ``ignore`` regex (timings, progress bars) is cut out of every line of both.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from recipes import RECIPES, Recipe  # noqa: E402

CORPUS = Path(os.environ.get("ARRAYGRAD_CORPUS", "/work/corpus"))
MIRRORS = Path(os.environ.get("ARRAYGRAD_MIRRORS", "/work/.mirror"))
MANIFEST = ROOT / "tools" / "corpus" / "manifest.tsv"
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w])")


@dataclass
class Run:
    """One run of a program: its output, exit status and time."""
    framework: str
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def failure(self) -> str:
        """The last line of the traceback (or the timeout)."""
        if self.timed_out:
            return f"timed out after {self.seconds:.0f} s"
        lines = [ln for ln in self.stderr.strip().splitlines() if ln.strip()]
        return lines[-1][:300] if lines else f"exit status {self.returncode}"


@dataclass
class Outcome:
    """What ``compare`` found for one recipe."""
    name: str
    command: str
    torch: Run
    arraygrad: Run
    agree: bool = False
    detail: str = ""
    compared: int = 0
    max_rel: float = 0.0
    finals: tuple[float | None, float | None] = (None, None)
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "command": self.command, "agree": self.agree,
                "detail": self.detail, "compared": self.compared, "max_rel": self.max_rel,
                "finals": list(self.finals),
                "torch": {"ok": self.torch.ok, "seconds": round(self.torch.seconds, 1),
                          "failure": None if self.torch.ok else self.torch.failure()},
                "arraygrad": {"ok": self.arraygrad.ok,
                              "seconds": round(self.arraygrad.seconds, 1),
                              "failure": None if self.arraygrad.ok
                              else self.arraygrad.failure()}}


# -- the scratch folder ------------------------------------------------------------------------

def _manifest_commit(repo: str) -> str:
    """The commit the corpus manifest pins ``repo`` (``owner+name``) to, else HEAD."""
    owner_name = repo.replace("+", "/", 1)
    for line in MANIFEST.read_text().splitlines():
        parts = line.split("\t")
        if len(parts) == 3 and parts[0] == owner_name:
            return parts[1]
    return "HEAD"


def _mirror_file(repo: str, path: str) -> bytes:
    git_dir = MIRRORS / repo / "repo"  # a bare repository, or a checkout with its .git
    if (git_dir / ".git").exists():
        git_dir = git_dir / ".git"
    commit = _manifest_commit(repo)
    return subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"],
                          check=True, capture_output=True).stdout


def _source(repo: str, path: str) -> bytes:
    """A file of the program's repository: the corpus copy (notebooks as converted code),
    else the mirror's blob at the manifest's commit."""
    corpus_copy = CORPUS / repo / path
    if corpus_copy.is_file():
        return corpus_copy.read_bytes()
    return _mirror_file(repo, path)


def prepare(recipe: Recipe, scratch: Path) -> Path:
    """Lay out ``recipe``'s program, files, edits, data and stand-ins under ``scratch``;
    returns the program's path there."""
    for rel in [recipe.program, *recipe.files]:
        target = scratch / recipe.layout(rel)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(_source(recipe.repo, rel))
    for edit in recipe.edits:
        target = scratch / recipe.layout(edit.path)
        text = target.read_text()
        if text.count(edit.old) != 1:
            raise RuntimeError(f"{recipe.name}: the edit of {edit.path} no longer applies "
                               f"({text.count(edit.old)} matches of {edit.old!r})")
        target.write_text(text.replace(edit.old, edit.new))
    for name in recipe.standins:
        shutil.copytree(HERE / "standins" / name, scratch / "_standins" / name)
    cwd = scratch / recipe.cwd
    cwd.mkdir(parents=True, exist_ok=True)
    if recipe.data is not None:
        recipe.data(cwd)
    return scratch / recipe.layout(recipe.program)


# -- running -------------------------------------------------------------------------------

def _env(recipe: Recipe, scratch: Path) -> dict[str, str]:
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[var] = "1"
    env.update(PYTHONHASHSEED="0", MPLBACKEND="Agg", CUDA_VISIBLE_DEVICES="",
               PYTHONDONTWRITEBYTECODE="1", TQDM_DISABLE="1")
    paths = [str(scratch / "_standins" / name) for name in recipe.standins]
    paths += [str(scratch / p) for p in recipe.pythonpath]
    env.update(recipe.env)
    env["PYTHONPATH"] = os.pathsep.join(
        paths + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def run_once(recipe: Recipe, program: Path, framework: str, scratch: Path,
             timeout: float) -> Run:
    """Run ``program`` on ``framework`` ("torch" or "arraygrad") in a fresh process."""
    if framework == "arraygrad":
        tool = HERE / "as_torch.py"
    else:
        tool = HERE / ("shared_stream.py" if recipe.shared_stream else "runner.py")
    options = [] if recipe.seed is None else ["--seed", str(recipe.seed)]
    if recipe.default_dtype is not None:
        options += ["--default-dtype", recipe.default_dtype]
    cmd = [sys.executable, str(tool), *options, str(program), *recipe.args]
    cwd = scratch / recipe.cwd
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, cwd=cwd, env=_env(recipe, scratch), capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
        return Run(framework, -1, out, err, time.perf_counter() - start, timed_out=True)
    return Run(framework, done.returncode, done.stdout, done.stderr,
               time.perf_counter() - start)


# -- comparing -----------------------------------------------------------------------------

def numbers(recipe: Recipe, text: str) -> list[float]:
    """The numbers printed, in order, from the lines the recipe compares."""
    return [value for value, _ in printed(recipe, text)]


def printed(recipe: Recipe, text: str) -> list[tuple[float, float]]:
    """``(value, unit in the last printed place)`` of each number printed (0.0 for an
    exponent form or an integer: those are compared by value alone)."""
    out = []
    for line in text.splitlines():
        if recipe.ignore:
            line = re.sub(recipe.ignore, "", line)
        for token in NUMBER.findall(line):
            mantissa = re.split("[eE]", token)[0]
            decimals = len(mantissa.split(".")[1]) if "." in mantissa else None
            unit = 10.0 ** -decimals if decimals and not re.search("[eE]", token) else 0.0
            out.append((float(token), unit))
    return out


def final_metric(recipe: Recipe, text: str) -> float | None:
    """The last match of the recipe's ``final`` regex (its first group), or None."""
    found = re.findall(recipe.final or "", text, flags=re.M)
    if not found:
        return None
    last = found[-1]
    return float(last[0] if isinstance(last, tuple) else last)


def judge(recipe: Recipe, outcome: Outcome) -> None:
    """Fill in ``outcome``'s agreement from the two runs' outputs."""
    torch_run, ag_run = outcome.torch, outcome.arraygrad
    if not torch_run.ok:
        outcome.detail = f"fails on torch: {torch_run.failure()}"
        return
    if not ag_run.ok:
        outcome.detail = f"fails on arraygrad: {ag_run.failure()}"
        return
    if recipe.compare == "exact":
        a, b = numbers(recipe, _before_drift(recipe, torch_run.stdout)), \
            numbers(recipe, _before_drift(recipe, ag_run.stdout))
        if recipe.exact_first is not None:
            a, b = a[:recipe.exact_first], b[:recipe.exact_first]
        outcome.compared = min(len(a), len(b))
        if len(a) != len(b):
            outcome.detail = f"printed {len(a)} numbers on torch, {len(b)} on arraygrad"
            return
        units = [min(u, v) for (_, u), (_, v) in zip(
            printed(recipe, _before_drift(recipe, torch_run.stdout)),
            printed(recipe, _before_drift(recipe, ag_run.stdout)))]
        worst, where = 0.0, -1
        for i, (x, y) in enumerate(zip(a, b)):
            if abs(x - y) <= units[i] * 1.000001:
                continue  # one unit in the last printed place: a rounding boundary, not a difference
            rel = abs(x - y) / max(abs(x), abs(y), recipe.atol / recipe.rtol)
            if rel > worst:
                worst, where = rel, i
        outcome.max_rel = worst
        outcome.agree = worst <= recipe.rtol
        outcome.detail = (f"{len(a)} numbers, largest relative difference {worst:.2g}"
                          + ("" if outcome.agree else f" (number {where}: torch {a[where]!r}, "
                             f"arraygrad {b[where]!r})"))
        if recipe.drift_after is None and recipe.exact_first is None:
            return
        exact_agree, exact_detail = outcome.agree, outcome.detail
        _judge_final(recipe, outcome)
        outcome.agree = exact_agree and outcome.agree
        where = (f"first {recipe.exact_first} numbers" if recipe.exact_first is not None
                 else f"before '{recipe.drift_after}'")
        outcome.detail = f"{where}: {exact_detail}; after: {outcome.detail}"
        return
    _judge_final(recipe, outcome)


def _before_drift(recipe: Recipe, text: str) -> str:
    """The output up to the first line matching the recipe's ``drift_after`` (all of it when
    the recipe has none)."""
    if recipe.drift_after is None:
        return text
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.search(recipe.drift_after, line):
            return "\n".join(lines[:i])
    return text


def _judge_final(recipe: Recipe, outcome: Outcome) -> None:
    torch_run, ag_run = outcome.torch, outcome.arraygrad
    ft, fa = final_metric(recipe, torch_run.stdout), final_metric(recipe, ag_run.stdout)
    outcome.finals = (ft, fa)
    if ft is None or fa is None:
        outcome.detail = f"no final metric printed (torch {ft}, arraygrad {fa})"
        return
    learned = all(recipe.learned(v) for v in (ft, fa))
    close = abs(ft - fa) <= recipe.tolerance
    outcome.agree = learned and close
    outcome.detail = (f"final {recipe.final_name}: torch {ft:.4g}, arraygrad {fa:.4g} "
                      f"(tolerance {recipe.tolerance:g}; "
                      f"{'both learned' if learned else 'did not learn'})")


def compare(recipe: Recipe, keep: Path | None = None, timeout: float | None = None) -> Outcome:
    """Run ``recipe`` on both frameworks and compare."""
    scratch_root = Path(tempfile.mkdtemp(prefix=f"prog-{recipe.name}-")) if keep is None \
        else keep / recipe.name
    if scratch_root.exists() and keep is not None:
        shutil.rmtree(scratch_root)
    runs = {}
    try:
        for framework in ("torch", "arraygrad"):
            scratch = scratch_root / framework
            program = prepare(recipe, scratch)
            runs[framework] = run_once(recipe, program, framework, scratch,
                                       timeout or recipe.timeout)
    finally:
        if keep is None:
            shutil.rmtree(scratch_root, ignore_errors=True)
    outcome = Outcome(recipe.name, recipe.command(), runs["torch"], runs["arraygrad"])
    judge(recipe, outcome)
    return outcome


def report_line(o: Outcome) -> str:
    t, a = o.torch, o.arraygrad
    state = "agree" if o.agree else "DIFFER"
    return (f"{o.name:24s} {state:6s} torch {'ok' if t.ok else 'FAIL'} {t.seconds:6.1f}s  "
            f"arraygrad {'ok' if a.ok else 'FAIL'} {a.seconds:6.1f}s  {o.detail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--keep", type=Path)
    parser.add_argument("--timeout", type=float)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--show", action="store_true", help="print both outputs")
    args = parser.parse_args(argv)
    if args.list:
        for r in RECIPES.values():
            print(f"{r.name:24s} {r.compare:5s} {'shared' if r.shared_stream else 'plain':6s} "
                  f"{r.command()}")
        return 0
    names = list(RECIPES) if args.all else args.names
    unknown = [n for n in names if n not in RECIPES]
    if unknown or not names:
        parser.error(f"unknown recipes {unknown}; --list shows them" if unknown
                     else "name a recipe, or --all")
    outcomes = []
    for name in names:
        o = compare(RECIPES[name], args.keep, args.timeout)
        outcomes.append(o)
        print(report_line(o), flush=True)
        if args.show or not (o.torch.ok and o.arraygrad.ok):
            for run in (o.torch, o.arraygrad):
                print(f"--- {run.framework} stdout (tail)\n{run.stdout[-1500:]}")
                if not run.ok:
                    print(f"--- {run.framework} stderr (tail)\n{run.stderr[-2500:]}")
    if args.json:
        existing = json.loads(args.json.read_text()) if args.json.exists() else {}
        existing.update({o.name: o.as_dict() for o in outcomes})
        args.json.write_text(json.dumps(existing, indent=1, sort_keys=True) + "\n")
    return 0 if all(o.agree for o in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
