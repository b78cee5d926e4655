"""The benchmark suite (``make bench``): every workload for raw NumPy (hand-written gradients,
the floor), arraygrad, arraygrad's step under ``arraygrad.compile`` ("compiled"), and PyTorch
when installed, interleaved in one process so ratios hold on a noisy machine. Prints medians
and ratios; ``--json PATH`` writes the same.

Each workload's gradients are checked once against NumPy: a fast wrong answer shows WRONG.
The compiled step is checked against an eager twin, bit for bit over its first calls, and its
row adds the recording's cost in eager steps; "n/a" says why a step has no compiled timing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from one_thread import pin_one_thread  # noqa: E402

if __name__ == "__main__":  # (a test importing this module keeps its own environment)
    pin_one_thread()  # before NumPy loads its BLAS: one thread, as PyTorch gets

import numpy as np  # noqa: E402

import checkpoint_memory  # noqa: E402
import import_time  # noqa: E402
import per_sample_grads  # noqa: E402
from workloads import (attention, chain, conv, deep, dense, memory, mlp, models,  # noqa: E402
                       recurrent, step_memory)
from workloads.base import to_numpy  # noqa: E402
from workloads.compiled import compiled_impl  # noqa: E402

TIMED = {
    "overhead_chain": chain.workload,
    "tensor_chain": chain.tensor_chain,
    "mlp_step": mlp.mlp_step,
    "mlp_small_step": mlp.mlp_small_step,
    "mlp_raw_step": mlp.mlp_raw_step,
    "matmul_big": dense.matmul_big,
    "matmul_bf16": dense.matmul_bf16,
    "broadcast_reduce": dense.broadcast_reduce,
    "conv_step": conv.conv_step,
    "lstm_step": recurrent.lstm_step,
    "attention_step": attention.attention_step,
    "mnist_cnn": models.mnist_cnn,
    "char_rnn": models.char_rnn,
    "gpt_block": models.gpt_block,
}


def _check(w) -> dict:
    """``{impl: True/False}``: each implementation's gradients against NumPy's floor, or
    PyTorch's for a model with no hand-written floor (None for all: neither is there)."""
    reference = "numpy" if "numpy" in w.impls else "torch" if "torch" in w.impls else None
    if reference is None:
        return {name: None for name in w.impls}
    ref = [to_numpy(g) for g in w.impls[reference].run()]
    out = {reference: True}  # the reference (its next run would see its own update)
    for name, impl in w.impls.items():
        if name == reference:
            continue
        if impl.correct is not None:  # checked its own way (the compiled step)
            out[name] = impl.correct
            continue
        got = [to_numpy(g) for g in impl.run()]
        out[name] = len(got) == len(ref) and all(
            np.allclose(a, b, rtol=w.rtol, atol=1e-5) for a, b in zip(got, ref))
    return out


def add_compiled(w) -> dict:
    """Put the compiled step among ``w``'s implementations, after arraygrad's; returns its
    ``info`` (``record_ratio``, or the ``note`` saying why there is none)."""
    if w.framework is None:
        return {}
    impl, info = compiled_impl(w.framework)
    if impl is not None:
        impls = list(w.impls.items())
        at = [name for name, _ in impls].index("arraygrad") + 1
        w.impls = dict(impls[:at] + [("compiled", impl)] + impls[at:])
    return info


def time_workload(w, quick: bool, compiled: bool = True) -> dict:
    """Median time per call in the workload's unit, interleaving implementations (the compiled
    step's among them unless ``compiled`` is False)."""
    info = add_compiled(w) if compiled and w.compiled else {}
    correct = _check(w)
    for impl in w.impls.values():  # warm caches and lazily built state
        impl.run()
    repeats = max(3, w.repeats // 5) if quick else w.repeats
    samples = {name: [] for name in w.impls}
    for _ in range(repeats):
        for name, impl in w.impls.items():
            t0 = time.perf_counter()
            impl.run()
            samples[name].append((time.perf_counter() - t0) * w.scale)
    results = {name: {"median": statistics.median(v), "correct": correct[name]}
               for name, v in samples.items()}
    if "compiled" in results:
        results["compiled"]["record_ratio"] = info["record_ratio"]
    elif info:
        w.compiled_note = info["note"]
    return results


_VERDICT = {True: "ok", False: "WRONG", None: "unchecked"}


def _row(label, unit, results):
    np_med = results.get("numpy", {}).get("median")
    torch_med = results.get("torch", {}).get("median")
    lines = []
    for name, r in results.items():
        vs_np = f"{r['median'] / np_med:8.2f}" if np_med else "       -"
        vs_torch = f"{r['median'] / torch_med:8.2f}" if torch_med else "       -"
        lines.append(f"{label:<18} {name:<10} {r['median']:10.3f} {unit:<8} {vs_np} "
                     f"{vs_torch}  {_VERDICT[r['correct']]}"
                     + (f"  record = {r['record_ratio']:.1f} eager steps"
                        if "record_ratio" in r else ""))
        label = ""
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--only", nargs="*", help="workload names to run")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    results: dict = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                                 "platform": platform.platform()}}
    print(f"{'workload':<18} {'impl':<10} {'median':>10} {'unit':<8} {'x numpy':>8} "
          f"{'x torch':>8}  check")
    for name, make in TIMED.items():
        if args.only and name not in args.only:
            continue
        w = make()
        results[name] = time_workload(w, args.quick)
        for line in _row(name, w.unit, results[name]):
            print(line, flush=True)
        if w.compiled_note:  # the compiled column, and why it is empty
            print(f"{'':<18} {'compiled':<10} {'n/a':>10}  ({w.compiled_note})")
            results.setdefault("compiled_na", {})[name] = w.compiled_note
    if not args.only or "deep_chain" in args.only:
        dc = deep.deep_chain()
        results["deep_chain"] = dc
        torch = dc.get("torch")
        for impl, r in dc.items():
            if "error" in r:
                print(f"{'deep_chain':<18} {impl:<10} error: {r['error']}")
                continue
            ratio = (f"  {r['seconds'] / torch['seconds']:.2f}x torch time, "
                     f"{r['rss_mb'] / max(torch['rss_mb'], 1e-9):.2f}x torch RSS") if torch else ""
            print(f"{'deep_chain':<18} {impl:<10} {r['seconds']:10.3f} s        "
                  f"peak RSS +{r['rss_mb']:.1f} MB{ratio}  {'ok' if r['correct'] else 'WRONG'}")
    if not args.only or "memory_mlp" in args.only:
        mem = memory.memory_mlp()
        results["memory_mlp"] = mem
        print(f"{'memory_mlp':<18} numpy {mem['numpy']:.2f} MB, arraygrad {mem['arraygrad']:.2f} MB"
              f" -> {mem['arraygrad'] / mem['numpy']:.2f}x numpy (tracemalloc peak of one step)")
    if not args.only or "step_memory" in args.only:
        results["step_memory"] = sm = step_memory.step_memory()
        for line in step_memory.report(sm):
            print(line, flush=True)
    if not args.only or "checkpoint_memory" in args.only:
        results["checkpoint_memory"] = ckpt = checkpoint_memory.checkpoint_memory(args.quick)
        for line in checkpoint_memory.report(ckpt):
            print(line, flush=True)
    if not args.only or "per_sample_grads" in args.only:
        results["per_sample_grads"] = psg = per_sample_grads.per_sample_grads(args.quick)
        for line in per_sample_grads.report(psg):
            print(line, flush=True)
    if not args.only or "import_time" in args.only:
        results["import_time"] = imp = import_time.import_time(args.quick)
        for line in import_time.report(imp):
            print(line, flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
