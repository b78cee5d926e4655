"""Bounds on what a weights-only load hashes: dict keys and set members from the file.

A pickle's memo lets a file share one object many times: ``t = (t, t)`` forty times is forty
small tuples that *describe* ``2**40`` leaves. Building it costs nothing, but hashing a tuple
visits every leaf (tuples do not cache their hash), so using it as a dict key or set member
would never finish; and a tuple nested a million deep crashes the interpreter when hashed (the
recursion is in C, unguarded). So before the unpickler hashes anything it measures it here,
counting each tuple's elements with repetition (memoised by identity, so the count takes time
linear in the distinct tuples) and its depth, and refuses one past the load's limits
(``ARRAYGRAD_LOAD_MAX_KEY_ELEMENTS``, ``ARRAYGRAD_LOAD_MAX_NESTING``: ``_limits``).

Only tuples (``Size`` included) need it: strings, bytes and numbers hash in linear time,
frozensets cache their hash and hash their members as they are built (each member checked
then), and other objects from a weights-only load hash by identity.
"""

from __future__ import annotations

import pickle
from collections import Counter, OrderedDict
from typing import Any, Iterable

from arraygrad.serialization._limits import LoadLimits

__all__ = ["KeyChecker"]


class KeyChecker:
    """Checks the keys one load hashes; remembers each tuple measured (tuples are immutable)."""

    def __init__(self, limits: LoadLimits) -> None:
        self._max_elements = limits.max_key_elements
        self._max_depth = limits.max_nesting
        # id -> (the tuple, kept alive so its id stays its own; elements with repetition; depth)
        self._measured: dict[int, tuple[tuple[Any, ...], int, int]] = {}

    def check(self, key: Any) -> None:
        """Refuse ``key`` (``pickle.UnpicklingError``) if hashing it would be unbounded."""
        if isinstance(key, tuple):
            self._measure(key)

    def check_all(self, keys: Iterable[Any]) -> None:
        """:meth:`check` each of ``keys``."""
        for key in keys:
            if isinstance(key, tuple):
                self._measure(key)

    def check_call(self, func: Any, args: tuple[Any, ...]) -> None:
        """Check what ``func(*args)`` would hash, for the allowed callables that hash:
        ``set``/``frozenset``/``Counter`` of an iterable, ``OrderedDict`` of pairs (a mapping's
        keys were checked when it was filled)."""
        if not args or isinstance(args[0], dict) or not isinstance(args[0], (list, tuple, set,
                                                                             frozenset)):
            return
        if func is set or func is frozenset or func is Counter:
            self.check_all(args[0])
        elif func is OrderedDict:
            self.check_all(item[0] if isinstance(item, (tuple, list)) and len(item) == 2
                           else item for item in args[0])

    def _measure(self, root: tuple[Any, ...]) -> tuple[int, int]:
        """``(elements with repetition, depth)`` of ``root``, without recursion."""
        measured = self._measured
        found = measured.get(id(root))
        if found is not None and found[0] is root:
            return found[1], found[2]
        stack: list[tuple[tuple[Any, ...], bool, int]] = [(root, False, 1)]  # node, done, level
        while stack:
            node, children_done, level = stack.pop()
            known = measured.get(id(node))
            if known is not None and known[0] is node:
                continue
            if not children_done:
                if level > self._max_depth:  # refused before going deeper
                    raise _refused(f"a dict key or set member nests tuples more than "
                                   f"ARRAYGRAD_LOAD_MAX_NESTING={self._max_depth} deep")
                stack.append((node, True, level))
                for child in node:
                    if isinstance(child, tuple):
                        known = measured.get(id(child))
                        if known is None or known[0] is not child:
                            stack.append((child, False, level + 1))
                continue
            elements, depth = len(node), 1
            for child in node:
                if isinstance(child, tuple):
                    _, child_elements, child_depth = measured[id(child)]
                    elements += child_elements
                    depth = max(depth, child_depth + 1)
            if elements > self._max_elements:
                raise _refused(f"a dict key or set member holds {elements} elements counted "
                               f"with repetition (shared through the pickle's memo), more than "
                               f"ARRAYGRAD_LOAD_MAX_KEY_ELEMENTS={self._max_elements}; hashing "
                               f"it would take that long")
            if depth > self._max_depth:
                raise _refused(f"a dict key or set member nests tuples {depth} deep, more than "
                               f"ARRAYGRAD_LOAD_MAX_NESTING={self._max_depth}")
            measured[id(node)] = (node, elements, depth)
        _, elements, depth = measured[id(root)]
        return elements, depth


def _refused(message: str) -> pickle.UnpicklingError:
    return pickle.UnpicklingError(message)
