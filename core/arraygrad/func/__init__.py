"""``arraygrad.func``: composable function transforms, as ``torch.func``.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd`` and
``hessian`` turn a function of
tensors (pytrees of them: nested tuples, lists, dicts) into a function computing
its derivatives; they nest (``grad(grad(f))``, ``jacrev(jacrev(f))``) and compose
with ``functional_call``, which runs a module as a function of its parameters.
``f`` sees its differentiated inputs track gradients inside the transform only:
the caller's tensors get no ``.grad``, and a tensor ``f`` captures from outside
is a constant with respect to them (``_scope`` says how).

``vmap`` batches a function over a dimension of its inputs (batching rules per
array function, ``func/_vmap``). ``jvp`` runs on forward-mode AD (``autograd.forward_ad``);
``jacrev`` maps a VJP and ``jacfwd`` a JVP over the standard basis with ``vmap``, and ``hessian`` is
``jacfwd(jacrev(f))``, forward over reverse, as PyTorch's.

>>> from arraygrad.func import grad
>>> grad(grad(lambda x: x ** 3))(arraygrad.tensor(2.))
tensor(12.)
"""

from arraygrad.func._functionalize import functionalize
from arraygrad.func._grad import grad, grad_and_value
from arraygrad.func._helpers import debug_unwrap, replace_all_batch_norm_modules_
from arraygrad.func._jacobian import hessian, jacfwd, jacrev
from arraygrad.func._jvp import jvp, linearize
from arraygrad.func._module_state import functional_call, stack_module_state
from arraygrad.func._rearrange import rearrange
from arraygrad.func._vjp import vjp
from arraygrad.func._vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian",
           "vmap", "functional_call", "stack_module_state", "functionalize", "debug_unwrap",
           "replace_all_batch_norm_modules_", "rearrange"]
