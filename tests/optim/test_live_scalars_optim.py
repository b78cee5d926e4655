"""The optimizers are written as PyTorch's are, and ``arraygrad.compile`` reads their numbers
itself (``compiler.group_reads``, ``compiler.pre_reads``): a hyperparameter is live, a Python
branch on one is a guard, a step count is read live, and a user's optimizer written as
PyTorch's docs show is exact too. Every case compares a compiled step with eager, bit for bit,
from the same state."""

from __future__ import annotations

import ast
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import optim
from arraygrad.optim.optimizer import _dispatch_sqrt, _get_value

OPTIM = Path(ag.__file__).parent / "optim"


def _pair(make_opt, n=3, values=None):
    """Two identical problems (eager and compiled), each ``(params, opt, step)``."""
    out = []
    for _ in range(2):
        rng = np.random.default_rng(0)
        w = ag.tensor(values if values is not None else rng.standard_normal((3, 4)),
                      requires_grad=True)
        x = ag.tensor(rng.standard_normal((5, w.shape[0])), dtype=w.dtype)
        opt = make_opt([w])

        def step(opt=opt, w=w, x=x):
            opt.zero_grad()
            loss = ((x @ w).tanh() ** 2).sum()
            loss.backward()
            opt.step()
            return loss
        out.append(([w], opt, step))
    return out


def _same(a, b):
    return all(np.array_equal(p.detach().numpy(), q.detach().numpy(), equal_nan=True)
               for p, q in zip(a, b))


def _run(eager, compiled_problem, edits, steps):
    """Run both, applying ``edits[i](opt)`` to both optimizers before call ``i``."""
    compiled = ag.compile(compiled_problem[2])
    for i in range(steps):
        for opt in (eager[1], compiled_problem[1]):
            if i in edits:
                edits[i](opt)
        want, got = eager[2](), compiled()
        assert np.array_equal(want.detach().numpy(), got.detach().numpy(), equal_nan=True), i
        assert _same(eager[0], compiled_problem[0]), f"call {i}"
    return compiled.stats


def test_the_helpers_are_pytorchs():
    assert _get_value(ag.tensor(3.0)) == 3.0 and type(_get_value(ag.tensor(3.0))) is float
    assert _get_value(0.5) == 0.5
    assert _dispatch_sqrt(2.0) == math.sqrt(2.0)
    assert np.allclose(_dispatch_sqrt(ag.tensor([4.0])).numpy(), [2.0])


def test_no_optimizer_speaks_the_compiler():
    """The updates read like PyTorch's: no import of the compiler or its protocol, no
    ``live(lambda ...)``, no ``read_guarded``, no ``_compile_key``."""
    banned = {"live", "read_guarded", "host_effect", "_compile_key", "_state_key", "LiveScalar"}
    for path in OPTIM.rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith(("arraygrad.compiler", "arraygrad.live")), path
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in banned, (path, node.func.id)
            if isinstance(node, (ast.FunctionDef, ast.Attribute)):
                name = node.name if isinstance(node, ast.FunctionDef) else node.attr
                assert name not in banned, (path, name)


def test_a_branch_on_a_hyperparameter_is_a_guard():
    """``if wd != 0`` is a guard: weight decay switched off and on records again, and an
    ``inf`` in the parameter shows it (``g + 0 * p`` would be NaN)."""
    values = np.ones((3, 4))
    values[0, 0] = np.inf
    eager, comp = _pair(lambda p: optim.SGD(p, lr=0.1, weight_decay=0.01), values=values)

    def set_wd(v):
        return lambda opt: opt.param_groups[0].__setitem__("weight_decay", v)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # inf - inf in the loss
        stats = _run(eager, comp, {3: set_wd(0.0), 5: set_wd(0.02), 7: set_wd(0.0)}, 9)
    assert stats["eager"] == 0 and stats["records"] == 3, stats  # wd != 0, wd == 0, 1st call


def test_a_hyperparameter_edit_keeps_replaying():
    eager, comp = _pair(lambda p: optim.Adam(p, lr=0.01))
    edits = {i: (lambda opt, i=i: opt.param_groups[0].__setitem__("lr", 0.01 / (i + 1)))
             for i in range(2, 10)}
    stats = _run(eager, comp, edits, 10)
    assert stats["records"] == 2 and stats["replays"] == 8, stats  # (the 1st creates state)


def test_a_tensor_lr_is_read_live():
    lrs = []

    def make(p):
        lrs.append(ag.tensor(0.1))
        return optim.SGD(p, lr=lrs[-1], momentum=0.9)
    eager, comp = _pair(make)
    edits = {i: (lambda opt, i=i: opt.param_groups[0]["lr"].fill_(0.1 / (i + 1)))
             for i in range(2, 8)}
    stats = _run(eager, comp, edits, 8)
    assert stats["replays"] >= 6, stats


@pytest.mark.parametrize("name,kwargs,start", [("RAdam", {}, 6), ("ASGD", {"t0": 3}, 5)])
def test_a_branch_on_the_step_count_records_again_once(name, kwargs, start):
    """RAdam's rectification (``rho_t > 5``) and ASGD's averaging (``mu != 1``) start at a
    step: the guard made of the step count (read before the step changes it) sees it coming,
    before the replay writes anything."""
    eager, comp = _pair(lambda p: getattr(optim, name)(p, **kwargs))
    stats = _run(eager, comp, {}, 10)
    assert stats["eager"] == 0 and stats["records"] <= 4 and stats["replays"] >= 6, stats


def test_a_write_into_the_group_inside_the_step_is_replayed():
    """A step that sets the learning rate itself (warm-up written by hand): the write is
    made again at every replay, with the value eager computes then."""
    made = []

    def make(p):
        opt = optim.SGD(p, lr=0.1)
        made.append(opt)
        return opt
    eager, comp = _pair(make)
    for problem in (eager, comp):
        inner = problem[2]

        def step(inner=inner, opt=problem[1]):
            group = opt.param_groups[0]
            group["lr"] = group["lr"] * 0.5
            return inner()
        problem = (problem[0], problem[1], step)
        if problem[1] is eager[1]:
            eager = problem
        else:
            comp = problem
    stats = _run(eager, comp, {}, 8)
    assert eager[1].param_groups[0]["lr"] == comp[1].param_groups[0]["lr"] == 0.1 * 0.5 ** 8
    assert stats["replays"] >= 6, stats


def test_a_graph_break_inside_an_update_leaves_eagers_float32_numbers():
    """SparseAdam reads its gradient's mask into Python (a graph break) after reading its
    hyperparameters: the rest of the step runs eagerly, and a live scalar read before the
    break must reach NumPy as its plain number (a float subclass would promote float32 to
    float64). It differed in the last bit before."""
    def make(p):
        return optim.SparseAdam(p, lr=0.0123)
    eager, comp = _pair(make, values=np.random.default_rng(3).standard_normal((3, 4))
                        .astype(np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the break warns
        stats = _run(eager, comp, {}, 4)
    assert stats["eager"] >= 3


def test_a_scheduler_stepped_before_the_optimizer_is_exact():
    """``sched.step()`` before ``opt.step()`` in the step (PyTorch warns: the wrong order):
    the update reads the lr the host call wrote; no recording of it is kept (a branch on it
    cannot be checked up front), and the step ends up eager, exact at every call."""
    eager, comp = _pair(lambda p: optim.Adam(p, lr=0.02))
    problems = []
    for params, opt, inner in (eager, comp):
        sched = optim.lr_scheduler.StepLR(opt, 2, gamma=0.5)

        def step(params=params, opt=opt, sched=sched):
            opt.zero_grad()
            loss = ((params[0] * 2).tanh() ** 2).sum()
            loss.backward()
            sched.step()
            opt.step()
            return loss
        problems.append((params, opt, step))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        stats = _run(problems[0], problems[1], {}, 8)
    assert problems[0][1].param_groups[0]["lr"] == problems[1][1].param_groups[0]["lr"]
    assert stats["replays"] == 0, stats


def test_adagrad_state_for_an_added_group_is_made_on_its_first_step():
    """Adagrad makes its state in ``__init__``; a group added later got none and its first
    step raised KeyError('step') (found by the compile differential test); PyTorch makes it
    then, with the defaults' ``initial_accumulator_value``."""
    torch = pytest.importorskip("torch")
    a, b = ag.ones(2, requires_grad=True), ag.ones(2, requires_grad=True)
    ta, tb = torch.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    opt = optim.Adagrad([a], lr=0.1, initial_accumulator_value=0.5)
    topt = torch.optim.Adagrad([ta], lr=0.1, initial_accumulator_value=0.5)
    opt.add_param_group({"params": [b], "initial_accumulator_value": 2.0})
    topt.add_param_group({"params": [tb], "initial_accumulator_value": 2.0})
    for _ in range(3):
        for o, x, y in ((opt, a, b), (topt, ta, tb)):
            o.zero_grad()
            (x * y * 3).sum().backward()
            o.step()
    assert np.allclose(b.detach().numpy(), tb.detach().numpy(), rtol=1e-6)
    assert np.allclose(opt.state[b]["sum"].numpy(), topt.state[tb]["sum"].numpy())
