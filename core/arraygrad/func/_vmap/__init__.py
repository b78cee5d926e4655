"""``vmap`` with real batching: a batching backend whose arrays carry the batch dimension.

Files: ``_batched`` (``BatchedArray``, the level, PyTorch's vmap messages), ``_table`` (the
batching rule table and its helpers), ``rules_*`` (the rules, one file per family),
``_fallback`` (the loop-and-stack fallback), ``_namespace`` (the batching namespace and
``BatchingBackend``), ``_wrap`` (moving tensors in and out of a level as recorded ops),
``_api`` (``vmap``).
docs/vmap.md explains the design.
"""

from arraygrad.func._vmap import (  # noqa: F401 - importing registers the rules
    rules_elementwise, rules_indexing, rules_linalg, rules_reduction, rules_shape,
)
from arraygrad.func._vmap._api import vmap
from arraygrad.func._vmap._fallback import fallback_functions
from arraygrad.func._vmap._namespace import BatchingBackend

__all__ = ["vmap", "BatchingBackend", "fallback_functions"]
