"""The one place the transforms of ``func`` built on ``vmap`` (``jacfwd``, the vectorized
``jacrev``) get it from: the batched ``vmap`` of ``func/_vmap``. (The layers below, such as
``autograd.grad(is_grads_batched=True)``, get it through ``transform_state.transform``.)
``loop_vmap`` (``_vmap_loop``, one call per sample) stays as its test oracle and the
benchmarks' "Python loop".
"""

from arraygrad.func._vmap import vmap

__all__ = ["vmap"]
