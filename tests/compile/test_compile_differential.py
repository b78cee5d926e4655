"""Hypothesis: random training programs with ordinary Python around the step, run eagerly and
compiled from the same state, agree bit for bit after every call.

Each program draws a model (Linear layers, an activation with a hyperparameter, optional
Dropout and BatchNorm), a loss, an optimizer (twelve of arraygrad's, or a user's written as
PyTorch's documentation writes one: SGD with momentum, Adam with ``math.sqrt`` and a Python
step count), an optional LR scheduler stepped after the optimizer or before it, and before
each call a
list of edits of the Python state the step reads: the learning rate and momentum changed
by hand, train/eval switched, a plain config object's attribute, a value two containers
deep, a module's hyperparameter, the default dtype, ``load_state_dict`` of an earlier
optimizer state, the batch's size and dtype, ``requires_grad`` of a parameter, a parameter
group added, and a counter the step increments on a plain object. Every result,
parameter, gradient, buffer and optimizer state entry must be bit-identical (a call may
run eagerly, with its warning: then it is eager's by construction).
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

import arraygrad as ag
from arraygrad import nn

from .helpers import UserAdam, UserSGD, host, same

STEPS = 8
EDITS = ["lr", "momentum", "train", "eval", "cfg", "nested", "hyper", "dtype", "load", "batch",
         "requires_grad", "add_group", "counter"]
OPTIMIZERS = ["SGD", "SGD_momentum", "Adam", "AdamW", "RMSprop", "NAdam", "RAdam", "ASGD",
              "Adagrad", "Adamax", "Adadelta", "Rprop", "UserSGD", "UserMomentum", "UserAdam"]


class Plain:
    """A plain config object the step reads."""


def _optimizer(name, params):
    if name == "SGD":
        return ag.optim.SGD(params, lr=0.05)
    if name == "SGD_momentum":
        return ag.optim.SGD(params, lr=0.05, momentum=0.9, nesterov=True)
    if name == "Adam":
        return ag.optim.Adam(params, lr=0.01)
    if name == "AdamW":
        return ag.optim.AdamW(params, lr=0.01, weight_decay=0.1)
    if name == "RMSprop":
        return ag.optim.RMSprop(params, lr=0.01, momentum=0.5)
    if name in ("NAdam", "RAdam", "Adamax", "Adadelta", "Rprop"):
        return getattr(ag.optim, name)(params, lr=0.01)
    if name == "ASGD":
        return ag.optim.ASGD(params, lr=0.01, t0=3)  # averaging starts inside the run
    if name == "Adagrad":
        return ag.optim.Adagrad(params, lr=0.05, lr_decay=0.01)
    if name == "UserAdam":
        return UserAdam(params, lr=0.01)
    return UserSGD(params, lr=0.05, momentum=0.9 if name == "UserMomentum" else 0.0)


@st.composite
def programs(draw):
    return {
        "seed": draw(st.integers(0, 2**16)),
        "hidden": draw(st.sampled_from([3, 5])),
        "act": draw(st.sampled_from(["relu", "leaky", "tanh"])),
        "dropout": draw(st.booleans()),
        "bn": draw(st.booleans()),
        "loss": draw(st.sampled_from(["mse", "ce"])),
        "opt": draw(st.sampled_from(OPTIMIZERS)),
        "sched": draw(st.sampled_from([None, "after", "before"])),
        "edits": [draw(st.lists(st.sampled_from(EDITS), max_size=2)) for _ in range(STEPS)],
        "values": draw(st.lists(st.floats(0.1, 0.9), min_size=STEPS, max_size=STEPS)),
    }


def _run(prog, compiled):
    ag.manual_seed(prog["seed"])
    rng = np.random.default_rng(prog["seed"])
    h = prog["hidden"]
    act = {"relu": nn.ReLU(), "leaky": nn.LeakyReLU(0.1), "tanh": nn.Tanh()}[prog["act"]]
    layers = [nn.Linear(4, h)]
    if prog["bn"]:
        layers.append(nn.BatchNorm1d(h))
    layers.append(act)
    if prog["dropout"]:
        layers.append(nn.Dropout(0.25))
    layers.append(nn.Linear(h, 3))
    model = nn.Sequential(*layers)
    extra = nn.Parameter(ag.zeros(3))
    opt = _optimizer(prog["opt"], model.parameters())
    sched = ag.optim.lr_scheduler.StepLR(opt, 2, gamma=0.5) if prog["sched"] else None
    order = prog["sched"]
    loss_fn = nn.MSELoss() if prog["loss"] == "mse" else nn.CrossEntropyLoss()
    cfg = Plain()
    cfg.scale = 1.0
    cfg.uses_extra = False
    nested = [{"shift": 0.0}]
    counter = Plain()
    counter.n = 0
    counter.on = False

    def step(x, y):
        opt.zero_grad()
        out = model(x) * cfg.scale + nested[0]["shift"]
        if cfg.uses_extra:
            out = out + extra
        if counter.on:
            counter.n += 1
        target = y if prog["loss"] == "ce" else ag.ones(out.shape, dtype=out.dtype) * 0.5
        loss = loss_fn(out, target)
        loss.backward()
        if order == "before":  # (the order PyTorch warns about: read after a host call)
            sched.step()
        opt.step()
        if order == "after":
            sched.step()
        return loss

    run = ag.compile(step) if compiled else step
    saved = None
    batch, dtype = 6, ag.float32
    results = []
    for i in range(STEPS):
        v = prog["values"][i]
        for edit in prog["edits"][i]:
            if edit == "lr":
                for g in opt.param_groups:
                    g["lr"] = v * 0.1
            elif edit == "momentum":
                for g in opt.param_groups:
                    if "momentum" in g and g["momentum"] != 0:
                        g["momentum"] = v
            elif edit == "train":
                model.train()
            elif edit == "eval":
                model.eval()
            elif edit == "cfg":
                cfg.scale = 1.0 + v
            elif edit == "nested":
                nested[0]["shift"] = v
            elif edit == "hyper":
                for m in model.modules():
                    if isinstance(m, nn.LeakyReLU):
                        m.negative_slope = v
                    elif isinstance(m, nn.Dropout):
                        m.p = v * 0.5
                    elif isinstance(m, nn.BatchNorm1d):
                        m.momentum = v
            elif edit == "dtype":
                ag.set_default_dtype(ag.float64 if ag.get_default_dtype() == ag.float32
                                     else ag.float32)
            elif edit == "load":
                if saved is None:
                    saved = copy.deepcopy(opt.state_dict())
                else:
                    opt.load_state_dict(saved)
            elif edit == "batch":
                batch = 7 if batch == 6 else 6
            elif edit == "requires_grad":
                w = model[0].weight
                w.requires_grad_(not w.requires_grad)
            elif edit == "add_group" and not cfg.uses_extra:
                opt.add_param_group({"params": [extra]})
                cfg.uses_extra = True
                saved = None  # an older state dict has one group fewer
            elif edit == "counter":
                counter.on = not counter.on
        x = ag.tensor(rng.standard_normal((batch, 4)).astype(np.float32), dtype=dtype)
        y = ag.tensor(rng.integers(0, 3, batch))
        loss = run(x, y)
        results.append(host(loss))
        results.append({name: [host(p), None if p.grad is None else host(p.grad)]
                        for name, p in model.named_parameters()})
        results.append({name: host(b) for name, b in model.named_buffers()})
        results.append(host(extra))
        results.append([{k: host(v) for k, v in s.items()} for s in opt.state.values()])
        results.append([g["lr"] for g in opt.param_groups])
        results.append(counter.n)
    return results


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_random_training_programs_compile_to_eagers_values(prog):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a call that runs eagerly says so: allowed
            eager = _run(prog, compiled=False)
            ag.set_default_dtype(ag.float32)
            got = _run(prog, compiled=True)
    finally:
        ag.set_default_dtype(ag.float32)
    assert same(eager, got)
