"""Helpers shared by the nn tests (imported as a plain module: tests/nn is on sys.path)."""

from __future__ import annotations

import numpy as np

import arraygrad as ag
from arraygrad.autograd import gradcheck

F64 = ag.float64


def arr(t) -> np.ndarray:
    """A tensor's values as a float64 NumPy array."""
    return np.asarray(t.detach().tolist(), dtype=np.float64)


def t64(values, requires_grad=False):
    """A float64 tensor from NumPy or nested lists."""
    if isinstance(values, np.ndarray):
        values = values.tolist()
    return ag.tensor(values, dtype=F64, requires_grad=requires_grad)


def gradcheck_module(module, *inputs, atol=1e-5, rtol=1e-3):
    """gradcheck a module w.r.t. its float inputs *and* its parameters (module in float64).

    gradcheck perturbs fresh copies of its inputs, so the parameters are
    passed as inputs and swapped into ``_parameters`` for each call.
    """
    module.double()
    names = [(mod, key) for _, mod in module.named_modules()
             for key, p in mod._parameters.items() if p is not None and p.requires_grad]
    params = [mod._parameters[key] for mod, key in names]
    n = len(inputs)

    def fn(*args):
        saved = [mod._parameters[key] for mod, key in names]
        for (mod, key), value in zip(names, args[n:]):
            mod._parameters[key] = value
        try:
            return module(*args[:n])
        finally:
            for (mod, key), value in zip(names, saved):
                mod._parameters[key] = value

    leaves = [x.detach().requires_grad_(x.is_floating_point()) for x in inputs]
    leaves += [p.detach().requires_grad_(True) for p in params]
    assert gradcheck(fn, tuple(leaves), atol=atol, rtol=rtol)


def node_names(root):
    """The class names of every node reachable from ``root`` (a ``grad_fn``), with repeats."""
    seen, names, todo = set(), [], [root]
    while todo:
        node = todo.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        names.append(type(node).__name__)
        todo.extend(n for n, _ in node.next_functions)
    return names
