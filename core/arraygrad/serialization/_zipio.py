"""The zip container of PyTorch checkpoints: an aligned writer and a bounded reader.

PyTorch's writer (miniz) stores every record uncompressed under one folder
``<archive>/`` and pads each local header with an extra field (id ``FB``, bytes
``Z``) so that every record's data starts on a 64-byte boundary: a storage can
then be memory-mapped in place. :class:`ZipWriter` writes the same layout
(zip64 records where sizes or offsets need them). :class:`ZipReader` reads
records through :mod:`zipfile` but checks each one's claimed size before
reading it, so a damaged or hostile archive cannot make ``load`` allocate more
than the file holds.
"""

from __future__ import annotations

import binascii
import copy
import struct
import zipfile
from typing import IO

from arraygrad.serialization._limits import MAX_DEFLATE_RATIO, load_limits

__all__ = ["ZipWriter", "ZipReader", "ALIGNMENT", "MAX_DEFLATE_RATIO"]

ALIGNMENT = 64
"""Record data starts at a multiple of this many bytes, as PyTorch's writer pads it."""

# PyTorch never compresses records, but a checkpoint re-zipped by another tool may be deflated,
# which PyTorch still reads. Weights barely compress, so a deflated record that claims more than
# ``max_deflate_ratio`` (``_limits``) times its compressed size is refused as a zip bomb
# (DEFLATE itself allows about 1032 times: a 50 KB record could claim 50 MB). A record is
# inflated in chunks of this many bytes, so one that lies about its size costs no more than it
# claims.
_CHUNK = 1 << 20

_U32 = 0xFFFFFFFF
_U16 = 0xFFFF


class ZipWriter:
    """Writes stored (uncompressed), 64-byte aligned records to ``out``, then the directory.

    Offsets count from where this writer started, as PyTorch's writer does.
    """

    def __init__(self, out: IO[bytes], archive: str) -> None:
        self._out = out
        self._archive = archive
        self._pos = 0
        self._entries: list[tuple[bytes, int, int, int]] = []  # name, crc, size, offset

    def _write(self, data: bytes | memoryview) -> None:
        self._out.write(data)
        self._pos += len(data)

    def write_record(self, name: str, data: bytes | memoryview) -> None:
        """Add ``<archive>/<name>`` holding ``data``."""
        fname = f"{self._archive}/{name}".encode("utf-8")
        size = len(data)
        from arraygrad.serialization._options import get_crc32_options

        crc = binascii.crc32(data) & _U32 if get_crc32_options() else 0  # set_crc32_options
        offset = self._pos
        zip64 = size >= _U32
        extra = struct.pack("<HHQQ", 1, 16, size, size) if zip64 else b""
        # pad the extra field so the data begins on an ALIGNMENT boundary
        start = offset + 30 + len(fname) + len(extra) + 4
        pad = -start % ALIGNMENT
        extra += struct.pack("<HH", 0x4246, pad) + b"Z" * pad  # 0x4246: "FB", as PyTorch
        flags = 0x0800  # names are UTF-8
        small = _U32 if zip64 else size
        self._write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 45 if zip64 else 20, flags, 0, 0,
                                0x21, crc, small, small, len(fname), len(extra)))
        self._write(fname)
        self._write(extra)
        self._write(data)
        self._entries.append((fname, crc, size, offset))

    def close(self) -> None:
        """Write the central directory and end records (zip64 ones where needed)."""
        cd_start = self._pos
        for fname, crc, size, offset in self._entries:
            fields = []
            if size >= _U32:
                fields += [size, size]
            if offset >= _U32:
                fields.append(offset)
            extra = struct.pack(f"<HH{len(fields)}Q", 1, 8 * len(fields), *fields) if fields \
                else b""
            self._write(struct.pack(
                "<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E, 45 if fields else 20, 0x0800, 0, 0,
                0x21, crc, _U32 if size >= _U32 else size, _U32 if size >= _U32 else size,
                len(fname), len(extra), 0, 0, 0, 0, _U32 if offset >= _U32 else offset))
            self._write(fname)
            self._write(extra)
        cd_size = self._pos - cd_start
        count = len(self._entries)
        if count >= _U16 or cd_start >= _U32 or cd_size >= _U32:
            eocd64 = self._pos
            self._write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, count,
                                    count, cd_size, cd_start))
            self._write(struct.pack("<IIQI", 0x07064B50, 0, eocd64, 1))
        self._write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, min(count, _U16),
                                min(count, _U16), min(cd_size, _U32), min(cd_start, _U32), 0))


def _bad(msg: str) -> RuntimeError:
    return RuntimeError(f"PytorchStreamReader failed reading zip archive: {msg}")


class ZipReader:
    """The records of a PyTorch checkpoint archive, each read only after its size is checked.

    ``size`` is the archive's length in bytes: no record may claim more (stored) or more than
    ``max_deflate_ratio`` times its compressed size (deflated, ``_limits``), none may inflate
    past what it claims, and records read together may not overlap to count the same bytes
    twice.
    """

    def __init__(self, fileobj: IO[bytes], size: int, max_deflate_ratio: int | None = None) -> None:
        self._size = size
        self._ratio = load_limits().max_deflate_ratio if max_deflate_ratio is None \
            else max_deflate_ratio
        self._budget = size  # compressed bytes left to read: overlapping records exhaust it
        try:
            self._zip = zipfile.ZipFile(fileobj)
            names = self._zip.namelist()
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError,
                struct.error, NotImplementedError, UnicodeDecodeError) as exc:
            raise _bad(f"failed finding central directory ({exc})") from None
        if not names:
            raise _bad("the archive holds no records")
        prefix = names[0].split("/", 1)[0]
        if "/" not in names[0] or not prefix:
            raise _bad(f"file in archive is not in a subdirectory: {names[0]}")
        self.archive = prefix
        self._names = set(names)

    def has_record(self, name: str) -> bool:
        """Whether ``<archive>/<name>`` exists."""
        return f"{self.archive}/{name}" in self._names

    def names(self) -> list[str]:
        """All record names, without the archive folder."""
        cut = len(self.archive) + 1
        return [n[cut:] for n in self._zip.namelist() if n.startswith(self.archive + "/")]

    def record_size(self, name: str) -> int:
        """The uncompressed size ``<archive>/<name>`` claims (not yet checked against anything)."""
        return self._info(name).file_size

    def _info(self, name: str) -> zipfile.ZipInfo:
        try:
            return self._zip.getinfo(f"{self.archive}/{name}")
        except KeyError:
            raise _bad(f"file not found: {self.archive}/{name}") from None

    def read(self, name: str, expected_size: int | None = None) -> bytes:
        """The bytes of ``<archive>/<name>`` (exactly ``expected_size`` of them, if given)."""
        info = self._info(name)
        if expected_size is not None and info.file_size != expected_size:
            raise RuntimeError(
                f"arraygrad.load: record {name} holds {info.file_size} bytes where the "
                f"checkpoint's pickle expects {expected_size} (truncated or corrupt file)")
        if info.compress_type == zipfile.ZIP_STORED:
            if info.file_size != info.compress_size or info.file_size > self._size:
                raise _bad(f"record {name} claims {info.file_size} bytes, more than the "
                           f"{self._size}-byte file holds")
        elif info.compress_type == zipfile.ZIP_DEFLATED:
            if info.file_size > self._ratio * info.compress_size + 4096:
                raise _bad(f"record {name} claims {info.file_size} bytes from "
                           f"{info.compress_size} compressed ones, more than "
                           f"ARRAYGRAD_LOAD_MAX_DEFLATE_RATIO={self._ratio} times (a zip bomb?)")
        else:
            raise _bad(f"record {name} uses unsupported compression method "
                       f"{info.compress_type}")
        self._budget -= info.compress_size
        if self._budget < 0:
            raise _bad("records overlap (their compressed sizes add up to more than the file)")
        if info.CRC == 0 and info.file_size:
            # written with set_crc32_options(False) (a CRC of 0): read without checking it,
            # as PyTorch's reader does
            info = copy.copy(info)
            del info.CRC
        try:
            with self._zip.open(info) as fh:
                if info.compress_type == zipfile.ZIP_STORED:  # bounded by the file: one read
                    data = fh.read(info.file_size)
                else:
                    data = _inflated(fh, info.file_size)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, struct.error,
                NotImplementedError) as exc:
            raise _bad(f"invalid record {name} ({exc})") from None
        except Exception as exc:  # zlib.error and friends from a corrupt compressed record
            if type(exc).__module__ in ("zlib", "zipfile"):
                raise _bad(f"invalid record {name} ({exc})") from None
            raise
        if len(data) != info.file_size:
            raise _bad(f"record {name} is truncated: {len(data)} of {info.file_size} bytes")
        return data

    def close(self) -> None:
        """Release the zipfile handle (the caller closes the underlying file)."""
        self._zip.close()


def _inflated(fh: IO[bytes], claimed: int) -> bytes:
    """A deflated record's bytes, inflated a chunk at a time. ``zipfile`` stops at the size a
    record claims (and then checks its CRC), but its ``read()`` first inflates everything
    compressed: a record claiming 4 KB could take gigabytes on the way."""
    chunks: list[bytes] = []
    got = 0
    while got < claimed:
        chunk = fh.read(min(_CHUNK, claimed - got))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)
