"""Bad calls: one random mutation of a good call, so that the error classes (and the calls
one library accepts and the other refuses) are compared too (issue 29).

The mutations, each applied where the call has something to mutate:
  dim      a dimension out of range
  shape    the second input's last size changed (non-broadcastable, mismatched inner sizes)
  dtype    the inputs as int64, bool or float32 (float-only ops, integer-only ops)
  type     the first input as a Python list instead of a tensor
  number   an integer argument (size, kernel, step, count) made 0, negative or huge
  index    an index tensor holding an out-of-range index
  keyword  an unknown keyword argument
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from tests.differential.calls import Spec

# the integer arguments a mutation may break (dims have their own mutation)
_NUMBERS = ("kernel_size", "stride", "padding", "dilation", "output_size", "k", "diagonal",
            "start_dim", "index", "shifts")


def _int_slots(kwargs: dict[str, Any]) -> list[tuple[str, Any]]:
    slots: list[tuple[str, Any]] = [
        (k, None) for k, v in kwargs.items()
        if k in _NUMBERS and isinstance(v, int) and not isinstance(v, bool)]
    for i, v in enumerate(kwargs.get("_pos", [])):
        if isinstance(v, int) and not isinstance(v, bool):
            slots.append(("_pos", i))
        elif isinstance(v, tuple) and v and all(isinstance(e, int) for e in v):
            slots.append(("_pos", i))
    return slots


def mutations(spec: Spec, shapes: list[tuple[int, ...]], kwargs: dict[str, Any]) -> list[str]:
    """The mutations that apply to this call."""
    found = ["keyword"]
    if isinstance(kwargs.get("dim"), int):
        found.append("dim")
    if spec.arity >= 2 and shapes and len(shapes) >= 2:
        found.append("shape")
    if spec.arity >= 1:
        found.append("dtype")
        if not spec.name.startswith("Tensor."):  # (an unbound method of a list: no real call)
            found.append("type")
    if _int_slots(kwargs):
        found.append("number")
    if any(isinstance(v, np.ndarray) and v.dtype == np.int64 and v.size for v in kwargs.values()):
        found.append("index")
    return found


def mutate(r: random.Random, spec: Spec, shapes: list[tuple[int, ...]], kwargs: dict[str, Any],
           dtype: str) -> tuple[list[tuple[int, ...]], dict[str, Any], str, str]:
    """One mutation of the call: the new shapes, arguments and input dtype, and its name."""
    kwargs = dict(kwargs)
    shapes = list(shapes)
    kind = r.choice(mutations(spec, shapes, kwargs))
    if kind == "keyword":
        kwargs["bogus"] = 1
    elif kind == "dim":
        nd = max(1, len(shapes[0]) if shapes else 1)
        kwargs["dim"] = r.choice([nd + r.randrange(0, 2), -nd - 1 - r.randrange(0, 2)])
    elif kind == "shape":
        last = shapes[1][-1] if shapes[1] else 2
        shapes[1] = tuple(shapes[1][:-1]) + (last + r.choice([1, 2]),)
    elif kind == "dtype":
        dtype = r.choice(["int64", "bool", "float32"])
    elif kind == "type":
        kwargs["_as_list"] = True
    elif kind == "number":
        key, i = r.choice(_int_slots(kwargs))
        bad = r.choice([0, -1, -3, 2 ** 40])
        if key == "_pos":
            pos = list(kwargs["_pos"])
            old = pos[i]
            pos[i] = (tuple(bad if j == 0 else e for j, e in enumerate(old))
                      if isinstance(old, tuple) else bad)
            kwargs["_pos"] = pos
        else:
            kwargs[key] = bad
    elif kind == "index":
        name = r.choice([k for k, v in kwargs.items()
                         if isinstance(v, np.ndarray) and v.dtype == np.int64 and v.size])
        index = kwargs[name].copy()
        index.reshape(-1)[0] = r.choice([100, -100])
        kwargs[name] = index
    return shapes, kwargs, dtype, kind
