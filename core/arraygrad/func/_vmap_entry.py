"""The one place the transforms built on ``vmap`` (``jacfwd``, the vectorized ``jacrev``,
``autograd.functional.jacobian(vectorize=True)``, ``autograd.grad(is_grads_batched=True)``)
get it from: the batched ``vmap`` of ``func/_vmap``. ``loop_vmap`` (``_vmap_loop``, one call
per sample) stays as its test oracle and the benchmarks' "Python loop".
"""

from arraygrad.func._vmap import vmap

__all__ = ["vmap"]
