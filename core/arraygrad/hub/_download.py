"""Downloading into the hub's cache: ``download_url_to_file``, ``load_state_dict_from_url``,
the cache directory (``get_dir``/``set_dir``) and the progress bar (``tqdm``), as
``torch.hub`` has them.

Any URL ``urllib`` opens works: ``https://``, ``http://`` and ``file://``. The file is written
to a ``.partial`` name beside its destination and moved into place only when complete (and,
when a hash prefix is given, only when its SHA-256 starts with it), so a broken download never
replaces a good checkpoint.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import sys
import tempfile
import uuid
import warnings
import zipfile
from typing import Any
from urllib.parse import urlparse
from urllib.request import Request, urlopen

from arraygrad.serialization import MapLocation

HASH_REGEX = re.compile(r"-([a-f0-9]*)\.")  # bfd8deac from resnet18-bfd8deac.pth
ENV_GITHUB_TOKEN = "GITHUB_TOKEN"
ENV_TORCH_HOME = "TORCH_HOME"
ENV_XDG_CACHE_HOME = "XDG_CACHE_HOME"
DEFAULT_CACHE_DIR = "~/.cache"
READ_DATA_CHUNK = 128 * 1024
_PATH_SEP_PATTERN = re.compile(r"[/\\]")
_hub_dir: list[str | None] = [None]  # set_dir's choice, None for the environment's


class _Faketqdm:
    """The progress bar used when the ``tqdm`` package is absent (as PyTorch's): a percentage
    written to stderr."""

    def __init__(self, total: int | None = None, disable: bool = False, unit: str | None = None,
                 *args: Any, **kwargs: Any) -> None:
        self.total = total
        self.disable = disable
        self.n = 0

    def update(self, n: int) -> None:
        """Advance by ``n`` units."""
        if self.disable:
            return
        self.n += n
        if self.total is None:
            sys.stderr.write(f"\r{self.n:.1f} bytes")
        else:
            sys.stderr.write(f"\r{100 * self.n / float(self.total):.1f}%")
        sys.stderr.flush()

    def set_description(self, *args: Any, **kwargs: Any) -> None:
        """Accepted and ignored, as PyTorch's fallback does."""

    def write(self, s: str) -> None:
        """Write a line to stderr."""
        sys.stderr.write(f"{s}\n")

    def close(self) -> None:
        """Stop drawing."""
        self.disable = True

    def __enter__(self) -> "_Faketqdm":
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.disable:
            sys.stderr.write("\n")


def _progress_bar() -> Any:
    try:
        from tqdm import tqdm as real
    except ImportError:
        return _Faketqdm
    return real


tqdm: Any = _progress_bar()  # the real progress bar when installed, as in PyTorch


def _get_torch_home() -> str:
    return os.path.expanduser(os.getenv(
        ENV_TORCH_HOME, os.path.join(os.getenv(ENV_XDG_CACHE_HOME, DEFAULT_CACHE_DIR), "torch")))


def get_dir() -> str:
    """The hub's cache directory: what ``set_dir`` chose, else ``$TORCH_HOME/hub``, where
    ``$TORCH_HOME`` defaults to ``$XDG_CACHE_HOME/torch`` and ``$XDG_CACHE_HOME`` to
    ``~/.cache`` (PyTorch's directory: a cache shared with PyTorch)."""
    if os.getenv("TORCH_HUB"):
        warnings.warn("TORCH_HUB is deprecated, please use env TORCH_HOME instead", stacklevel=2)
    chosen = _hub_dir[0]
    if chosen is not None:
        return chosen
    return os.path.join(_get_torch_home(), "hub")


def set_dir(d: str | os.PathLike[str]) -> None:
    """Use directory ``d`` as the hub's cache from now on."""
    _hub_dir[0] = os.path.expanduser(d)


def download_url_to_file(url: str, dst: str, hash_prefix: str | None = None,
                         progress: bool = True) -> None:
    """Download the object at ``url`` to the local path ``dst``.

    ``hash_prefix``: when given, the SHA-256 of the download must start with it, else
    RuntimeError and ``dst`` is left as it was. ``progress`` draws a progress bar on stderr.
    """
    dst = os.path.expanduser(dst)
    for _ in range(tempfile.TMP_MAX):
        tmp_dst = dst + "." + uuid.uuid4().hex + ".partial"
        try:
            f = open(tmp_dst, "w+b")  # noqa: SIM115 - closed in finally
        except FileExistsError:
            continue
        break
    else:
        raise FileExistsError(17, "No usable temporary file name found")
    request = Request(url, headers={"User-Agent": "torch.hub"})
    try:
        with urlopen(request) as u:
            lengths = u.info().get_all("Content-Length")
            file_size = int(lengths[0]) if lengths else None
            sha256 = hashlib.sha256() if hash_prefix is not None else None
            with tqdm(total=file_size, disable=not progress, unit="B", unit_scale=True,
                      unit_divisor=1024) as pbar:
                while True:
                    buffer = u.read(READ_DATA_CHUNK)
                    if len(buffer) == 0:
                        break
                    f.write(buffer)
                    if sha256 is not None:
                        sha256.update(buffer)
                    pbar.update(len(buffer))
            f.close()
            if sha256 is not None and hash_prefix is not None:
                digest = sha256.hexdigest()
                if digest[:len(hash_prefix)] != hash_prefix:
                    raise RuntimeError(
                        f'invalid hash value (expected "{hash_prefix}", got "{digest}")')
        shutil.move(f.name, dst)
    finally:
        f.close()
        if os.path.exists(f.name):
            os.remove(f.name)


def safe_extract_zip(zip_file: zipfile.ZipFile, extract_to: str) -> None:
    """Extract every member of ``zip_file`` under ``extract_to``, refusing (ValueError) an
    absolute path or one that climbs out of it (zip-slip)."""
    from pathlib import Path

    root = Path(extract_to).resolve(strict=False)
    for member in zip_file.infolist():
        filename = os.path.normpath(member.filename)
        if filename.startswith(("/", "\\")) or (
                len(filename) >= 2 and filename[1] == ":" and filename[0].isalpha()):
            raise ValueError(f"Archive entry has absolute path: {member.filename}")
        if ".." in re.split(_PATH_SEP_PATTERN, filename):
            raise ValueError(f"Archive entry contains directory traversal: {member.filename}")
        if not (root / filename).resolve(strict=False).is_relative_to(root):
            raise ValueError(f"Archive entry escapes target directory: {member.filename}")
        zip_file.extract(member, root)


def _is_legacy_zip_format(filename: str) -> bool:
    """A zip holding one file (what PyTorch < 1.6 users zipped by hand), not a checkpoint."""
    if zipfile.is_zipfile(filename):
        with zipfile.ZipFile(filename) as zf:
            infolist = zf.infolist()
        return len(infolist) == 1 and not infolist[0].is_dir()
    return False


def _legacy_zip_load(filename: str, model_dir: str, map_location: MapLocation,
                     weights_only: bool) -> Any:
    from arraygrad.serialization import load

    warnings.warn("Falling back to the old format < 1.6. This support will be deprecated in "
                  "favor of default zipfile format introduced in 1.6. Please redo torch.save() "
                  "to save it in the new zipfile format.", FutureWarning, stacklevel=3)
    with zipfile.ZipFile(filename) as f:
        members = f.infolist()
        if len(members) != 1:
            raise RuntimeError("Only one file(not dir) is allowed in the zipfile")
        safe_extract_zip(f, model_dir)
        extracted_file = os.path.join(model_dir, members[0].filename)
    return load(extracted_file, map_location=map_location, weights_only=weights_only)


def load_state_dict_from_url(url: str, model_dir: str | None = None,
                             map_location: MapLocation = None, progress: bool = True,
                             check_hash: bool = False, file_name: str | None = None,
                             weights_only: bool = False) -> dict[str, Any]:
    """Load the checkpoint at ``url``, downloading it into ``model_dir`` (default
    ``<get_dir()>/checkpoints``) unless a file of that name is there already.

    ``check_hash``: the file name must read ``name-<sha256 prefix>.ext`` and the download's
    SHA-256 must start with that prefix. ``file_name`` replaces the URL's file name.
    ``map_location`` and ``weights_only`` go to ``arraygrad.load`` (PyTorch's default here is
    ``weights_only=False``, which unpickles anything: pass True for files you do not trust).
    """
    from arraygrad.serialization import load

    if os.getenv("TORCH_MODEL_ZOO"):
        warnings.warn("TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead",
                      stacklevel=2)
    if model_dir is None:
        model_dir = os.path.join(get_dir(), "checkpoints")
    os.makedirs(model_dir, exist_ok=True)
    filename = os.path.basename(urlparse(url).path)
    if file_name is not None:
        filename = file_name
    cached_file = os.path.join(model_dir, filename)
    if not os.path.exists(cached_file):
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        hash_prefix = None
        if check_hash:
            match = HASH_REGEX.search(filename)
            hash_prefix = match.group(1) if match else None
        download_url_to_file(url, cached_file, hash_prefix, progress=progress)
    if _is_legacy_zip_format(cached_file):
        return _legacy_zip_load(cached_file, model_dir, map_location, weights_only)
    return load(cached_file, map_location=map_location, weights_only=weights_only)
