"""The state walk lists a module tree as ``Module.modules()`` does (the walk goes through
``_modules`` itself rather than through the recursive generator)."""

from __future__ import annotations

import arraygrad as ag
from arraygrad.compiler.state import layout_of


class _Root:
    """A cell-like root (what ``roots_of`` gives)."""

    def __init__(self, value):
        self.cell_contents = value


def _tree():
    shared = ag.nn.Linear(2, 2)
    inner = ag.nn.Sequential(ag.nn.Linear(2, 3), shared, ag.nn.ReLU())
    root = ag.nn.Sequential(inner, ag.nn.Sequential(shared, ag.nn.Linear(2, 2)), shared)
    root.register_module("gone", None)  # a None child is skipped
    return root


def test_the_walk_lists_modules_and_tensors_in_modules_order():
    root = _tree()
    layout = layout_of([_Root(root)])
    assert [id(m) for m in layout.modules] == [id(m) for m in root.modules()]
    want = list(root.parameters()) + list(root.buffers())
    assert [id(t) for t in layout.base] == [id(t) for t in want]


class _Reordered(ag.nn.Module):
    """A module listing its sub-modules its own way."""

    def __init__(self):
        super().__init__()
        self.a = ag.nn.Linear(2, 2)
        self.b = ag.nn.Linear(2, 2)

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        yield prefix, self
        yield "b", self.b
        yield "a", self.a


def test_a_module_with_its_own_named_modules_is_asked_itself():
    m = _Reordered()
    layout = layout_of([_Root(ag.nn.Sequential(m))])
    assert [id(x) for x in layout.modules[1:]] == [id(m), id(m.b), id(m.a)]
