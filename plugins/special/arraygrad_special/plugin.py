"""The ``special`` entry point: registers the ops, their cases and the SciPy/CuPy kernels.

Loading this module imports only arraygrad and this package; SciPy and CuPy
are imported the first time one of their kernels runs.

``erf`` is the core's op (``arraygrad.special.erf``, also used by ``gelu``): this
plugin registers no second erf, only its SciPy/cupyx erf kernels, which the
core's erf runs when they are registered, and the ``Tensor.erf`` method.
"""

from __future__ import annotations

from arraygrad.plugins import hookimpl

__all__ = ["arraygrad_register_ops", "OPS"]

OPS = (
    # (op name, function attribute in arraygrad_special.ops, Tensor method or None)
    ("Tensor.erf", "erf", "erf"),  # the core's erf as a method; the function is the core's
    ("erfc", "erfc", "erfc"),
    ("erfinv", "erfinv", "erfinv"),
    ("lgamma", "lgamma", "lgamma"),
    ("gammaln", "gammaln", None),
    ("digamma", "digamma", "digamma"),
    ("psi", "psi", None),
    ("polygamma", "polygamma", None),  # polygamma(n, x): the method takes n second, below
    ("Tensor.polygamma", "tensor_polygamma", "polygamma"),
    ("i0", "i0", "i0"),
    ("i1", "i1", None),
    ("xlogy", "xlogy", "xlogy"),
    ("logit", "logit", "logit"),
    ("expit", "expit", None),  # Tensor.sigmoid already exists in the core
)
"""What is registered: op name, implementing function, ``Tensor`` method (PyTorch's)."""


@hookimpl
def arraygrad_register_ops(registry):
    """Register the special functions, their conformance cases and per-backend kernels.

    The ``erf`` kernels are for the core's ``erf`` op (``kernels.SCIPY_NAMES``).
    """
    from arraygrad_special import kernels, ops
    from arraygrad_special.cases import CASES

    for name, attr, method in OPS:
        # "Tensor.*" ops are only methods: no arraygrad.special entry
        namespace = None if name.startswith("Tensor.") else "special"
        registry.op(name, getattr(ops, attr), namespace=namespace, method=method,
                    cases=CASES.get(name, ()))
    for backend, table in (("numpy", kernels.numpy_kernels()), ("cupy", kernels.cupy_kernels())):
        for op_name, fn in table.items():
            registry.kernel(op_name, backend, fn)
