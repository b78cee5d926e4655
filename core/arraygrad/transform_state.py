"""The state of the function transforms, at the bottom of the house.

The layers below the transforms (ops, the recorder, autograd, random) read whether a
transform is running, and run the hooks a transform installs, from here; the transforms
themselves (``arraygrad.func``, ``autograd.forward_ad``, ``arraygrad.compile``) keep their
behaviour in their own modules and register it here from above. This module imports
nothing from arraygrad, so every layer may import it without a cycle.

Words: a vmap call's batch is a *level* (``vmap_levels``); forward AD's integer is a
*dual level* (PyTorch's ``fwAD.dual_level``); one call of a gradient transform (``grad``,
``vjp``, ``jacrev``) is a *scope* (``func._scope``).

Each transform has its own section below.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable

__all__ = ["find_transform", "transform", "vmap_levels", "indexed_input", "draws", "DualState",
           "dual"]


# -- the transforms themselves, for the layers below them ------------------------------------

find_transform: Callable[[str], Callable[..., Any]] | None = None
"""``arraygrad.func``'s transform of a name (``"vmap"``, ``"jacfwd"``), for the layers below it
that map with one (``autograd.grad(is_grads_batched=True)``, ``jacobian(vectorize=True)``,
``gradcheck``'s batched checks): the package root installs it when imported (its lazy
attribute ``func``: the transforms are imported on first use)."""


def transform(name: str) -> Callable[..., Any]:
    """``arraygrad.func``'s transform ``name`` (``find_transform``'s answer)."""
    if find_transform is None:  # only a module loaded without its package root gets here
        raise RuntimeError(f"arraygrad.func.{name} is not available before `import arraygrad`")
    return find_transform(name)


# -- vmap levels -------------------------------------------------------------------------------

vmap_levels: list[Any] = []
"""The ``BatchingBackend``s of the ``vmap`` calls running now, outermost first (pushed and
popped by ``arraygrad.func._vmap``, which installs the hooks below while any runs)."""

draws: Callable[[Any], Any] | None = None
"""While a ``vmap`` call runs: the native generator random ops draw from, given the
``arraygrad.Generator`` they would use (``arraygrad.random.generator_for`` asks): the
innermost call's, which draws per sample, once for all, or refuses (its ``randomness``)."""

indexed_input: Callable[[Any, tuple[Any, ...]], Any] | None = None
"""While a ``vmap`` call runs: the hook an op of the indexing family (``ops.indexed_operands``)
passes its input and its indexing operands (indices, masks, grids, sources) to, and computes
on what it returns: the input moved onto the level one of those operands is batched by, when
the input comes from outside it (``func._vmap.rules_indexing.lift_indexed``). None outside
vmap: the ops then run as they are."""


# -- forward-mode AD ---------------------------------------------------------------------------

class DualState:
    """The process-wide forward-AD state the recorder reads (``autograd.forward_ad`` opens and
    closes dual levels on it).

    ``on``: a dual level is open and tangents propagate (False while a forward rule itself
    runs, so computing a tangent does not compute tangents of tangents). ``dual_level``: the
    open dual level, -1 when none. ``tracked``: the tensors holding a tangent at that dual
    level, so that exiting it drops them. ``fast_paths``: the fast-path switch
    (``ops.rule.fast_paths``, handed in by ``ops.rule``): fast paths skip the recorder, so they
    are off while a dual level is open; ``fast_before`` is its value on entry.
    """

    __slots__ = ("on", "dual_level", "tracked", "fast_paths", "fast_before")

    def __init__(self) -> None:
        self.on = False
        self.dual_level = -1
        # by id, weakly: a WeakSet would compare tensors with ``==`` (elementwise)
        self.tracked: dict[int, weakref.ref[Any]] = {}
        self.fast_paths: Any = None
        self.fast_before = True


dual = DualState()
"""The one forward-AD state (``autograd.forward_ad.state`` is this object)."""
