"""``arraygrad.save`` / ``arraygrad.load`` in PyTorch's checkpoint format, loaded safely.

``save(obj, f)`` writes what ``torch.save`` writes (a zip archive with ``data.pkl`` and
raw storages; ``_checkpoint.py`` documents the layout), so PyTorch loads it, and
``load(f)`` reads PyTorch's files without PyTorch installed. By default ``load`` is
*weights only*: a restricted unpickler (``_unpickler.py``) that builds tensors,
containers, numbers and strings and refuses every other global with
``pickle.UnpicklingError``; :func:`add_safe_globals` / :class:`safe_globals`
allow-list more. ``weights_only=False`` unpickles anything (whole pickled
modules): only for trusted files.

The safetensors layout (data only, never pickle) stays available as
:func:`save_safetensors` / :func:`load_safetensors`; ``load`` recognises those
files too. See docs/serialization.md.

Package layout: ``_checkpoint`` (save/load of the zip format), ``_pickler`` and
``_unpickler`` (the two directions of the pickle), ``_rebuild`` (arraygrad's
``torch._utils._rebuild_*``), ``_storage`` (storages and bytes), ``_zipio``
(the aligned zip writer and bounded reader), ``_limits`` (what one load may allocate beyond
its file, ``ARRAYGRAD_LOAD_*``), ``_hashed_keys`` (bounds on the keys a weights-only load
hashes), ``safetensors``. Saving to a path goes through ``arraygrad._atomic_file``.
"""

from __future__ import annotations

import io
import pickletools
from typing import Any

from arraygrad.serialization._checkpoint import (DEFAULT_PROTOCOL, FileLike, LoadEndianness,
                                                 MapLocation, get_default_load_endianness, load,
                                                 save, set_default_load_endianness)
from arraygrad.serialization._limits import (MAX_DEFLATE_RATIO, MAX_EXPANDED_BYTES,
                                             MAX_KEY_ELEMENTS, MAX_NESTING)
from arraygrad.serialization._options import (INT_SIZE, IS_WINDOWS, LONG_SIZE, MAGIC_NUMBER,
                                              MAP_PRIVATE, MAP_SHARED, PROTOCOL_VERSION,
                                              SHORT_SIZE, STORAGE_KEY_SEPARATOR,
                                              SourceChangeWarning,
                                              check_module_version_greater_or_equal,
                                              default_restore_location, get_crc32_options,
                                              get_default_mmap_options, get_source_lines_and_file,
                                              location_tag, mkdtemp, normalize_storage_type,
                                              register_package, set_crc32_options,
                                              set_default_mmap_options, skip_data,
                                              storage_to_tensor_type, validate_cuda_device)
from arraygrad.serialization._storage import Storage, StorageType
from arraygrad.serialization._unpickler import (_fixed_name, _user_allowed_globals,
                                                add_safe_globals, allowed_globals,
                                                UNSAFE_MESSAGE, clear_safe_globals,
                                                get_safe_globals,
                                                safe_globals)
from arraygrad.serialization._zipio import ZipReader
from arraygrad.serialization.safetensors import (MAX_HEADER_BYTES, load_safetensors,
                                                 save_safetensors)

__all__ = ["save", "load", "save_safetensors", "load_safetensors", "add_safe_globals",
           "get_safe_globals", "clear_safe_globals", "safe_globals",
           "get_unsafe_globals_in_checkpoint", "Storage", "DEFAULT_PROTOCOL", "FileLike",
           "LoadEndianness", "get_default_load_endianness", "set_default_load_endianness",
           "MapLocation", "MAX_HEADER_BYTES", "MAX_EXPANDED_BYTES", "MAX_DEFLATE_RATIO",
           "MAX_KEY_ELEMENTS", "MAX_NESTING", "register_package",
           "location_tag", "default_restore_location", "skip_data", "get_crc32_options",
           "set_crc32_options", "get_default_mmap_options", "set_default_mmap_options",
           "SourceChangeWarning", "StorageType", "check_module_version_greater_or_equal",
           "normalize_storage_type", "storage_to_tensor_type", "validate_cuda_device",
           "get_source_lines_and_file", "mkdtemp", "MAGIC_NUMBER", "PROTOCOL_VERSION",
           "STORAGE_KEY_SEPARATOR", "IS_WINDOWS", "MAP_SHARED", "MAP_PRIVATE", "SHORT_SIZE",
           "INT_SIZE", "LONG_SIZE", "MAP_LOCATION", "STORAGE", "UNSAFE_MESSAGE"]

MAP_LOCATION = MapLocation  # PyTorch's name of the type
STORAGE = Storage  # PyTorch's name of the storage type a tagger receives


def get_unsafe_globals_in_checkpoint(f: FileLike) -> list[str]:
    """The globals in checkpoint ``f`` that a weights-only load would refuse (nothing is run:
    the pickle's opcodes are only listed)."""
    from arraygrad.serialization._checkpoint import _open

    fh, size, owned = _open(f)
    try:
        reader = ZipReader(fh, size)
        try:
            data = reader.read("data.pkl")
        finally:
            reader.close()
    finally:
        if owned:
            fh.close()
    allowed = {**allowed_globals(), **_user_allowed_globals()}
    found: list[str] = []
    pushed: list[Any] = []  # recent values, enough to name a STACK_GLOBAL's module and name
    memo: dict[int, Any] = {}
    proto = 0
    for op, arg, _ in pickletools.genops(io.BytesIO(data)):
        if op.name == "PROTO":
            proto = int(arg or 0)
        elif op.name in ("PUT", "BINPUT", "LONG_BINPUT"):
            memo[int(arg or 0)] = pushed[-1] if pushed else None
        elif op.name == "MEMOIZE":
            memo[len(memo)] = pushed[-1] if pushed else None
        elif op.name in ("GET", "BINGET", "LONG_BINGET"):
            pushed.append(memo.get(int(arg or 0)))
        elif op.name not in ("GLOBAL", "STACK_GLOBAL", "INST", "FRAME"):
            pushed.append(arg if isinstance(arg, str) else None)
        if op.name in ("GLOBAL", "STACK_GLOBAL", "INST"):
            if op.name == "STACK_GLOBAL":
                if len(pushed) < 2 or not all(isinstance(v, str) for v in pushed[-2:]):
                    continue
                module, name = pushed[-2], pushed[-1]
            else:
                module, name = str(arg).split(" ", 1)
            module, name = _fixed_name(proto, module, name)
            full = f"{module}.{name}"
            if full not in allowed and full not in found:
                found.append(full)
    return found
