"""``arraygrad.torch_version``: ``TorchVersion``, a version string that also compares as a
version (``arraygrad.__version__ >= "0.1"``, ``>= (0, 1)``), as ``torch.torch_version``.

Versions compare by PEP 440's order (release numbers, then pre-, post- and dev-releases,
then the local label); a string that is no version compares as a plain string.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["TorchVersion", "InvalidVersion", "internal_version", "__version__"]


class InvalidVersion(ValueError):
    """A string that is not a PEP 440 version."""


_PATTERN = re.compile(
    r"^\s*v?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre_l>a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?P<pre_n>\d*))?"
    r"(?:[-_.]?(?:post|rev|r)[-_.]?(?P<post>\d*))?"
    r"(?:[-_.]?dev[-_.]?(?P<dev>\d*))?"
    r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$", re.IGNORECASE)
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}


def _key(text: str) -> tuple[Any, ...]:
    """The sort key of a version string; InvalidVersion when it is not one."""
    m = _PATTERN.match(text)
    if m is None:
        raise InvalidVersion(f"Invalid version: {text!r}")
    release = [int(p) for p in m["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:
        release.pop()
    has_pre, has_post, has_dev = m["pre_l"] is not None, m["post"] is not None, m["dev"] is not None
    if has_pre:
        pre: tuple[int, ...] = (1, _PRE[m["pre_l"].lower()], int(m["pre_n"] or 0))
    else:
        pre = (0,) if has_dev and not has_post else (2,)
    post = (int(m["post"] or 0),) if has_post else (-1,)
    dev = (int(m["dev"] or 0),) if has_dev else (float("inf"),)
    local: tuple[Any, ...] = (0,)
    if m["local"]:
        local = (1, *((1, int(p), "") if p.isdigit() else (0, 0, p.lower())
                      for p in re.split(r"[-_.]", m["local"])))
    return tuple(release), pre, post, dev, local


def _as_key(other: Any) -> tuple[Any, ...]:
    if isinstance(other, str):
        return _key(other)
    if isinstance(other, (tuple, list)):
        return _key(".".join(str(item) for item in other))
    raise InvalidVersion(other)


class TorchVersion(str):
    """A version string that compares as a version with strings, tuples and versions."""

    __slots__ = ()

    def _compare(self, other: Any, method: str) -> Any:
        try:
            mine, theirs = _key(self), _as_key(other)
        except InvalidVersion:  # not a version: compared as the string it is
            return getattr(str, method)(self, other)
        return bool(getattr(mine, method)(theirs))

    def __gt__(self, other: Any) -> Any:
        return self._compare(other, "__gt__")

    def __lt__(self, other: Any) -> Any:
        return self._compare(other, "__lt__")

    def __ge__(self, other: Any) -> Any:
        return self._compare(other, "__ge__")

    def __le__(self, other: Any) -> Any:
        return self._compare(other, "__le__")

    def __eq__(self, other: object) -> Any:
        return self._compare(other, "__eq__")

    def __ne__(self, other: object) -> Any:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = str.__hash__


def _installed() -> str:
    from importlib import metadata

    try:
        return metadata.version("arraygrad")
    except metadata.PackageNotFoundError:  # a source tree that was never installed
        return "0.0.0+unknown"


internal_version = _installed()
"""arraygrad's version, as installed."""

__version__ = TorchVersion(internal_version)
