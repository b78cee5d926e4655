"""``arraygrad.hub`` without the network: ``file://`` URLs (and a local HTTP server on
127.0.0.1), the cache directory's environment variables, the hash-prefix check, the legacy
zip format, and ``hubconf.py`` repositories from a local directory or (download faked) GitHub."""

from __future__ import annotations

import hashlib
import http.server
import os
import threading
import zipfile

import pytest

import arraygrad as ag
from arraygrad import hub
from arraygrad.utils import model_zoo


@pytest.fixture
def hub_dir(tmp_path, monkeypatch):
    """A fresh hub directory for the test (set_dir restored afterwards)."""
    from arraygrad.hub import _download

    monkeypatch.setattr(_download, "_hub_dir", [None])
    monkeypatch.delenv("TORCH_HUB", raising=False)
    hub.set_dir(str(tmp_path / "hub"))
    return tmp_path / "hub"


def _checkpoint(path, value=1.5):
    ag.save({"w": ag.full((2, 3), value)}, path)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_get_dir_follows_torch_home_and_xdg(monkeypatch, tmp_path):
    from arraygrad.hub import _download

    monkeypatch.setattr(_download, "_hub_dir", [None])
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "th"))
    assert hub.get_dir() == str(tmp_path / "th" / "hub")
    monkeypatch.delenv("TORCH_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert hub.get_dir() == str(tmp_path / "xdg" / "torch" / "hub")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert hub.get_dir() == os.path.expanduser("~/.cache/torch/hub")
    hub.set_dir(str(tmp_path / "mine"))
    assert hub.get_dir() == str(tmp_path / "mine")


def test_load_state_dict_from_file_url_caches_and_checks_hash(hub_dir, tmp_path, capsys):
    src = tmp_path / "src" / "net.pt"
    src.parent.mkdir()
    digest = _checkpoint(src)
    named = src.with_name(f"net-{digest[:10]}.pt")
    src.rename(named)
    sd = hub.load_state_dict_from_url(named.as_uri(), check_hash=True, weights_only=True,
                                      progress=False)
    assert sd["w"].tolist() == [[1.5] * 3] * 2
    cached = hub_dir / "checkpoints" / named.name
    assert cached.is_file()
    assert "Downloading" in capsys.readouterr().out
    named.unlink()  # the cached copy is used from now on
    again = hub.load_state_dict_from_url(named.as_uri(), weights_only=True)
    assert again["w"].tolist() == sd["w"].tolist()


def test_wrong_hash_prefix_raises_and_leaves_nothing(hub_dir, tmp_path):
    src = tmp_path / "net-deadbeef.pt"
    _checkpoint(src)
    with pytest.raises(RuntimeError, match='invalid hash value \\(expected "deadbeef"'):
        hub.load_state_dict_from_url(src.as_uri(), check_hash=True, progress=False)
    assert not list((hub_dir / "checkpoints").iterdir())


def test_download_url_to_file_and_file_name_and_map_location(hub_dir, tmp_path):
    src = tmp_path / "a.pt"
    digest = _checkpoint(src, 2.0)
    dst = tmp_path / "out" / "b.pt"
    dst.parent.mkdir()
    hub.download_url_to_file(src.as_uri(), str(dst), hash_prefix=digest[:6], progress=True)
    assert dst.read_bytes() == src.read_bytes()
    sd = model_zoo.load_url(src.as_uri(), model_dir=str(tmp_path / "md"), file_name="c.pt",
                            map_location="cpu", weights_only=True, progress=False)
    assert (tmp_path / "md" / "c.pt").is_file() and sd["w"].device.type == "cpu"


def test_weights_only_refuses_a_pickled_object(hub_dir, tmp_path):
    import pickle

    src = tmp_path / "obj.pt"
    ag.save({"f": os.getcwd}, src)
    with pytest.raises(pickle.UnpicklingError):
        hub.load_state_dict_from_url(src.as_uri(), weights_only=True, progress=False)


def test_legacy_zip_of_one_checkpoint(hub_dir, tmp_path):
    inner = tmp_path / "inner.pt"
    _checkpoint(inner, 3.0)
    archive = tmp_path / "legacy.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(inner, "inner.pt")
    with pytest.warns(FutureWarning, match="old format"):
        sd = hub.load_state_dict_from_url(archive.as_uri(), weights_only=True, progress=False)
    assert sd["w"].tolist()[0][0] == 3.0


def test_http_url_from_a_local_server(hub_dir, tmp_path):
    served = tmp_path / "www"
    served.mkdir()
    _checkpoint(served / "m.pt", 4.0)

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **k):
            super().__init__(*a, directory=str(served), **k)

        def log_message(self, *a):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/m.pt"
        sd = hub.load_state_dict_from_url(url, weights_only=True, progress=False)
    finally:
        server.shutdown()
        server.server_close()
    assert sd["w"].tolist()[0][0] == 4.0


HUBCONF = '''
"""A test hub repository."""
dependencies = ["math"]
from helper import make


def tiny(scale=1.0):
    """Makes a tiny linear model."""
    return make(scale)


def _private():
    pass
'''
HELPER = '''
import arraygrad


def make(scale):
    m = arraygrad.nn.Linear(2, 1)
    m.weight.data.fill_(scale)
    return m
'''


def _repo(path):
    path.mkdir(parents=True)
    (path / "hubconf.py").write_text(HUBCONF)
    (path / "helper.py").write_text(HELPER)
    return path


def test_local_hubconf_load(tmp_path):
    repo = _repo(tmp_path / "repo")
    model = hub.load(str(repo), "tiny", scale=2.0, source="local")
    assert model.weight.tolist() == [[2.0, 2.0]]
    with pytest.raises(RuntimeError, match="Cannot find callable missing in hubconf"):
        hub.load(str(repo), "missing", source="local")
    with pytest.raises(ValueError, match='Unknown source: "ftp"'):
        hub.load(str(repo), "tiny", source="ftp")


def test_missing_dependency_is_reported(tmp_path):
    repo = _repo(tmp_path / "repo")
    (repo / "hubconf.py").write_text(HUBCONF.replace('["math"]', '["no_such_module_xyz"]'))
    with pytest.raises(RuntimeError, match="Missing dependencies: no_such_module_xyz"):
        hub.load(str(repo), "tiny", source="local")


def test_github_repository_from_a_faked_download(hub_dir, tmp_path, monkeypatch):
    from arraygrad.hub import _repo as repo_module

    archive = tmp_path / "owner-repo-abc123.zip"
    with zipfile.ZipFile(archive, "w") as z:  # a GitHub zipball: its folder comes first
        z.writestr("owner-repo-abc123/", "")
        z.writestr("owner-repo-abc123/hubconf.py", HUBCONF)
        z.writestr("owner-repo-abc123/helper.py", HELPER)
    urls = []

    def fake_download(url, dst, hash_prefix=None, progress=True):
        urls.append(url)
        dst_path = os.path.expanduser(dst)
        with open(archive, "rb") as f, open(dst_path, "wb") as out:
            out.write(f.read())

    monkeypatch.setattr(repo_module, "download_url_to_file", fake_download)
    assert hub.list("owner/repo:main", trust_repo=True, skip_validation=True) == ["make", "tiny"]
    assert urls == ["https://github.com/owner/repo/zipball/main"]
    assert (hub_dir / "owner_repo_main" / "hubconf.py").is_file()
    assert "owner_repo" in (hub_dir / "trusted_list").read_text()
    assert hub.help("owner/repo:main", "tiny") == "Makes a tiny linear model."
    model = hub.load("owner/repo:main", "tiny", 3.0, verbose=False)
    assert model.weight.tolist() == [[3.0, 3.0]]
    assert len(urls) == 1  # the cache was used


def test_untrusted_repository_asks(hub_dir, monkeypatch):
    monkeypatch.setattr("builtins.input", lambda prompt: "no")
    with pytest.raises(Exception, match="Untrusted repository"):
        hub.list("someone/thing:main", trust_repo="check", skip_validation=True)


def test_tqdm_is_a_progress_bar_class():
    with hub.tqdm(total=10, disable=True) as bar:
        bar.update(3)
