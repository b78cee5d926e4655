"""``arraygrad.hub``: PyTorch's ``torch.hub``: checkpoints downloaded into a cache, and models
from a repository's ``hubconf.py`` (on GitHub or in a local directory).

>>> sd = arraygrad.hub.load_state_dict_from_url("file:///models/net-3b1f0c2a.pt",
...                                              check_hash=True, weights_only=True)
>>> model = arraygrad.hub.load("path/to/repo", "resnet_tiny", source="local")

The cache is PyTorch's (``$TORCH_HOME/hub``, see :func:`get_dir`). ``load``, ``list`` and
``help`` import the repository's ``hubconf.py``, which runs its code: as in PyTorch, that is
what they are asked to do, and a GitHub repository must be trusted first (``trust_repo``).
"""

from __future__ import annotations

import builtins
from typing import Any

from arraygrad.hub._download import (DEFAULT_CACHE_DIR, ENV_GITHUB_TOKEN, ENV_TORCH_HOME,
                                     ENV_XDG_CACHE_HOME, HASH_REGEX, READ_DATA_CHUNK,
                                     download_url_to_file, get_dir, load_state_dict_from_url,
                                     set_dir, tqdm)
from arraygrad.hub._repo import MODULE_HUBCONF, VAR_DEPENDENCY, entry_point, get_cache_or_reload, hubconf_module
from arraygrad.serialization import MAP_LOCATION

__all__ = ["download_url_to_file", "get_dir", "help", "list", "load", "load_state_dict_from_url",
           "set_dir"]

_ = (DEFAULT_CACHE_DIR, ENV_GITHUB_TOKEN, ENV_TORCH_HOME, ENV_XDG_CACHE_HOME, HASH_REGEX,
     READ_DATA_CHUNK, MAP_LOCATION, MODULE_HUBCONF, VAR_DEPENDENCY, tqdm)  # PyTorch's names too


def list(github: str, force_reload: bool = False, skip_validation: bool = False,  # noqa: A001
         trust_repo: bool | str | None = "check", verbose: bool = True) -> builtins.list[str]:
    """The entry points (public callables) of GitHub repository ``github``'s ``hubconf.py``
    (``owner/name[:ref]``), downloading it into the cache first when needed."""
    repo_dir = get_cache_or_reload(github, force_reload, trust_repo, verbose=verbose,
                                   skip_validation=skip_validation)
    module = hubconf_module(repo_dir)
    return [f for f in dir(module) if callable(getattr(module, f)) and not f.startswith("_")]


def help(github: str, model: str, force_reload: bool = False,  # noqa: A001
         skip_validation: bool = False, trust_repo: bool | str | None = "check") -> str | None:
    """The docstring of entry point ``model`` of GitHub repository ``github``."""
    repo_dir = get_cache_or_reload(github, force_reload, trust_repo, verbose=True,
                                   skip_validation=skip_validation)
    return entry_point(hubconf_module(repo_dir), model).__doc__


def load(repo_or_dir: str, model: str, *args: Any, source: str = "github",
         trust_repo: bool | str | None = "check", force_reload: bool = False,
         verbose: bool = True, skip_validation: bool = False, **kwargs: Any) -> Any:
    """Call entry point ``model(*args, **kwargs)`` of a repository's ``hubconf.py``.

    ``source="github"``: ``repo_or_dir`` is ``owner/name[:ref]``, downloaded into the cache
    when needed; ``source="local"``: it is a directory holding ``hubconf.py``.
    """
    source = source.lower()
    if source not in ("github", "local"):
        raise ValueError(f'Unknown source: "{source}". Allowed values: "github" | "local".')
    if source == "github":
        repo_or_dir = get_cache_or_reload(repo_or_dir, force_reload, trust_repo,
                                          verbose=verbose, skip_validation=skip_validation)
    from arraygrad.hub._repo import _add_to_sys_path

    with _add_to_sys_path(repo_or_dir):  # an entry point may import its repository's modules
        entry = entry_point(hubconf_module(repo_or_dir), model)
        return entry(*args, **kwargs)
