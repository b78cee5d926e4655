"""``per_sample_grads``: what ``vmap`` buys. The gradient of every sample's loss (not the batch
mean) for a small MLP and a small conv net, three ways:

- ``vmap``: ``vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)`` with ``functional_call``,
  arraygrad's batched ``arraygrad.func.vmap``;
- ``loop``: the same ``grad(loss)`` called once per sample and stacked (``func._vmap_loop``'s
  ``loop_vmap``, the Python loop ``vmap`` replaces);
- ``torch``: ``torch.func.vmap(torch.func.grad(loss))`` on the same model, when PyTorch is
  installed.

Each is checked once: the vmap gradients must equal the loop's (a fast wrong answer shows
WRONG). Printed: median ms per batch, ``loop / vmap`` (the speedup) and ``vmap / torch``.
Also run by ``make bench`` (``benchmarks/bench.py``)::

    python benchmarks/per_sample_grads.py [--quick]
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

BATCH = 64
MLP = (32, 64, 10)  # in, hidden, classes
CONV_BATCH = 32


def _vmap() -> Callable[..., Any]:
    from arraygrad.func import vmap

    return vmap


def _models(m: Any) -> dict[str, Any]:
    """The two models in framework ``m`` (arraygrad or torch), with the same weights."""
    m.manual_seed(0)
    nn = m.nn
    mlp = nn.Sequential(nn.Linear(MLP[0], MLP[1]), nn.Tanh(), nn.Linear(MLP[1], MLP[2]))
    conv = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(8 * 5 * 5, 10))
    return {"mlp": mlp, "conv": conv}


def _data(name: str) -> tuple[Any, Any]:
    import numpy as np

    rng = np.random.default_rng(0)
    if name == "mlp":
        x = rng.standard_normal((BATCH, MLP[0])).astype(np.float32)
        y = rng.integers(0, MLP[2], BATCH)
    else:
        x = rng.standard_normal((CONV_BATCH, 1, 12, 12)).astype(np.float32)
        y = rng.integers(0, 10, CONV_BATCH)
    return x, y


def _ours(name: str, model: Any, mapper: Callable[..., Any]) -> Callable[[], Any]:
    import arraygrad as ag
    from arraygrad.func import functional_call, grad

    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = (ag.tensor(a) for a in _data(name))

    def loss(p: Any, xi: Any, yi: Any) -> Any:
        out = functional_call(model, p, (xi.unsqueeze(0),))
        return ag.nn.functional.cross_entropy(out, yi.unsqueeze(0))

    per_sample = mapper(grad(loss), in_dims=(None, 0, 0))
    return lambda: per_sample(params, x, y)


def _torch(name: str) -> Callable[[], Any] | None:
    try:
        import torch
    except ImportError:
        return None
    from torch.func import functional_call, grad, vmap

    # one thread, as arraygrad's NumPy runs (OPENBLAS_NUM_THREADS=1): PyTorch's default pool
    # on a loaded machine spins, costing it ~70 ms a call here and slowing the runs after it
    torch.set_num_threads(1)
    model = _models(torch)[name]
    params = {k: v.detach() for k, v in model.named_parameters()}
    x, y = (torch.as_tensor(a) for a in _data(name))

    def loss(p: Any, xi: Any, yi: Any) -> Any:
        out = functional_call(model, p, (xi.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(out, yi.unsqueeze(0))

    per_sample = vmap(grad(loss), in_dims=(None, 0, 0))
    return lambda: per_sample(params, x, y)


def _agree(a: dict[str, Any], b: dict[str, Any]) -> bool:
    import numpy as np

    return set(a) == set(b) and all(
        np.allclose(np.asarray(a[k].tolist()), np.asarray(b[k].tolist()), rtol=1e-4, atol=1e-6)
        for k in a)


def per_sample_grads(quick: bool = False) -> dict[str, dict[str, Any]]:
    """``{model: {"vmap": ms, "loop": ms, "torch": ms or None, "correct": bool}}``, medians
    of warm runs in interleaved rounds (``quick``: 3 rounds of 3, else 5 of 5)."""
    import arraygrad as ag
    from arraygrad.func._vmap_loop import loop_vmap

    models = _models(ag)
    out = {}
    for name, model in models.items():
        runs = {"vmap": _ours(name, model, _vmap()), "loop": _ours(name, model, loop_vmap)}
        theirs = _torch(name)
        if theirs is not None:
            runs["torch"] = theirs
        correct = _agree(runs["vmap"](), runs["loop"]())
        samples: dict[str, list[float]] = {k: [] for k in runs}
        # rounds interleave the ways (load on the machine hits them alike); within a round each
        # runs in a block after one untimed call, so it is timed warm, not right after another
        # way's garbage and cache traffic (that doubled the vmap figure: 0.95 -> 1.9 ms)
        for _ in range(3 if quick else 5):
            for k, run in runs.items():
                run()
                for _ in range(3 if quick else 5):
                    t0 = time.perf_counter()
                    run()
                    samples[k].append((time.perf_counter() - t0) * 1e3)
        result: dict[str, Any] = {k: statistics.median(v) for k, v in samples.items()}
        result.setdefault("torch", None)
        result["correct"] = correct
        out[name] = result
    return out


def report(results: dict[str, dict[str, Any]]) -> list[str]:
    """The lines ``make bench`` prints."""
    lines = []
    for name, r in results.items():
        batch = BATCH if name == "mlp" else CONV_BATCH
        vs_torch = (f", vmap / torch {r['vmap'] / r['torch']:.2f}x (torch {r['torch']:.2f} ms)"
                    if r["torch"] else "")
        lines.append(f"{'per_sample_grads':<18} {name:<5} batch {batch}: vmap {r['vmap']:8.2f} ms, "
                     f"loop {r['loop']:8.2f} ms, loop / vmap {r['loop'] / r['vmap']:.2f}x"
                     f"{vs_torch}  {'ok' if r['correct'] else 'WRONG'}")
    return lines


if __name__ == "__main__":
    import sys

    from one_thread import pin_one_thread

    pin_one_thread()  # before NumPy loads its BLAS (this module imports it lazily)
    for line in report(per_sample_grads(quick="--quick" in sys.argv)):
        print(line)
