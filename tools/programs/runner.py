"""Running a program as ``python program.py args`` would, for ``as_torch.py`` and
``shared_stream.py``: the command line they take and the ``runpy`` call."""

from __future__ import annotations

import os
import runpy
import sys


OPTIONS = "[--seed N] [--default-dtype float64]"


def split_command(argv: list[str], tool: str) -> tuple[int | None, str, bool, list[str]]:
    """``(seed, program or module, is_module, program args)`` from
    ``[--seed N] [--default-dtype NAME] (program.py | -m module) [args...]``
    (``--default-dtype`` is applied here: ``torch.set_default_dtype`` before the program)."""
    seed = None
    argv = list(argv)
    while argv and argv[0] in ("--seed", "--default-dtype"):
        option, value, argv = argv[0], argv[1], argv[2:]
        if option == "--seed":
            seed = int(value)
        else:
            import torch

            torch.set_default_dtype(getattr(torch, value))
    if argv and argv[0] == "-m" and len(argv) > 1:
        return seed, argv[1], True, argv[2:]
    if not argv:
        sys.exit(f"usage: {tool} {OPTIONS} (program.py | -m module) [args...]")
    return seed, argv[0], False, argv[1:]


def seed_everything(seed: int) -> None:
    """Seed ``random``, NumPy's global generator (when installed) and ``torch`` (whatever
    ``import torch`` gives in this process)."""
    import random

    random.seed(seed)
    try:
        import numpy
    except ImportError:
        pass
    else:
        numpy.random.seed(seed)
    import torch

    torch.manual_seed(seed)


def run_program(target: str, args: list[str], *, seed: int | None = None,
                as_module: bool = False) -> None:
    """Run ``target`` (a path, or a module name with ``as_module``) as ``__main__`` with
    ``sys.argv[1:] == args``."""
    if seed is not None:
        seed_everything(seed)
    if as_module:
        sys.argv = [target, *args]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(target, run_name="__main__", alter_sys=True)
        return
    path = os.path.abspath(target)
    sys.argv = [target, *args]
    sys.path[0] = os.path.dirname(path)  # where ``python program.py`` puts the program's folder
    runpy.run_path(path, run_name="__main__")


if __name__ == "__main__":  # the program on whatever ``import torch`` gives (plain PyTorch)
    seed_, target_, module_, args_ = split_command(sys.argv[1:], "runner.py")
    run_program(target_, args_, seed=seed_, as_module=module_)
