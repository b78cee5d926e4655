"""Pytrees: nested tuples, lists, dicts (and None), for the ``arraygrad.func`` transforms and
``utils.checkpoint`` (it sits below both, importing nothing of arraygrad).

The transforms take and return arbitrary nestings of these containers with tensors
at the leaves, as ``torch.utils._pytree`` does: a container is a node, ``None`` is
a node without children, anything else is a leaf. ``tree_flatten`` gives the
leaves in order and a ``TreeSpec`` that ``tree_unflatten`` rebuilds the structure
from; two specs compare equal when the structures match (the check ``vjp_fn``
makes on its cotangents).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

__all__ = ["TreeSpec", "tree_flatten", "tree_unflatten", "tree_map", "tree_leaves"]


@dataclass(frozen=True)
class TreeSpec:
    """The structure of a pytree: the node's kind, its context (dict keys, the
    namedtuple class) and the specs of its children; a leaf has kind ``"leaf"``."""

    kind: str  # "leaf", "none", "tuple", "namedtuple", "list" or "dict"
    context: Any = None
    children: tuple[TreeSpec, ...] = field(default=())

    @property
    def num_leaves(self) -> int:
        """How many leaves the structure holds."""
        if self.kind == "leaf":
            return 1
        return sum(c.num_leaves for c in self.children)

    def __str__(self) -> str:
        """A short form of the structure, ``*`` standing for a leaf (as PyTorch prints it)."""
        if self.kind == "leaf":
            return "*"
        if self.kind == "none":
            return "None"
        inner = [str(c) for c in self.children]
        if self.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {v}" for k, v in zip(self.context, inner)) + "}"
        if self.kind == "list":
            return "[" + ", ".join(inner) + "]"
        if self.kind == "namedtuple":
            return f"{self.context.__name__}(" + ", ".join(inner) + ")"
        return "(" + ", ".join(inner) + ("," if len(inner) == 1 else "") + ")"


_LEAF = TreeSpec("leaf")


def _is_namedtuple(obj: Any) -> bool:
    return isinstance(obj, tuple) and hasattr(type(obj), "_fields")


def _flatten_into(tree: Any, leaves: list[Any],
                  is_leaf: Callable[[Any], bool] | None = None) -> TreeSpec:
    if is_leaf is not None and is_leaf(tree):
        leaves.append(tree)
        return _LEAF
    if tree is None:
        return TreeSpec("none")
    if isinstance(tree, dict):
        keys = tuple(tree)
        return TreeSpec("dict", keys, tuple(_flatten_into(tree[k], leaves, is_leaf)
                                            for k in keys))
    if isinstance(tree, (tuple, list)):
        if _is_namedtuple(tree):
            kind, context = "namedtuple", type(tree)
        else:
            kind, context = ("list" if isinstance(tree, list) else "tuple"), None
        return TreeSpec(kind, context, tuple(_flatten_into(c, leaves, is_leaf) for c in tree))
    leaves.append(tree)
    return _LEAF


def tree_flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None
                 ) -> tuple[list[Any], TreeSpec]:
    """The leaves of ``tree`` (depth first, dicts in their key order) and its structure;
    ``is_leaf(node)`` True stops the descent there (the node is a leaf)."""
    leaves: list[Any] = []
    spec = _flatten_into(tree, leaves, is_leaf)
    return leaves, spec


def tree_leaves(tree: Any) -> list[Any]:
    """The leaves of ``tree``, as ``tree_flatten`` orders them."""
    return tree_flatten(tree)[0]


def _build(spec: TreeSpec, leaves: Any) -> Any:
    if spec.kind == "leaf":
        return next(leaves)
    if spec.kind == "none":
        return None
    children = [_build(c, leaves) for c in spec.children]
    if spec.kind == "dict":
        return dict(zip(spec.context, children))
    if spec.kind == "list":
        return children
    if spec.kind == "namedtuple":
        return spec.context(*children)
    return tuple(children)


def tree_unflatten(leaves: Sequence[Any], spec: TreeSpec) -> Any:
    """The pytree of structure ``spec`` holding ``leaves`` (as many as ``spec`` has)."""
    if len(leaves) != spec.num_leaves:
        raise ValueError(f"tree_unflatten(leaves, treespec): `leaves` has length {len(leaves)} "
                         f"but the spec refers to a pytree that holds {spec.num_leaves} items "
                         f"({spec}).")
    return _build(spec, iter(leaves))


def tree_map(func: Callable[..., Any], tree: Any, *rests: Any,
             is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """``tree`` with ``func`` applied to every leaf (the structure kept); with ``rests``,
    pytrees of the same structure, ``func`` gets the leaves at the same place in each."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = []
    for rest in rests:
        rest_leaves, rest_spec = tree_flatten(rest, is_leaf)
        if rest_spec != spec:
            raise ValueError(f"tree_map: the pytrees differ in structure: {spec} and "
                             f"{rest_spec}")
        others.append(rest_leaves)
    return tree_unflatten([func(*xs) for xs in zip(leaves, *others)], spec)
