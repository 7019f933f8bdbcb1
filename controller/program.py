"""Program verification: the release's manifest, the check of the installed files against it, the seeded digest.

``make dist`` writes ``MANIFEST.json`` (``manifest_of``): every file the program's wheel installs under its
packages, path and SHA-256, in the order of the paths' UTF-8 bytes.  The installer puts it in the release's
directory, beside the release's virtual environment (``installed``).  ``check`` compares the installed files
with it: a file changed, missing, or added inside a package is a mismatch (NY 9 NYCRR 5321.18(b)(3)(iv):
authenticate the software at power-up; N.J.A.C. 13:69E-1.28(c): what runs is what was approved).

``stream`` is the one byte sequence both digests are taken over, file by file in the manifest's order: the
path's UTF-8 bytes, one 0x00 byte, the content's length as 8 bytes big-endian, the content.  The release's
digest is SHA-256 of it; ``tablectl verify-program --seed HEX`` gives HMAC-SHA256 of it keyed by the seed's
bytes (docs/compliance.md says the same for a regulator's tool).

A source checkout (the packages imported from outside the interpreter's prefix: ``make run``, the tests) has
no manifest and plays as a development copy, said in the status and the journal; a copy installed in a
virtual environment (a release: deploy/install.py) with no manifest refuses play, and a manifest found is
always checked (P115).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

PACKAGES = ("games", "controller", "drivers", "simulators", "web")  # what the wheel installs (deploy/build.py)
MANIFEST = "MANIFEST.json"
FORMAT = 1
VERIFIED, DEVELOPMENT, MISMATCH, NO_MANIFEST = "verified", "development", "mismatch", "no_manifest"
#: the program's states, in words (web/words.py)
WORDS: dict[str, str] = {
    VERIFIED: "Program verified",
    DEVELOPMENT: "Development copy: not verified",
    MISMATCH: "Program does NOT match its release: play refused",
    NO_MANIFEST: "No release manifest: play refused",
    "program_refused": "Program not verified: call a technician",
}


def _ordered(paths: Any) -> list[str]:
    return sorted(paths, key=lambda p: p.encode("utf-8"))


def manifest_of(files: dict[str, bytes], release: str) -> dict[str, Any]:
    """The manifest of ``files`` (path under the packages' directory -> content), for the release named."""
    return {"format": FORMAT, "release": release, "algorithm": "sha256", "order": "path utf-8 bytes",
            "files": [{"path": p, "sha256": hashlib.sha256(files[p]).hexdigest(), "size": len(files[p])}
                      for p in _ordered(files)]}


@dataclass(frozen=True)
class Release:
    """Where the manifest is and the directory its paths are under (the release's site-packages); ``checkout``:
    the packages are a source tree's, not installed in the interpreter's prefix."""

    manifest: Path
    root: Path
    checkout: bool = False


def installed() -> Release:
    """This process's release: ``<release>/MANIFEST.json`` beside ``<release>/venv`` (deploy/install.py), the
    packages where ``controller`` was imported from."""
    root = Path(__file__).resolve().parent.parent
    prefixes = {Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve()}
    return Release(Path(sys.prefix).parent / MANIFEST, root, not any(root.is_relative_to(p) for p in prefixes))


def read_manifest(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("files"), list):
        raise ValueError(f"{path}: not a release manifest of format {FORMAT}")
    return data


def present(root: Path) -> Iterator[str]:
    """Every file under the packages in ``root`` but the interpreter's caches (written at install, P115)."""
    for pkg in PACKAGES:
        for f in (root / pkg).rglob("*"):
            if f.is_file() and "__pycache__" not in f.relative_to(root).parts:
                yield f.relative_to(root).as_posix()


def stream(root: Path, paths: list[str]) -> Iterator[bytes]:
    """The documented byte sequence over ``paths`` in their order (module docstring)."""
    for p in paths:
        content = (root / p).read_bytes()
        yield p.encode("utf-8") + b"\x00" + len(content).to_bytes(8, "big") + content


def release_digest(root: Path, paths: list[str]) -> str:
    h = hashlib.sha256()
    for chunk in stream(root, paths):
        h.update(chunk)
    return h.hexdigest()


def seeded_digest(root: Path, paths: list[str], seed: bytes) -> str:
    h = hmac.new(seed, digestmod=hashlib.sha256)
    for chunk in stream(root, paths):
        h.update(chunk)
    return h.hexdigest()


def config_digest(path: Path | None) -> str | None:
    """SHA-256 of the table's configuration file as read (None: no file, a configuration from elsewhere)."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() if path is not None else None
    except OSError:
        return None


@dataclass(frozen=True)
class Check:
    state: str  # VERIFIED, DEVELOPMENT, MISMATCH, NO_MANIFEST
    release: str | None = None
    digest: str | None = None  # SHA-256 of ``stream`` over the manifest's files, as installed now
    files: int = 0
    problems: tuple[str, ...] = field(default=())  # "changed: games/cards.py", "missing: ...", "unexpected: ..."

    @property
    def refuses(self) -> bool:
        return self.state in (MISMATCH, NO_MANIFEST)


def check(release: Release) -> Check:
    """The installed files against the manifest; a manifest found is always checked (a source checkout with
    none is a development copy, P115)."""
    if not release.manifest.is_file():
        return Check(DEVELOPMENT if release.checkout else NO_MANIFEST,
                     problems=() if release.checkout else (f"missing: {release.manifest}",))
    try:
        m = read_manifest(release.manifest)
    except (OSError, ValueError) as e:
        return Check(MISMATCH, problems=(f"unreadable: {e}",))
    root, problems = release.root, []
    listed = {f["path"]: f["sha256"] for f in m["files"]}
    for p in _ordered(listed):
        try:
            got = hashlib.sha256((root / p).read_bytes()).hexdigest()
        except OSError:
            problems.append(f"missing: {p}")
            continue
        if got != listed[p]:
            problems.append(f"changed: {p}")
    problems += [f"unexpected: {p}" for p in _ordered(set(present(root)) - set(listed))]
    paths = [p for p in _ordered(listed) if (root / p).is_file()]
    return Check(MISMATCH if problems else VERIFIED, release=str(m.get("release")),
                 digest=release_digest(root, paths), files=len(listed), problems=tuple(problems))


# -- the refusal kept beside the journal until a technician clears it (AGCO: survives a power cycle) ----------

def refusal_file(journal: Path) -> Path:
    return Path(journal).with_suffix(".program-refused.json")


def read_refusal(journal: Path) -> dict[str, Any] | None:
    """The refusal kept, or None; a file that does not read is a refusal still (fail closed)."""
    path = refusal_file(journal)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"problems": ["the refusal file does not read"]}
    return data if isinstance(data, dict) else {"problems": ["the refusal file does not read"]}


def write_refusal(journal: Path, data: dict[str, Any]) -> None:
    path = refusal_file(journal)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
