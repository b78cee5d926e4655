"""Run a PyTorch program unchanged on arraygrad: ``import torch`` gives arraygrad.

    python tools/programs/as_torch.py [--seed N] program.py [args...]
    python tools/programs/as_torch.py [--seed N] -m package.module [args...]

An import hook (a meta path finder at the front of ``sys.meta_path``) answers every import
of ``torch`` or ``torch.<sub>`` with arraygrad's module of the same dotted name: ``torch`` is
``arraygrad``, ``torch.nn.functional`` is ``arraygrad.nn.functional`` (the very module object,
so ``torch.nn.Module is arraygrad.nn.Module``). A ``torch.*`` module arraygrad lacks raises
ModuleNotFoundError naming both, and the real PyTorch, even where installed, is never loaded.
The program's own modules and any package that imports torch go through the same hook.

The program runs as ``python program.py args`` would run it (``runpy``: ``__name__`` is
``"__main__"``, ``sys.argv[0]`` is the program, its folder first on ``sys.path``).
``--seed N`` seeds Python's ``random``, NumPy's global generator and ``torch`` before the
program starts, for programs that do not seed themselves.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from typing import Sequence

ALIAS, TARGET = "torch", "arraygrad"


class TorchAsArraygrad(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The meta path finder and loader mapping ``torch[.x.y]`` to ``arraygrad[.x.y]``."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        """A spec for ``torch`` and its submodules (None for every other name)."""
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        target_name = TARGET + fullname[len(ALIAS):]
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as e:
            if e.name is not None and (target_name == e.name
                                       or target_name.startswith(e.name + ".")):
                raise ModuleNotFoundError(
                    f"No module named {fullname!r} (run as arraygrad: arraygrad has no "
                    f"{target_name!r})", name=fullname) from None
            raise
        return importlib.machinery.ModuleSpec(fullname, self,
                                              is_package=hasattr(module, "__path__"))

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        """arraygrad's module itself (already imported by ``find_spec``)."""
        return sys.modules[TARGET + spec.name[len(ALIAS):]]

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the arraygrad module is loaded."""


def install() -> TorchAsArraygrad:
    """Put the hook first on ``sys.meta_path`` (once), forgetting any torch already imported."""
    for finder in sys.meta_path:
        if isinstance(finder, TorchAsArraygrad):
            return finder
    for name in [n for n in sys.modules if n == ALIAS or n.startswith(ALIAS + ".")]:
        del sys.modules[name]
    finder = TorchAsArraygrad()
    sys.meta_path.insert(0, finder)
    return finder


def main(argv: list[str] | None = None) -> None:
    """``as_torch.py [--seed N] (program.py | -m module) [args...]``."""
    import os

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from runner import run_program, split_command

    install()
    seed, target, module, args = split_command(sys.argv[1:] if argv is None else argv,
                                               "as_torch.py")
    run_program(target, args, seed=seed, as_module=module)


if __name__ == "__main__":
    main()
