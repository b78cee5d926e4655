"""The one place the transforms built on ``vmap`` (``jacfwd``, the vectorized ``jacrev``,
``autograd.functional.jacobian(vectorize=True)``, ``autograd.grad(is_grads_batched=True)``)
get it from.

For now this is the loop-and-stack ``loop_vmap`` (``_vmap_loop``): same arguments, results
and errors as ``torch.func.vmap``, one call per sample. When the batched ``vmap``
(``func/_vmap``) lands, the import below switches to it and nothing else changes;
``loop_vmap`` stays as its test oracle and the benchmarks' "Python loop".
"""

from arraygrad.func._vmap_loop import loop_vmap as vmap

__all__ = ["vmap"]
