"""PyTorch's backend names and their availability: ``Backend``, ``BackendConfig``,
``is_backend_available``, ``is_gloo_available`` and the like, ``get_default_backend_for_device``.

What is available is what arraygrad can run: a backend registered through the
``arraygrad_register_distributed`` hook whose factory says it can work here (a
factory may carry an ``is_available()``; ``mpi``'s asks for mpi4py, ``nccl``'s for
CuPy's NCCL). ``gloo``, ``ucc`` and ``xccl`` are PyTorch's C++ libraries: never
available. The CPU default is ``mpi`` (PyTorch's is ``gloo``).
"""

from __future__ import annotations

from typing import Any

from arraygrad.distributed.registry import backend_factories

__all__ = ["Backend", "BackendConfig", "get_default_backend_for_device", "is_backend_available",
           "is_gloo_available", "is_nccl_available", "is_ucc_available", "is_xccl_available"]


class Backend(str):
    """A backend's name, as PyTorch's ``Backend``: ``Backend("MPI") == Backend.MPI == "mpi"``.

    ``Backend(name)`` is the lower-case name (a plain ``str``, as in PyTorch); the class
    attributes are the names PyTorch knows, ``backend_list`` every one of them, and
    ``default_device_backend_map`` the backend each device type uses by default.
    """

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    XCCL = "xccl"
    FAKE = "fake"

    backend_list = [UNDEFINED, GLOO, NCCL, XCCL, UCC, MPI, FAKE]
    # arraygrad's defaults: MPI on the host (PyTorch: gloo), NCCL on CUDA devices
    default_device_backend_map: dict[str, str] = {"cpu": MPI, "cuda": NCCL}
    backend_capability: dict[str, list[str]] = {
        GLOO: ["cpu", "cuda"], NCCL: ["cuda"], XCCL: ["xpu"], UCC: ["cpu", "cuda"],
        MPI: ["cpu", "cuda"], FAKE: ["cpu", "cuda", "hpu", "xpu"],
    }

    def __new__(cls, name: str) -> Any:  # noqa: D102 - PyTorch's: a plain lower-case str
        if not isinstance(name, str):
            raise ValueError("Backend constructor parameter must be string-ish")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return value


_FORMAT = ("The custom backend string argument is invalid: {0}.\n"
           "                Custom backend string is an experimental feature where the "
           "backend string must be in the format:\n"
           "                \"<device_type1>:<backend1>,<device_type2>:<backend2>...\". "
           "e.g. 'cpu:gloo,cuda:nccl'")


class BackendConfig:
    """Which backend each device type uses: ``BackendConfig("mpi")`` is ``cpu:mpi,cuda:mpi``.

    A single name covers the devices its backend serves (``Backend.backend_capability``);
    ``"cpu:mpi,cuda:nccl"`` names them one by one; ``"undefined"`` takes the default
    backend of the device arraygrad computes on.
    """

    def __init__(self, backend: str) -> None:
        self.device_backend_map: dict[str, str] = {}
        name = str(backend)
        if name == Backend.UNDEFINED:
            device = "cuda" if _cuda_available() else "cpu"
            self.device_backend_map[device] = Backend(Backend.default_device_backend_map[device])
        elif name.lower() in Backend.backend_list:
            self.device_backend_map = dict.fromkeys(Backend.backend_capability[name.lower()],
                                                    Backend(name))
        elif ":" in name:
            for pair in name.lower().split(","):
                parts = pair.split(":")
                if len(parts) != 2:
                    raise ValueError(f"Invalid device:backend pairing: {pair}. "
                                     + _FORMAT.format(name))
                device, value = parts
                if device in self.device_backend_map:
                    raise ValueError(f"Duplicate device type {device} in backend string: "
                                     f"{value}. " + _FORMAT.format(name))
                self.device_backend_map[device] = Backend(value)
        else:  # a plugin's backend: PyTorch assumes it serves the default devices
            self.device_backend_map = dict.fromkeys(("cpu", "cuda", "xpu"), Backend(name))

    def __repr__(self) -> str:
        return ",".join(f"{d}:{b}" for d, b in self.device_backend_map.items())

    def get_device_backend_map(self) -> dict[str, str]:
        """The backend of each device type."""
        return self.device_backend_map


def _cuda_available() -> bool:
    from arraygrad import cuda

    return bool(cuda.is_available())


def _single_available(name: str) -> bool:
    factory = backend_factories().get(name.lower())
    if factory is None:
        return False
    check = getattr(factory, "is_available", None)
    return bool(check()) if callable(check) else True


def is_backend_available(backend: str) -> bool:
    """Whether arraygrad can run ``backend`` here (``"cpu:mpi,cuda:nccl"``: every part)."""
    if ":" in backend.lower():
        config = BackendConfig(Backend(backend))
        return all(_single_available(str(b)) for b in config.get_device_backend_map().values())
    return _single_available(backend)


def is_gloo_available() -> bool:
    """False: Gloo is PyTorch's C++ library; arraygrad's host backend is ``mpi``."""
    return _single_available(Backend.GLOO)


def is_nccl_available() -> bool:
    """Whether the ``nccl`` backend (the CuPy backend's plugin, CuPy's NCCL) can run here."""
    return _single_available(Backend.NCCL)


def is_ucc_available() -> bool:
    """False unless a plugin registers a working ``ucc`` backend (PyTorch's is C++)."""
    return _single_available(Backend.UCC)


def is_xccl_available() -> bool:
    """False unless a plugin registers a working ``xccl`` backend (Intel GPUs)."""
    return _single_available(Backend.XCCL)


def get_default_backend_for_device(device: Any) -> str:
    """The default backend of ``device``'s type: ``"mpi"`` for ``"cpu"``, ``"nccl"`` for CUDA."""
    from arraygrad.device import device as make_device

    kind = device.type if hasattr(device, "type") else make_device(device).type
    backend = Backend.default_device_backend_map.get(kind)
    if backend is None:
        raise ValueError(f"Default backend not registered for device : {device}")
    return backend
