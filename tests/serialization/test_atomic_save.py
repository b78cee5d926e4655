"""Atomic saves (issue 29, "Checkpoint files"): ``save`` and ``save_safetensors`` to a path write
a temporary file beside it, flush it to disk and rename it over the target, so a process
killed mid-write leaves the old checkpoint whole. The kill is real: a child process saving
over an existing checkpoint sends itself SIGKILL after some bytes are written (a timeout ends
the test if the child hangs)."""

from __future__ import annotations

import io
import os
import re
import signal
import stat
import subprocess
import sys
import textwrap

import pytest

import arraygrad as ag
from arraygrad.serialization import _zipio

_KILL_CHECKPOINT = textwrap.dedent("""
    import os, signal, sys
    import arraygrad as ag
    from arraygrad.serialization import _zipio

    limit, written = int(sys.argv[2]), [0]
    write = _zipio.ZipWriter._write

    def killing_write(self, data):
        if written[0] + len(data) > limit:  # write up to the limit, make it reach the disk, die
            self._out.write(bytes(data)[:limit - written[0]])
            self._out.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        written[0] += len(data)
        write(self, data)

    _zipio.ZipWriter._write = killing_write
    ag.save({"w": ag.full((256, 256), 7.0), "step": 2}, sys.argv[1])
""")

_KILL_SAFETENSORS = textwrap.dedent("""
    import os, signal, sys
    import arraygrad as ag
    from arraygrad.serialization import safetensors as st

    encoded = st._encoded

    class Parts(list):
        def __iter__(self):  # the header is written, then the process dies
            for i, part in enumerate(list.__iter__(self)):
                if i == 2:
                    os.kill(os.getpid(), signal.SIGKILL)
                yield part

    st._encoded = lambda *args: Parts(encoded(*args))
    ag.save_safetensors({"w": ag.full((256, 256), 7.0)}, sys.argv[1])
""")


def _killed_child(script: str, path, *args) -> None:
    done = subprocess.run([sys.executable, "-c", script, str(path), *map(str, args)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stderr[-2000:])


def _others(path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name != path.name)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_save_killed_midway_leaves_the_old_checkpoint_whole(tmp_path):
    path = tmp_path / "model.pt"
    old = {"w": ag.arange(12.0).reshape(3, 4), "step": 1}
    ag.save(old, path)
    before = path.read_bytes()
    _killed_child(_KILL_CHECKPOINT, path, 100_000)  # the new file would be ~262 KB
    assert path.read_bytes() == before
    loaded = ag.load(path)
    assert loaded["step"] == 1 and ag.equal(loaded["w"], old["w"])
    # at most the killed writer's temporary file is left beside it
    strays = _others(path)
    assert len(strays) <= 1 and all(re.fullmatch(r"model\.pt\.\d+-[0-9a-f]{8}\.tmp", s)
                                    for s in strays), strays


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_safetensors_save_killed_midway_leaves_the_old_file_whole(tmp_path):
    path = tmp_path / "model.safetensors"
    ag.save_safetensors({"w": ag.arange(6.0)}, path)
    before = path.read_bytes()
    _killed_child(_KILL_SAFETENSORS, path)
    assert path.read_bytes() == before
    assert ag.load(path)["w"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_an_error_while_writing_changes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "model.pt"
    ag.save({"a": ag.ones(3)}, path)
    before = path.read_bytes()
    calls = []

    def failing(self, name, data):
        calls.append(name)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return write(self, name, data)

    write = _zipio.ZipWriter.write_record
    monkeypatch.setattr(_zipio.ZipWriter, "write_record", failing)
    with pytest.raises(OSError, match="No space left"):
        ag.save({"a": ag.zeros(3)}, path)
    assert path.read_bytes() == before and _others(path) == []  # the temporary file is gone


def test_permissions_and_links_are_kept(tmp_path):
    path = tmp_path / "model.pt"
    ag.save({"a": ag.ones(2)}, path)
    os.chmod(path, 0o640)
    ag.save({"a": ag.zeros(2)}, path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    link = tmp_path / "latest.pt"
    link.symlink_to(path)
    ag.save({"a": ag.full((2,), 3.0)}, link)  # written through the link, as open() would
    assert link.is_symlink() and ag.load(path)["a"].tolist() == [3.0, 3.0]
    ag.save_safetensors({"a": ag.ones(1)}, link)
    assert link.is_symlink() and ag.load(path)["a"].tolist() == [1.0]


def test_file_objects_are_written_in_place():
    buf = io.BytesIO(b"prefix")
    buf.seek(6)
    ag.save({"a": ag.arange(3)}, buf)
    assert buf.getvalue()[:6] == b"prefix"
    buf.seek(6)
    assert ag.load(buf)["a"].tolist() == [0, 1, 2]


def _save_error(save, path) -> BaseException:
    with pytest.raises(Exception) as info:
        save(path)
    return info.value


def test_unwritable_paths_give_pytorchs_errors(tmp_path):
    missing = tmp_path / "no_such_dir" / "model.pt"
    error = _save_error(lambda p: ag.save({"a": ag.ones(1)}, p), missing)
    assert type(error) is RuntimeError
    assert str(error) == f"Parent directory {missing.parent} does not exist."
    error = _save_error(lambda p: ag.save({"a": ag.ones(1)}, p), tmp_path)
    assert type(error) is RuntimeError and "Is a directory" in str(error)
    torch = pytest.importorskip("torch")
    theirs = _save_error(lambda p: torch.save({"a": torch.ones(1)}, p), missing)
    assert type(theirs) is RuntimeError and str(theirs) == str(
        _save_error(lambda p: ag.save({"a": ag.ones(1)}, p), missing))


def test_a_read_only_directory_gives_pytorchs_error(tmp_path):
    folder = tmp_path / "read_only"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        if os.access(folder, os.W_OK):
            pytest.skip("this user can write a read-only directory (root)")
        error = _save_error(lambda p: ag.save({"a": ag.ones(1)}, p), folder / "model.pt")
        assert type(error) is RuntimeError
        assert "open file failed with strerror: Permission denied" in str(error)
        assert _others(folder / "model.pt") == []
    finally:
        folder.chmod(0o755)
