"""The program-level benchmark (``make bench-programs``): every program in ``examples/ported``
timed under arraygrad and, where installed, under PyTorch (the program with its imports
renamed back), each run in a fresh process with one thread, three times by default
(``--repeats``, the frameworks alternating; each keeps its median run), printing each
program's time ratio, then the median and the largest.

A run's time is a wall clock around the program itself (``runpy`` in the process), started
after the framework is imported and has run one tiny training step, so an import's cost, and
what a framework loads on its first backward and optimizer step, is no program's. The frameworks draw
different random numbers, so a program that draws them computes the same kind of work with
other values on each; a timing compares the two runs' work, not their output (the tests in
tests/examples compare outputs).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
PORTED = ROOT / "examples" / "ported"
sys.path.insert(0, str(ROOT / "tools" / "programs"))

from back_to_torch import back_to_torch  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from one_thread import ONE_THREAD  # noqa: E402

TIMEOUT_S = 900  # a hang guard: one program on a loaded machine takes well under this
_ONE_THREAD = {**ONE_THREAD, "PYTHONHASHSEED": "0", "MPLBACKEND": "Agg"}
_WRAPPER = """
import json, runpy, sys, time, warnings
warnings.simplefilter("ignore")
{imports}
sys.argv = [{program!r}]
t0 = time.perf_counter()
runpy.run_path({program!r}, run_name="__main__")
seconds = time.perf_counter() - t0
with open({out!r}, "w") as fh:
    json.dump({{"seconds": seconds}}, fh)
"""
# the import, then one tiny training step: what a framework loads lazily on its first
# backward and optimizer step (PyTorch imports its compiler stack there, about a second) is
# paid before the clock starts, as the import is
_WARM_STEP = ("p = {lib}.nn.Parameter({lib}.ones(2)); o = {lib}.optim.SGD([p], lr=0.1); "
              "(p * p).sum().backward(); o.step()")
_IMPORTS = {"arraygrad": "import arraygrad; " + _WARM_STEP.format(lib="arraygrad"),
            "torch": "import torch; torch.set_num_threads(1); " + _WARM_STEP.format(lib="torch")}


def torch_installed() -> bool:
    """Whether PyTorch can be imported by the interpreter running the programs."""
    proc = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True)
    return proc.returncode == 0


def bytecode_env(cache: str) -> dict:
    """The programs' environment: one thread, and compiled bytecode kept under ``cache``
    (``PYTHONPYCACHEPREFIX``) even where ``PYTHONDONTWRITEBYTECODE`` is set: a module imported
    lazily must not be compiled from source inside each timed run (an installed PyTorch has
    its bytecode; arraygrad installed editable from a checkout may have none)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **_ONE_THREAD, "PYTHONPYCACHEPREFIX": cache}


def compile_arraygrad(env: dict) -> None:
    """Every arraygrad module (and its NumPy backend's) compiled into ``env``'s cache."""
    code = ("import compileall, os, arraygrad, arraygrad_numpy\n"
            "for m in (arraygrad, arraygrad_numpy):\n"
            "    compileall.compile_dir(os.path.dirname(m.__file__), quiet=1)")
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=TIMEOUT_S)


def time_program(path: pathlib.Path, framework: str, env: dict | None = None) -> dict:
    """``{"seconds"}`` of one run of ``path`` on ``framework`` ("arraygrad" or "torch", the
    source renamed back), or ``{"error": last line of its stderr}``; ``env``: the process's
    environment (``bytecode_env``; by default this one's, one thread)."""
    source = path.read_text()
    if framework == "torch":
        source = back_to_torch(source)
    with tempfile.TemporaryDirectory() as scratch:  # the program's files land here
        program = os.path.join(scratch, path.name)
        out = os.path.join(scratch, "timing.json")
        with open(program, "w") as fh:
            fh.write(source)
        code = _WRAPPER.format(imports=_IMPORTS[framework], program=program, out=out)
        try:
            proc = subprocess.run([sys.executable, "-c", code], cwd=scratch, capture_output=True,
                                  text=True, timeout=TIMEOUT_S,
                                  env=env or {**os.environ, **_ONE_THREAD})
        except subprocess.TimeoutExpired:
            return {"error": f"timed out after {TIMEOUT_S} s"}
        if proc.returncode != 0 or not os.path.exists(out):
            return {"error": (proc.stderr.strip().splitlines() or ["(no output)"])[-1]}
        with open(out) as fh:
            return json.load(fh)


def time_repeated(path: pathlib.Path, frameworks: list, env: dict | None = None,
                  repeats: int = 3) -> dict:
    """``{framework: {"seconds", "runs"}}``: ``path`` run ``repeats`` times on each framework,
    the frameworks alternating run by run so that a slow spell of the machine falls on both,
    and each framework's time the median of its runs (one noisy run of a sub-second program
    moved its ratio by 2x on the shared machines here). A framework whose run fails gets
    that run's ``{"error"}`` and is not run again."""
    runs: dict = {fw: [] for fw in frameworks}
    failed: dict = {}
    for _ in range(repeats):
        for fw in frameworks:
            if fw in failed:
                continue
            r = time_program(path, fw, env)
            if "seconds" in r:
                runs[fw].append(r["seconds"])
            else:
                failed[fw] = r
    return {fw: failed.get(fw) or {"seconds": statistics.median(runs[fw]), "runs": runs[fw]}
            for fw in frameworks}


def summarize(results: dict) -> dict:
    """``{"median", "max", "max_program"}`` of the arraygrad/PyTorch time ratios in
    ``results`` (``{program: {framework: {"seconds"}}}``); empty without a ratio."""
    ratios = {name: r["arraygrad"]["seconds"] / r["torch"]["seconds"]
              for name, r in results.items()
              if "seconds" in r.get("arraygrad", {}) and "seconds" in r.get("torch", {})}
    if not ratios:
        return {}
    worst = max(ratios, key=ratios.get)
    return {"median": statistics.median(ratios.values()), "max": ratios[worst],
            "max_program": worst, "ratios": ratios}


def _time_all(programs: list, frameworks: list, env: dict, results: dict,
              repeats: int) -> None:
    """Time each program on each framework (``time_repeated``) into ``results``, printing a
    row per program."""
    for path in programs:
        r = results[path.name] = time_repeated(path, frameworks, env, repeats)
        cells = [f"{r[fw]['seconds']:.2f}" if "seconds" in r[fw] else "error"
                 for fw in frameworks] + ["-"] * (2 - len(frameworks))
        ratio = (f"{r['arraygrad']['seconds'] / r['torch']['seconds']:7.2f}"
                 if all("seconds" in r.get(fw, {}) for fw in ("arraygrad", "torch")) else "      -")
        print(f"{path.name:<26} {cells[0]:>12} {cells[1]:>10} {ratio}", flush=True)
        for fw in frameworks:
            if "error" in r[fw]:
                print(f"    {fw}: {r[fw]['error']}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="program names (file names, .py optional)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs per program and framework, alternating; the median is kept")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    wanted = {n if n.endswith(".py") else n + ".py" for n in args.only or ()}
    programs = [p for p in sorted(PORTED.glob("*.py")) if not wanted or p.name in wanted]
    frameworks = ["arraygrad"] + (["torch"] if torch_installed() else [])
    print(f"{'program':<26} {'arraygrad s':>12} {'torch s':>10} {'ratio':>7}")
    results: dict = {}
    cache = tempfile.mkdtemp(prefix="bench-programs-pycache-")
    try:
        env = bytecode_env(cache)
        compile_arraygrad(env)
        _time_all(programs, frameworks, env, results, args.repeats)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    summary = summarize(results)
    if summary:
        print(f"median {summary['median']:.2f}x PyTorch, max {summary['max']:.2f}x "
              f"({summary['max_program']}), over {len(summary['ratios'])} programs")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"programs": results, "summary": summary}, fh, indent=2)
    return 1 if any("error" in r for p in results.values() for r in p.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
