"""Entry point module: registers the CuPy backend, as any third-party backend would.

Registration never imports CuPy; whether CUDA works here is reported later by
``CupyBackend.is_available`` (and shows up in ``arraygrad.backends.available()``).
"""

from arraygrad.plugins import hookimpl


@hookimpl
def arraygrad_register_backends(register):
    """Register the CuPy CUDA backend (the instance for device 0)."""
    from arraygrad_cupy.backend import CupyBackend

    register(CupyBackend())


@hookimpl
def arraygrad_register_distributed(register):
    """Register the ``nccl`` process-group backend (NCCL through CuPy; imported on use)."""

    def make_world(timeout=None):
        from arraygrad_cupy.nccl import make_world as make

        return make(timeout)

    def is_available():
        # is_nccl_available(): CuPy built with NCCL (importing CuPy only when asked)
        try:
            from cupy.cuda import nccl
        except Exception:  # noqa: BLE001 - no CuPy, no CUDA, no NCCL: not available
            return False
        return bool(getattr(nccl, "available", True))

    make_world.is_available = is_available
    register("nccl", make_world)


@hookimpl
def arraygrad_conformance(register):
    """Declare the dtypes the CuPy backend lacks: CuPy has no bfloat16 dtype."""
    try:
        import array_api_compat.cupy as namespace

        has_bf16 = hasattr(namespace, "bfloat16")
    except Exception:  # no CuPy here: the backend is unavailable, and lacks it all the same
        has_bf16 = False
    lacks = {} if has_bf16 else {"bfloat16": "CuPy has no bfloat16 dtype"}
    register.backend("cupy", capabilities={"lacks": lacks})
