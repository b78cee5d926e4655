"""``arraygrad.utils.collect_env``: the environment report PyTorch's ``torch.utils.collect_env``
prints for bug reports, for arraygrad: its version, Python, the platform, and each backend
found with whether it works here (``python -m arraygrad.utils.collect_env``)."""

from __future__ import annotations

import importlib.metadata
import platform
import sys
from typing import NamedTuple

__all__ = ["SystemEnv", "get_env_info", "get_pretty_env_info", "main"]


class SystemEnv(NamedTuple):
    """What ``get_env_info`` gathers."""

    arraygrad_version: str
    python_version: str
    python_platform: str
    os: str
    backends: list[tuple[str, str, bool, str]]  # name, device type, usable, why not
    array_libraries: list[tuple[str, str]]  # distribution, version


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def get_env_info() -> SystemEnv:
    """The environment, gathered without running any computation."""
    import arraygrad
    from arraygrad.backends.registry import available

    libraries = [(name, v) for name in ("numpy", "cupy", "array-api-strict", "torch")
                 if (v := _version(name)) is not None]
    return SystemEnv(
        arraygrad_version=arraygrad.__version__,
        python_version=f"{sys.version.split()[0]} ({sys.maxsize.bit_length() + 1}-bit runtime)",
        python_platform=platform.platform(),
        os=f"{platform.system()} {platform.release()}",
        backends=[(b.name, b.device_type, b.available, b.reason) for b in available()],
        array_libraries=libraries)


def get_pretty_env_info() -> str:
    """``get_env_info`` as the text to paste into a bug report."""
    env = get_env_info()
    lines = [f"arraygrad version: {env.arraygrad_version}",
             f"Python version: {env.python_version}",
             f"Python platform: {env.python_platform}", f"OS: {env.os}", "", "Backends:"]
    for name, device_type, usable, reason in env.backends:
        lines.append(f"  {name} ({device_type}): " + ("available" if usable else
                                                      f"unavailable: {reason}"))
    lines += ["", "Versions of relevant libraries:"]
    lines += [f"  {name}=={version}" for name, version in env.array_libraries]
    return "\n".join(lines)


def main() -> None:
    """Print the report."""
    print("Collecting environment information...")
    print(get_pretty_env_info())


if __name__ == "__main__":
    main()
