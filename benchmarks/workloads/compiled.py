"""The ``compiled`` column: a workload's arraygrad step under ``arraygrad.compile``.

Two fresh copies of the arraygrad step are built: one compiled, one eager. The
compiled one's first call records; its results must equal the eager twin's bit for
bit over a few calls (so the column checks the replays, not only the recording: the
NumPy check would see parameters already updated), and it must really replay
(``stats["replays"]``), else the column says why it is "n/a" instead of timing an
eager fallback. ``record_ratio``: the recording call (the first call of a fresh compiled
model, after a throwaway one has paid the once-per-process imports) over the median
eager step of a third copy (the median of ``RECORDS`` fresh copies' recording calls, the
last of them the checked one). The recording call runs the step eagerly while recording it
and works out the bindings; generating and compiling the replay function's Python code is
left to the first replay (a key recorded and never replayed never pays it), so that cost is
in the first replay, not in this ratio. The first call also pays the compiled function's
first walk of the state its closure reaches (once per compiled function, not per record).
"""

from __future__ import annotations

import statistics
import time

from workloads.base import Impl, to_numpy

CHECK_CALLS = 4
RECORDS = 3  # fresh recordings timed: one alone is as noisy as one eager step would be


def _same(a: list, b: list) -> bool:
    import numpy as np

    return len(a) == len(b) and all(
        np.array_equal(to_numpy(x), to_numpy(y)) for x, y in zip(a, b))


def compiled_impl(framework) -> tuple[Impl | None, dict]:
    """``(Impl, info)`` for the compiled step of ``framework(arraygrad)``, or ``(None, info)``
    with ``info["note"]`` saying why there is none. Never raises."""
    try:
        import arraygrad

        compile_fn = getattr(arraygrad, "compile", None)
        if compile_fn is None:
            return None, {"note": "arraygrad.compile is absent"}
        compile_fn(framework(arraygrad))()  # once per process costs (imports) paid here
        eager_s = _eager_step_seconds(framework(arraygrad))
        records = [_record_seconds(compile_fn, framework, arraygrad)
                   for _ in range(RECORDS - 1)]
        twin = framework(arraygrad)
        step = compile_fn(framework(arraygrad))
        t0 = time.perf_counter()
        got = step()  # the recording call
        records.append(time.perf_counter() - t0)
        record_s = statistics.median(records)
        exact = _same(got, twin())
        for _ in range(CHECK_CALLS - 1):
            exact = _same(step(), twin()) and exact
        stats = getattr(step, "stats", None)
        if stats is not None and not stats.get("replays"):
            return None, {"note": f"no replay: it runs eagerly ({stats})"}
    except Exception as exc:  # noqa: BLE001 - the bench reports, never crashes
        return None, {"note": f"{type(exc).__name__}: {exc}"}
    impl = Impl(step)
    impl.correct = exact
    return impl, {"record_ratio": record_s / eager_s, "note": ""}


def _record_seconds(compile_fn, framework, arraygrad) -> float:
    """The time of the recording call of one fresh compiled copy."""
    step = compile_fn(framework(arraygrad))
    t0 = time.perf_counter()
    step()
    return time.perf_counter() - t0


def _eager_step_seconds(run, calls: int = 5) -> float:
    """The median time of an eager step, after a first call (lazy state) is out of the way."""
    run()
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)
