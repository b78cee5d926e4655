"""A hub repository's ``hubconf.py``: fetched from GitHub into the cache (with PyTorch's trust
check), or read from a local directory, then imported and its entry points called.

Importing ``hubconf.py`` runs it: that is what ``hub.load``/``list``/``help`` are asked to do,
in PyTorch too. A GitHub repository is run only once trusted (``trust_repo``).
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.util
import json
import os
import shutil
import sys
import types
import warnings
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.error import HTTPError, URLError
from urllib.request import Request, urlopen

from arraygrad.hub._download import ENV_GITHUB_TOKEN, download_url_to_file, get_dir, safe_extract_zip

VAR_DEPENDENCY = "dependencies"
MODULE_HUBCONF = "hubconf.py"
_TRUSTED_REPO_OWNERS = ("facebookresearch", "facebookincubator", "pytorch", "fairinternal")


@contextlib.contextmanager
def _add_to_sys_path(path: str) -> Iterator[None]:
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)


def _import_module(name: str, path: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or not isinstance(spec.loader, importlib.abc.Loader):
        raise AssertionError(f"failed to load spec from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def hubconf_module(repo_dir: str) -> types.ModuleType:
    """``repo_dir``'s ``hubconf.py``, imported with ``repo_dir`` on ``sys.path``."""
    with _add_to_sys_path(repo_dir):
        return _import_module(MODULE_HUBCONF, os.path.join(repo_dir, MODULE_HUBCONF))


def entry_point(module: types.ModuleType, model: Any) -> Callable[..., Any]:
    """The callable ``model`` of a hubconf module, once its ``dependencies`` are importable."""
    if not isinstance(model, str):
        raise ValueError("Invalid input: model should be a string of function name")
    dependencies = getattr(module, VAR_DEPENDENCY, None)
    if dependencies is not None:
        missing = [pkg for pkg in dependencies if importlib.util.find_spec(pkg) is None]
        if missing:
            raise RuntimeError(f"Missing dependencies: {', '.join(missing)}")
    func = getattr(module, model) if model in dir(module) else None
    if func is None or not callable(func):
        raise RuntimeError(f"Cannot find callable {model} in hubconf")
    return func


def _remove_if_exists(path: str) -> None:
    if os.path.exists(path):
        if os.path.isfile(path):
            os.remove(path)
        else:
            shutil.rmtree(path)


def _git_archive_link(repo_owner: str, repo_name: str, ref: str) -> str:
    return f"https://github.com/{repo_owner}/{repo_name}/zipball/{ref}"


def _parse_repo_info(github: str) -> tuple[str, str, str]:
    """``owner/name[:ref]`` as ``(owner, name, ref)``; without a ref, ``main`` if the repository
    has one, else ``master`` (and with no network, whichever of them is cached)."""
    repo_info, ref = github.split(":") if ":" in github else (github, None)
    repo_owner, repo_name = repo_info.split("/")
    if ref is None:
        try:
            with urlopen(f"https://github.com/{repo_owner}/{repo_name}/tree/main/"):
                ref = "main"
        except HTTPError as e:
            if e.code != 404:
                raise
            ref = "master"
        except URLError as e:
            for possible in ("main", "master"):
                if os.path.exists(f"{get_dir()}/{repo_owner}_{repo_name}_{possible}"):
                    ref = possible
                    break
            if ref is None:
                raise RuntimeError("It looks like there is no internet connection and the repo "
                                   f"could not be found in the cache ({get_dir()})") from e
    return repo_owner, repo_name, ref


def _read_url(url: str | Request) -> str:
    with urlopen(url) as r:
        return r.read().decode(r.headers.get_content_charset("utf-8"))


def _validate_not_a_forked_repo(repo_owner: str, repo_name: str, ref: str) -> None:
    headers = {"Accept": "application/vnd.github.v3+json"}
    token = os.environ.get(ENV_GITHUB_TOKEN)
    if token is not None:
        headers["Authorization"] = f"token {token}"
    for url_prefix in (f"https://api.github.com/repos/{repo_owner}/{repo_name}/branches",
                       f"https://api.github.com/repos/{repo_owner}/{repo_name}/tags"):
        page = 0
        while True:
            page += 1
            url = f"{url_prefix}?per_page=100&page={page}"
            try:
                response = json.loads(_read_url(Request(url, headers=headers)))
            except HTTPError:  # retry without a token that lacked the permission
                headers.pop("Authorization", None)
                response = json.loads(_read_url(Request(url, headers=headers)))
            if not response:
                break
            for br in response:
                if br["name"] == ref or br["commit"]["sha"].startswith(ref):
                    return
    raise ValueError(f"Cannot find {ref} in https://github.com/{repo_owner}/{repo_name}. If it's "
                     "a commit from a forked repo, please call hub.load() with forked repo directly.")


def _check_repo_is_trusted(repo_owner: str, repo_name: str, owner_name_branch: str,
                           trust_repo: bool | str | None) -> None:
    """PyTorch's trust check: a repository not in ``<hub dir>/trusted_list`` (nor cached, nor
    of a trusted owner) is run only after the user answers yes."""
    hub_dir = get_dir()
    filepath = os.path.join(hub_dir, "trusted_list")
    if not os.path.exists(filepath):
        Path(filepath).touch()
    with open(filepath) as file:
        trusted_repos = tuple(line.strip() for line in file)
    trusted_repos_legacy = next(os.walk(hub_dir))[1]  # a repo downloaded before is trusted
    owner_name = "_".join([repo_owner, repo_name])
    is_trusted = (owner_name in trusted_repos or owner_name_branch in trusted_repos_legacy
                  or repo_owner in _TRUSTED_REPO_OWNERS)
    if (trust_repo is False) or (trust_repo == "check" and not is_trusted):
        response = input(
            f"The repository {owner_name} does not belong to the list of trusted repositories "
            "and as such cannot be downloaded. Do you trust this repository and wish to add it "
            "to the trusted list of repositories (y/N)?")
        if response.lower() in ("y", "yes"):
            if is_trusted:
                print("The repository is already trusted.")
        elif response.lower() in ("n", "no", ""):
            raise Exception("Untrusted repository.")  # noqa: TRY002 - PyTorch's class
        else:
            raise ValueError(f"Unrecognized response {response}.")
    if not is_trusted:
        with open(filepath, "a") as file:
            file.write(owner_name + "\n")


def get_cache_or_reload(github: str, force_reload: bool, trust_repo: bool | str | None,
                        verbose: bool = True, skip_validation: bool = False) -> str:
    """The local directory of GitHub repository ``github`` (``owner/name[:ref]``), downloaded
    into the hub's cache unless there already (or ``force_reload``)."""
    hub_dir = get_dir()
    os.makedirs(hub_dir, exist_ok=True)
    repo_owner, repo_name, ref = _parse_repo_info(github)
    normalized_br = ref.replace("/", "_")
    owner_name_branch = "_".join([repo_owner, repo_name, normalized_br])
    repo_dir = os.path.join(hub_dir, owner_name_branch)
    _check_repo_is_trusted(repo_owner, repo_name, owner_name_branch, trust_repo=trust_repo)
    if not force_reload and os.path.exists(repo_dir):
        if verbose:
            sys.stderr.write(f"Using cache found in {repo_dir}\n")
        return repo_dir
    if not skip_validation:
        _validate_not_a_forked_repo(repo_owner, repo_name, ref)
    cached_file = os.path.join(hub_dir, normalized_br + ".zip")
    _remove_if_exists(cached_file)
    try:
        url = _git_archive_link(repo_owner, repo_name, ref)
        sys.stdout.write(f'Downloading: "{url}" to {cached_file}\n')
        download_url_to_file(url, cached_file, progress=False)
    except HTTPError as err:
        if err.code != 300:
            raise
        # a ref that is both a tag and a branch: take the branch, as git does
        warnings.warn(f"The ref {ref} is ambiguous. Perhaps it is both a tag and a branch in the "
                      "repo? Torchhub will now assume that it's a branch. You can disambiguate "
                      "tags and branches by explicitly passing refs/heads/branch_name or "
                      "refs/tags/tag_name as the ref. That might require using "
                      "skip_validation=True.", stacklevel=2)
        download_url_to_file(_git_archive_link(repo_owner, repo_name, f"refs/heads/{ref}"),
                             cached_file, progress=False)
    with zipfile.ZipFile(cached_file) as cached_zipfile:
        extracted_repo = os.path.join(hub_dir, cached_zipfile.infolist()[0].filename)
        _remove_if_exists(extracted_repo)
        safe_extract_zip(cached_zipfile, hub_dir)
    _remove_if_exists(cached_file)
    _remove_if_exists(repo_dir)
    shutil.move(extracted_repo, repo_dir)
    return repo_dir
