"""Build the corpus of public PyTorch programs that ``measure.py`` reads.

The corpus itself is never committed: only ``manifest.tsv`` is (one ``repo<TAB>commit<TAB>path``
line per file, names only).  Two commands:

``extract`` (the default)
    Read every manifest line's blob out of a local git mirror of its repository
    (``<mirrors>/<owner>+<name>/repo``, a bare git directory or a checkout with ``.git``) and
    write it to ``<out>/<owner>+<name>/<path>``.  A notebook (``.ipynb``) becomes
    ``<stem>_ipynb.py``: its code cells, in order, with IPython magics and shell escapes
    (lines starting with ``%`` or ``!``) dropped (``pass`` where a block would be left empty)
    and cells run by a non-Python cell magic (``%%bash``, ``%%writefile``, ...) left out.

``manifest``
    Choose the files from the mirrors (the choice this project's manifest was made with):
    ``.py`` files and notebooks that import ``torch``, outside tests, setup scripts and
    ``__init__.py``, preferring whole programs and model definitions, at most ``--per-repo``
    per repository, exact duplicates (across repositories) kept once.

Only the standard library and ``git`` are needed.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_MANIFEST = HERE / "manifest.tsv"
DEFAULT_MIRRORS = Path("/work/.mirror")
DEFAULT_OUT = Path("/work/corpus")

# --------------------------------------------------------------------------- notebooks

# Cell magics whose body is still Python: only the magic line is dropped.
_PYTHON_CELL_MAGICS = {"time", "timeit", "capture", "prun", "debug", "python", "python3", "pypy"}


def notebook_to_python(text: str) -> str:
    """The code cells of a notebook (its JSON text) as one Python source.

    Lines whose first non-blank character is ``%`` (line magics) or ``!`` (shell escapes) are
    dropped (one that opens an indented block becomes ``pass``); a cell opened by a cell magic
    (``%%name``) keeps its body only when the magic runs Python (``%%time``, ``%%timeit``,
    ``%%capture``...), otherwise the whole cell is dropped.
    Notebooks in the old v3 format (cells under ``worksheets``) are read too.
    """
    nb = json.loads(text)
    cells = nb.get("cells")
    if cells is None:  # nbformat 3
        cells = [c for ws in nb.get("worksheets", []) for c in ws.get("cells", [])]
    chunks: list[str] = []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", cell.get("input", ""))
        if isinstance(src, list):
            src = "".join(src)
        lines = src.splitlines()
        first = next((ln.strip() for ln in lines if ln.strip()), "")
        if first.startswith("%%"):
            magic = first[2:].split()[0] if first[2:].split() else ""
            if magic not in _PYTHON_CELL_MAGICS:
                continue
        kept = []
        for ln in lines:
            s = ln.lstrip()
            if s.startswith("%") or s.startswith("!"):
                indent = ln[: len(ln) - len(s)]
                before = next((k.split("#")[0].rstrip() for k in reversed(kept) if k.strip()), "")
                if indent and before.endswith(":"):  # `if IN_COLAB:\n    !pip install x`: keep the block
                    kept.append(indent + "pass")
                continue
            kept.append(ln)
        body = "\n".join(kept).strip("\n")
        if body.strip():
            chunks.append(body)
    return "\n\n".join(chunks) + "\n"


def output_name(path: str) -> str:
    """Where a manifest path lands inside its repository's folder (notebooks become .py)."""
    if path.endswith(".ipynb"):
        return path[: -len(".ipynb")] + "_ipynb.py"
    return path


# --------------------------------------------------------------------------- git access


def repo_dir_name(repo: str) -> str:
    return repo.replace("/", "+")


def git_dir(mirrors: Path, repo: str) -> Path | None:
    base = mirrors / repo_dir_name(repo) / "repo"
    for cand in (base / ".git", base):
        if (cand / "HEAD").is_file() and (cand / "objects").is_dir():
            return cand
    return None


class BlobReader:
    """``git cat-file --batch`` on one repository: blobs by ``<commit>:<path>``."""

    def __init__(self, gd: Path):
        self.proc = subprocess.Popen(
            ["git", "--git-dir", str(gd), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )

    def read(self, spec: str) -> bytes | None:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(spec.encode() + b"\n")
        self.proc.stdin.flush()
        header = self.proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            return None
        size = int(header[2])
        data = self.proc.stdout.read(size)
        self.proc.stdout.read(1)  # the newline after the contents
        return data if header[1] == b"blob" else None

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        self.proc.wait()


def head_commit(gd: Path) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(gd), "rev-parse", "HEAD"], capture_output=True, check=True, text=True
    ).stdout.strip()


def list_blobs(gd: Path, commit: str) -> list[tuple[str, int]]:
    out = subprocess.run(
        ["git", "--git-dir", str(gd), "ls-tree", "-r", "-l", "-z", commit], capture_output=True, check=True
    ).stdout.decode("utf-8", "replace")
    blobs = []
    for entry in out.split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        parts = meta.split()
        if parts[1] == "blob" and parts[3].isdigit():  # "BAD": a blob absent from the mirror
            blobs.append((path, int(parts[3])))
    return blobs


# --------------------------------------------------------------------------- manifest


def read_manifest(path: Path) -> list[tuple[str, str, str]]:
    rows = []
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        repo, commit, fpath = line.split("\t")
        rows.append((repo, commit, fpath))
    return rows


def write_manifest(path: Path, rows: list[tuple[str, str, str]]) -> None:
    lines = ["# repo\tcommit\tpath  (tools/corpus/build_corpus.py extract rebuilds the corpus)"]
    lines += ["\t".join(r) for r in sorted(rows)]
    path.write_text("\n".join(lines) + "\n")


# --------------------------------------------------------------------------- extract


def extract(manifest: Path, mirrors: Path, out: Path) -> int:
    rows = read_manifest(manifest)
    by_repo: dict[str, list[tuple[str, str]]] = {}
    for repo, commit, fpath in rows:
        by_repo.setdefault(repo, []).append((commit, fpath))
    written = missing = 0
    for repo, items in sorted(by_repo.items()):
        gd = git_dir(mirrors, repo)
        if gd is None:
            print(f"no mirror for {repo} under {mirrors} ({len(items)} files skipped)", file=sys.stderr)
            missing += len(items)
            continue
        reader = BlobReader(gd)
        try:
            for commit, fpath in items:
                data = reader.read(f"{commit}:{fpath}")
                if data is None:
                    print(f"missing {repo} {commit} {fpath}", file=sys.stderr)
                    missing += 1
                    continue
                text = data.decode("utf-8", "replace")
                if fpath.endswith(".ipynb"):
                    try:
                        text = notebook_to_python(text)
                    except (ValueError, KeyError, TypeError, AttributeError) as exc:
                        print(f"bad notebook {repo} {fpath}: {exc}", file=sys.stderr)
                        missing += 1
                        continue
                dest = out / repo_dir_name(repo) / output_name(fpath)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(text, encoding="utf-8")
                written += 1
        finally:
            reader.close()
    print(f"{written} files from {len(by_repo)} repositories written under {out}; {missing} not found")
    return 0 if missing == 0 else 1


# --------------------------------------------------------------------------- manifest selection

_TORCH_IMPORT = re.compile(r"^[ \t]*(import[ \t]+torch\b|from[ \t]+torch(\.[\w.]+)?[ \t]+import\b)", re.M)
_SKIP_PARTS = {
    "test", "tests", "testing", "unittest", "unittests", "__pycache__", "third_party", "thirdparty",
    "vendor", "external", "site-packages", "node_modules", ".github", "build", "dist", "deprecated",
    ".ipynb_checkpoints",
}
_SKIP_NAMES = {"setup.py", "conftest.py", "__init__.py", "conf.py", "hubconf.py", "version.py", "_version.py"}
_GOOD_NAME = re.compile(r"(train|main|model|net|example|demo|tutorial|lesson|chapter|ch\d|gpt|gan|vae|"
                        r"transformer|attention|rnn|lstm|cnn|resnet|unet|diffusion|policy|agent|dqn|ppo|"
                        r"sac|seq2seq|classif|mnist|cifar|bigram|makemore|lora|flow|nerf|gcn|graph)", re.I)
_WEAK_NAME = re.compile(r"(util|helper|config|logger|logging|download|preprocess|convert|export|version|"
                        r"visuali|plot|metric|eval_|benchmark|profil|tokeniz|registry|constants)", re.I)


def _score(path: str, text: str) -> float:
    score = 0.0
    name = path.rsplit("/", 1)[-1]
    if re.search(r"\bdef forward\(|\(nn\.Module\)|\(torch\.nn\.Module\)", text):
        score += 3
    if ".backward(" in text and re.search(r"optim", text):
        score += 3
    if re.search(r"if __name__ == ['\"]__main__['\"]", text):
        score += 1
    if _GOOD_NAME.search(name):
        score += 1.5
    if _WEAK_NAME.search(name):
        score -= 2
    if re.search(r"(^|/)(examples?|tutorials?|notebooks?|lectures?|chapters?|course)(/|$)", path, re.I):
        score += 1
    size = len(text)
    if size > 60_000:
        score -= 2
    if size < 800:
        score -= 2
    return score


def _candidate(path: str, size: int) -> bool:
    parts = path.split("/")
    if any(p.lower() in _SKIP_PARTS for p in parts[:-1]):
        return False
    name = parts[-1]
    if name in _SKIP_NAMES or name.startswith("test_") or name.endswith("_test.py"):
        return False
    if path.startswith("torch/"):  # a copy of PyTorch's own library source
        return False
    if name.endswith(".py"):
        return 200 <= size <= 250_000
    if name.endswith(".ipynb"):
        return 500 <= size <= 3_000_000
    return False


def _spread(scored: list[tuple[float, str, str]], per_repo: int, seen_hashes: set[str]) -> list[str]:
    """Up to ``per_repo`` paths of one repository, best first but spread over its folders.

    Folders (their first two path components) take turns, the folder holding the best file
    first, each giving its best file not yet taken; a file whose text (whitespace aside) was
    already taken from any repository is never taken.  Files scoring more than 4 below the
    repository's best are taken only to fill up.
    """
    if not scored:
        return []
    scored = sorted(scored, key=lambda t: (-t[0], t[1]))
    best = scored[0][0]
    groups: dict[str, list[tuple[float, str, str]]] = {}
    for item in scored:
        parent = "/".join(item[1].split("/")[:-1][:2])
        groups.setdefault(parent, []).append(item)
    taken: list[str] = []
    for strict in (True, False):
        progress = True
        while progress and len(taken) < per_repo:
            progress = False
            for items in groups.values():
                for item in items:
                    score, path, digest = item
                    if path in taken or digest in seen_hashes:
                        continue
                    if strict and score < best - 4:
                        continue
                    taken.append(path)
                    seen_hashes.add(digest)
                    progress = True
                    break
                if len(taken) >= per_repo:
                    break
    return taken


def select(mirrors: Path, per_repo: int) -> list[tuple[str, str, str]]:
    chosen: list[tuple[str, str, str]] = []
    seen_hashes: set[str] = set()
    for d in sorted(os.listdir(mirrors)):
        if "+" not in d:
            continue
        repo = d.replace("+", "/", 1)
        gd = git_dir(mirrors, repo)
        if gd is None:
            continue
        try:
            commit = head_commit(gd)
            blobs = [(p, s) for p, s in list_blobs(gd, commit) if _candidate(p, s)]
        except subprocess.CalledProcessError:
            continue
        reader = BlobReader(gd)
        scored = []
        try:
            for path, _size in blobs:
                data = reader.read(f"{commit}:{path}")
                if data is None:
                    continue
                text = data.decode("utf-8", "replace")
                if path.endswith(".ipynb"):
                    try:
                        text = notebook_to_python(text)
                    except (ValueError, KeyError, TypeError, AttributeError):
                        continue
                if not _TORCH_IMPORT.search(text):
                    continue
                try:
                    ast.parse(text)
                    parses = True
                except (SyntaxError, ValueError):
                    parses = False
                digest = hashlib.sha1(re.sub(r"\s+", "", text).encode()).hexdigest()
                score = _score(path, text) - (0 if parses else 5)
                scored.append((score, path, digest))
        finally:
            reader.close()
        for path in _spread(scored, per_repo, seen_hashes):
            chosen.append((repo, commit, path))
    return chosen


# --------------------------------------------------------------------------- CLI


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", nargs="?", default="extract", choices=["extract", "manifest"])
    ap.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    ap.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--per-repo", type=int, default=12, help="manifest: most files taken from one repository")
    args = ap.parse_args(argv)
    if args.command == "manifest":
        rows = select(args.mirrors, args.per_repo)
        write_manifest(args.manifest, rows)
        print(f"{len(rows)} files from {len({r for r, _c, _p in rows})} repositories -> {args.manifest}")
        return 0
    return extract(args.manifest, args.mirrors, args.out)


if __name__ == "__main__":
    sys.exit(main())
