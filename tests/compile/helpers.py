"""Shared harness for the compile tests: run a training setup eagerly and compiled, from the
same seed and data, and compare every value bit for bit."""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Callable, Iterator

import numpy as np

import arraygrad as ag


def host(t: Any) -> Any:
    """A tensor's values as a NumPy array (a copy), structures recursively."""
    if isinstance(t, ag.Tensor):
        return np.array(t.detach().numpy(), copy=True)
    if isinstance(t, (list, tuple)):
        return [host(v) for v in t]
    if isinstance(t, dict):
        return {k: host(v) for k, v in t.items()}
    return t


def same(a: Any, b: Any) -> bool:
    """Bit-for-bit equality of nested structures of arrays (NaNs equal to NaNs)."""
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
                and np.array_equal(a, b, equal_nan=True))
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def state_of(model: Any, opt: Any = None) -> Any:
    """Every value a step may change: parameters, their grads, buffers, optimizer state,
    version counters."""
    out: dict[str, Any] = {}
    for name, p in model.named_parameters():
        out[name] = host(p)
        out[name + ".grad"] = None if p.grad is None else host(p.grad)
        out[name + "._version"] = p._version
    for name, b in model.named_buffers():
        out["buffer " + name] = host(b)
    if opt is not None:
        for i, (p, st) in enumerate(opt.state.items()):
            for k, v in st.items():
                out[f"opt {i} {k}"] = host(v)
        out["lr"] = [g["lr"] for g in opt.param_groups]
    return out


def compare(make: Callable[[], tuple[Any, Callable[..., Any]]], inputs: Callable[[int], tuple[Any, ...]],
            steps: int = 50, *, expect_replays: bool = True, min_replays: int | None = None,
            between: Callable[[Any, int], None] | None = None) -> Any:
    """Build the setup twice (``make() -> (state, step)``), run ``steps`` steps eagerly and
    compiled with the same inputs, and assert every result and the state after every step
    are identical. ``between(state, i)`` runs after step ``i`` in both (a scheduler, a mode
    switch). Returns the compiled function (its ``stats``)."""
    ag.manual_seed(0)
    eager_state, eager_step = make()
    ag.manual_seed(0)
    comp_state, comp_fn = make()
    compiled = ag.compile(comp_fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a graph break or a recompile storm warns: fail on it
        if not expect_replays:
            warnings.filterwarnings("ignore", "arraygrad.compile: graph break")
        for i in range(steps):
            args = inputs(i)
            ag.manual_seed(1000 + i)
            want = host(eager_step(*args))
            ag.manual_seed(1000 + i)
            got = host(compiled(*inputs(i)))
            assert same(want, got), f"step {i}: results differ"
            assert same(state_of(*eager_state), state_of(*comp_state)), f"step {i}: state differs"
            if between is not None:
                between(eager_state, i)
                between(comp_state, i)
    if expect_replays:
        want = steps - 4 if min_replays is None else min_replays
        assert compiled.stats["replays"] >= want, compiled.stats
    return compiled


# -- recording by hand (the recorder's own tests) ----------------------------------------

def recording_of(*arrays: Any) -> tuple[Any, list[Any]]:
    """A fresh ``Recording`` on the default backend with ``arrays`` as its inputs (traced,
    slots 0, 1, ...), as ``Session.start`` would make them."""
    from arraygrad.backends.registry import default_backend
    from arraygrad.compiler.recording import Recording
    from arraygrad.compiler.traced import TracedArray

    rec = Recording(default_backend(), lambda reason: None)
    traced = [TracedArray(a, rec.new_slot(), rec) for a in arrays]
    rec.ninputs = rec.nslots
    return rec, traced


@contextlib.contextmanager
def recording_now(rec: Any) -> Iterator[None]:
    """Within the block, ``rec`` is the recording in progress (as ``Session.start`` makes it:
    the flag on, the recorder's transform hooks installed)."""
    from arraygrad.compiler import hooks
    from arraygrad.compiler.recording import current
    from arraygrad.compiler.scalars import recording_flag

    was, flag = current.rec, recording_flag.on
    saved = hooks.install()
    current.rec, recording_flag.on = rec, True
    try:
        yield
    finally:
        current.rec, recording_flag.on = was, flag
        hooks.restore(saved)


def training_step(model: Any, opt: Any, loss_of: Callable[..., Any]) -> Callable[..., Any]:
    """``step(*batch)``: zero the grads, ``loss_of(model, *batch).backward()``, step; returns
    the loss and the parameters after the step (copies)."""
    def step(*batch: Any) -> Any:
        opt.zero_grad()
        loss = loss_of(model, *batch)
        loss.backward()
        opt.step()
        return loss.detach(), [p.detach().clone() for p in model.parameters()]
    return step


def scaled_sgd_step(seed: int = 0) -> tuple[Callable[..., Any], Any]:
    """``(step(scale), model)``: an MLP's SGD step on a fixed batch with the loss
    ``sum(model(x) * scale)``; returns the grads."""
    ag.manual_seed(seed)
    model = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.ReLU(), ag.nn.Linear(4, 2))
    opt = ag.optim.SGD(model.parameters(), lr=0.1)
    x = ag.tensor(np.arange(6, dtype=np.float32).reshape(2, 3))

    def step(scale: Any) -> Any:
        opt.zero_grad()
        (model(x) * scale).sum().backward()
        opt.step()
        return [p.grad for p in model.parameters()]
    return step, model


class UserSGD(ag.optim.Optimizer):
    """SGD written as PyTorch's documentation writes an optimizer (no ``live``)."""

    def __init__(self, params, lr=0.1, momentum=0.0):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @ag.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad
                if group["momentum"] != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = d_p.clone().detach()
                    else:
                        buf.mul_(group["momentum"]).add_(d_p)
                    d_p = buf
                p.add_(d_p, alpha=-group["lr"])


class UserAdam(ag.optim.Optimizer):
    """Adam as a user writes it after PyTorch's: numbers from the group handed to
    ``math.sqrt``, a Python step count in the state, the moments in tensors."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps))

    @ag.no_grad()
    def step(self, closure=None):
        import math

        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                t = state["step"] = state.get("step", 0) + 1
                m = state.setdefault("m", ag.zeros_like(p))
                v = state.setdefault("v", ag.zeros_like(p))
                m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                size = group["lr"] * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
                p.addcdiv_(m, v.sqrt().add(group["eps"]), value=-size)
