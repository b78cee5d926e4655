"""Replacing a user's file all at once: what ``save``, ``save_safetensors`` and ONNX export
write to a path goes to a temporary file beside it, which is flushed to disk (``fsync``) and
then renamed over the target. Until the rename the old file is whole; after it the new one is.
A process killed mid-write leaves the old file as it was (and at most a stray
``<name>.<pid>-<hex>.tmp`` beside it); an error while writing removes the temporary file.

The new file keeps an existing target's permission bits (a new one gets the umask's, as a plain
``open`` gives it); a symbolic link is written through, to the file it points at, as a plain
``open`` would.
"""

from __future__ import annotations

import contextlib
import os
import stat
import uuid
from typing import IO, Iterator, Sequence

__all__ = ["atomic_write", "write_files_atomically"]


def _target(path: str | os.PathLike[str]) -> str:
    """The file a write to ``path`` replaces (a link's target, as ``open`` follows links)."""
    path = os.fspath(path)
    return os.path.realpath(path) if os.path.islink(path) else path


def _open_temporary(path: str) -> tuple[IO[bytes], str]:
    """A new file beside ``path``, opened exclusively, with ``path``'s permission bits.

    An error opening it is reported against ``path`` (the name the caller knows)."""
    tmp = f"{path}.{os.getpid()}-{uuid.uuid4().hex[:8]}.tmp"
    try:
        fh = open(tmp, "xb")  # noqa: SIM115 - closed by the callers
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror, path) from None
    try:
        os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))
    except FileNotFoundError:  # a new file: the umask's bits, which "x" gave it
        pass
    except OSError:
        fh.close()
        os.remove(tmp)
        raise
    return fh, tmp


def _sync_directory(path: str) -> None:
    """Flush the directory entry of a rename (best effort: not every system can)."""
    try:
        fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_write(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """A binary file to write ``path``'s new contents to; they replace ``path`` when the block
    ends without an error (see the module docstring), and are thrown away when it raises."""
    target = _target(path)
    fh, tmp = _open_temporary(target)
    try:
        with fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    _sync_directory(target)


def write_files_atomically(files: Sequence[tuple[str, bytes]]) -> None:
    """Write each ``(path, bytes)`` to a temporary file, flushed to disk, then rename them all:
    an error before the renames changes none of the targets."""
    temps: list[tuple[str, str]] = []
    try:
        for path, data in files:
            target = _target(path)
            fh, tmp = _open_temporary(target)
            temps.append((tmp, target))
            with fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        for tmp, target in temps:
            os.replace(tmp, target)
    except BaseException:
        for tmp, _ in temps:
            with contextlib.suppress(OSError):
                os.remove(tmp)
        raise
    for _, target in temps:
        _sync_directory(target)
