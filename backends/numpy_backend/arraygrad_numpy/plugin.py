"""Entry point module: registers the NumPy backend, as any third-party backend would."""

from arraygrad.plugins import hookimpl


@hookimpl
def arraygrad_register_backends(register):
    """Register the NumPy CPU backend (and keep NumPy's large temporaries in the C heap:
    ``malloc_tuning``)."""
    from arraygrad_numpy.backend import NumpyBackend
    from arraygrad_numpy.malloc_tuning import tune_malloc

    tune_malloc()
    register(NumpyBackend())


@hookimpl
def arraygrad_conformance(register):
    """Declare the dtypes the NumPy backend lacks: bfloat16 without the ml_dtypes package."""
    from arraygrad_numpy.low_precision import BF16, MISSING_REASON

    register.backend("numpy", capabilities={"lacks": {} if BF16 is not None else
                                            {"bfloat16": MISSING_REASON}})
