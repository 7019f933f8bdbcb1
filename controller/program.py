"""Program verification: the release's manifest, the check of the installed files against it, the seeded digest.

``make dist`` writes ``MANIFEST.json`` (``manifest_of``): every file the program's wheel installs under its
packages, path and SHA-256, in the order of the paths' UTF-8 bytes.  The installer puts it in the release's
directory, beside the release's virtual environment (``installed``).  ``check`` compares the installed files
with it: a file changed, missing, or added inside a package is a mismatch (NY 9 NYCRR 5321.18(b)(3)(iv):
authenticate the software at power-up; N.J.A.C. 13:69E-1.28(c): what runs is what was approved).

The stream is the one byte sequence both digests are taken over, file by file in the manifest's order (then
each distribution's files in its RECORD's): the path's UTF-8 bytes, 0x00, the length as 8 bytes big-endian,
the content.  The release's
digest is SHA-256 of it; ``tablectl verify-program --seed HEX`` gives HMAC-SHA256 of it keyed by the seed's
bytes (docs/compliance.md says the same for a regulator's tool).

The dependencies (numpy, pydantic, ...: every wheel of the artefact but pip's) are checked too (P122): the
manifest's ``distributions`` name each with its version and ``record_sha256``, SHA-256 of the entries of its
RECORD the wheel installs in site-packages; each file RECORD lists is checked against its RECORD hash (the
binary distribution format's digests; PEP 376/627), a ``*.py`` or ``*.pth`` RECORD does not list is unexpected.
A source checkout (the packages imported from outside the interpreter's prefix: ``make run``, the tests) has
no manifest and plays as a development copy; a copy installed in a virtual environment (a release:
deploy/install.py) with no manifest refuses play, and a manifest found is always checked (P115).
"""

from __future__ import annotations

import base64
import csv
import hashlib
import hmac
import io
import json
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.parser import HeaderParser
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
    # a refusal kept while the daemon does not run, as the screens say it (``refused_view``; web/feed.py)
    "start_refused": "TABLE CONTROLLER REFUSED: PROGRAM NOT VERIFIED \u2014 do not deal",
    "start_refused.does_not_start": "The program does not match its release and does not start",
    "start_refused.mismatch": "The program does not match its release",
    "start_refused.no_manifest": "No release manifest: the program cannot be verified",
    "start_refused.unreadable": "The refusal kept could not be read: play stays refused",
    "start_refused.call_technician": "Call a technician: play stays refused until a technician clears it",
    "start_refused.start_again": "Cleared by a technician: start the table controller again",
    "alarm.start_refused": "Table controller refused: program not verified",
}


def _ordered(paths: Any) -> list[str]:
    return sorted(paths, key=lambda p: p.encode("utf-8"))


def manifest_of(files: dict[str, bytes], release: str,
                distributions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The manifest of ``files`` (path under the packages' directory -> content), for the release named, and of
    the dependencies' ``distributions`` (``distribution_of`` each; by their names' UTF-8 bytes)."""
    return {"format": FORMAT, "release": release, "algorithm": "sha256", "order": "path utf-8 bytes",
            "files": [{"path": p, "sha256": hashlib.sha256(files[p]).hexdigest(), "size": len(files[p])}
                      for p in _ordered(files)],
            "distributions": sorted(distributions or [], key=lambda d: normalized(d["name"]).encode("utf-8"))}


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
    digest: str | None = None  # SHA-256 of the stream over the manifest's files, as installed now
    files: int = 0
    problems: tuple[str, ...] = field(default=())  # "changed: games/cards.py", "missing: ...", "unexpected: ..."
    distributions: int = 0  # the dependencies the manifest names (P122)
    dependency_files: int = 0  # their files checked
    seeded: str | None = None  # HMAC-SHA256 of the stream keyed by the seed given to ``check``

    @property
    def refuses(self) -> bool:
        return self.state in (MISMATCH, NO_MANIFEST)


# -- the dependencies: each distribution's RECORD (P122) ------------------------------------------------------

OWN = "table-controller"  # the program's own distribution: its files are the manifest's ``files``
#: what the installer writes into a dist-info beside the wheel's files (PEP 376 INSTALLER/REQUESTED, PEP 610
#: direct_url.json) and RECORD itself (no hash of its own): not in the wheel's RECORD, not in the digest
_WRITTEN_AT_INSTALL = {"INSTALLER", "REQUESTED", "RECORD", "direct_url.json"}


def normalized(name: str) -> str:
    """A distribution's name as PEP 503 compares it."""
    return re.sub(r"[-_.]+", "-", name).lower()


def record_entries(text: str) -> list[tuple[str, str]]:
    """(path, hash) of each file a RECORD lists with a hash inside site-packages, by the paths' UTF-8 bytes.

    Left out, the same whether the RECORD is the wheel's or the installed one: files outside site-packages
    (``../`` installed, ``NAME.data/`` in the wheel: scripts whose first line the installer rewrites), the
    interpreter's caches, and what ``_WRITTEN_AT_INSTALL`` names."""
    out = set()
    for row in csv.reader(io.StringIO(text)):
        if len(row) < 2 or not row[1] or row[0].startswith(("/", "../")):
            continue
        parts = row[0].split("/")
        if parts[0].endswith(".data") or "__pycache__" in parts or (
                parts[0].endswith(".dist-info") and len(parts) == 2 and parts[1] in _WRITTEN_AT_INSTALL):
            continue
        out.add((row[0], row[1]))
    return sorted(out, key=lambda e: e[0].encode("utf-8"))


def record_digest(entries: list[tuple[str, str]]) -> str:
    """SHA-256 of one line ``path,hash`` + LF per entry, in ``record_entries``' order."""
    return hashlib.sha256("".join(f"{p},{h}\n" for p, h in entries).encode("utf-8")).hexdigest()


def distribution_of(name: str, version: str, record: str) -> dict[str, Any]:
    """The manifest's entry of one distribution from its wheel's METADATA name and version and its RECORD."""
    entries = record_entries(record)
    return {"name": name, "version": version, "record_sha256": record_digest(entries), "files": len(entries)}


def record_hash(algorithm_value: str, content: bytes) -> bool:
    """Whether ``content`` has the RECORD's hash ``ALGORITHM=URLSAFE-BASE64-NOPAD`` (a weak one never does)."""
    algorithm, _, value = algorithm_value.partition("=")
    if algorithm not in ("sha256", "sha384", "sha512"):  # the format requires sha256 or better
        return False
    got = base64.urlsafe_b64encode(hashlib.new(algorithm, content).digest()).rstrip(b"=").decode("ascii")
    return hmac.compare_digest(got, value)


def installed_distributions(root: Path) -> dict[str, tuple[Path, str, str]]:
    """Every distribution in ``root``: normalized name -> (its dist-info directory, its name, its version)."""
    out = {}
    for d in sorted(root.glob("*.dist-info")):
        try:
            meta = HeaderParser().parsestr((d / "METADATA").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            meta = None
        name, version = (meta["Name"], meta["Version"]) if meta is not None else (d.name, "?")
        out[normalized(str(name))] = (d, str(name), str(version))
    return out


def _dependencies(root: Path, listed: list[dict[str, Any]], digest: Any) -> tuple[list[str], int]:
    """The problems of the dependencies in ``root`` against the manifest's ``distributions``, each file read
    once and fed to ``digest`` (the stream, in the manifest's order of distributions then RECORD's order);
    and how many files were checked."""
    problems: list[str] = []
    found = installed_distributions(root)
    recorded: set[str] = set()
    tops: set[str] = set()
    files = 0
    for d in listed:
        got = found.pop(normalized(d["name"]), None)
        if got is None:
            problems.append(f"missing: distribution {d['name']} {d['version']}")
            continue
        where, name, version = got
        if version != d["version"]:
            problems.append(f"version: {name} {version} (release: {d['version']})")
        try:
            entries = record_entries((where / "RECORD").read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            problems.append(f"missing: {where.name}/RECORD")
            continue
        if record_digest(entries) != d["record_sha256"]:
            problems.append(f"changed: {where.name}/RECORD")
        for path, hashed in entries:
            recorded.add(path)
            tops.add(path.split("/")[0])
            try:
                content = (root / path).read_bytes()
            except OSError:
                problems.append(f"missing: {path}")
                continue
            files += 1
            digest(path, content)
            if not record_hash(hashed, content):
                problems.append(f"changed: {path}")
    problems += [f"unexpected: distribution {name} {version}" for n, (_, name, version) in sorted(found.items())
                 if n != normalized(OWN)]
    # code RECORD does not list: inside a distribution's directories, and at the top (a .pth runs at start)
    added = [f.relative_to(root).as_posix() for top in sorted(tops) if (root / top).is_dir() and
             not top.endswith(".dist-info") for f in (root / top).rglob("*.py")
             if "__pycache__" not in f.relative_to(root).parts]
    added += [f.name for f in root.iterdir() if f.suffix in (".py", ".pth") and f.is_file()]
    problems += [f"unexpected: {p}" for p in _ordered(set(added) - recorded)]
    return problems, files


def _chunk(path: str, content: bytes) -> bytes:
    return path.encode("utf-8") + b"\x00" + len(content).to_bytes(8, "big") + content


def check(release: Release, seed: bytes | None = None) -> Check:
    """The installed files against the manifest; a manifest found is always checked (a source checkout with
    none is a development copy, P115).  Every file is read once: its hash and the stream's digest (with
    ``seed``: the seeded one, ``Check.seeded``) from the same bytes."""
    if not release.manifest.is_file():
        return Check(DEVELOPMENT if release.checkout else NO_MANIFEST,
                     problems=() if release.checkout else (f"missing: {release.manifest}",))
    try:
        m = read_manifest(release.manifest)
    except (OSError, ValueError) as e:
        return Check(MISMATCH, problems=(f"unreadable: {e}",))
    root, problems = release.root, []
    h = hashlib.sha256()
    keyed = hmac.new(seed, digestmod=hashlib.sha256) if seed is not None else None

    def feed(path: str, content: bytes) -> None:
        chunk = _chunk(path, content)
        h.update(chunk)
        if keyed is not None:
            keyed.update(chunk)

    listed = {f["path"]: f["sha256"] for f in m["files"]}
    for p in _ordered(listed):
        try:
            content = (root / p).read_bytes()
        except OSError:
            problems.append(f"missing: {p}")
            continue
        feed(p, content)
        if hashlib.sha256(content).hexdigest() != listed[p]:
            problems.append(f"changed: {p}")
    problems += [f"unexpected: {p}" for p in _ordered(set(present(root)) - set(listed))]
    deps = m.get("distributions") or []
    dep_problems, dep_files = _dependencies(root, deps, feed) if isinstance(deps, list) else (
        ["unreadable: the manifest's distributions"], 0)
    problems += dep_problems
    return Check(MISMATCH if problems else VERIFIED, release=str(m.get("release")), digest=h.hexdigest(),
                 files=len(listed), problems=tuple(problems), distributions=len(deps), dependency_files=dep_files,
                 seeded=keyed.hexdigest() if keyed is not None else None)


#: the check ``controller.boot`` made before the program's modules were imported, for the daemon's start to
#: take instead of reading every file again (``take_boot_check``)
_boot: tuple[Release, Check] | None = None


def keep_boot_check(release: Release, c: Check) -> None:
    global _boot
    _boot = (release, c)


def take_boot_check(release: Release) -> Check | None:
    """The bootstrap's check of this release, once (a later check reads the files again)."""
    global _boot
    kept, _boot = _boot, None
    return kept[1] if kept is not None and kept[0] == release else None


# -- the refusal kept beside the journal until a technician clears it (AGCO: survives a power cycle) ----------

def refusal_file(journal: Path) -> Path:
    return Path(journal).with_suffix(".program-refused.json")


UNREADABLE = "the refusal file does not read"


def read_refusal(journal: Path) -> dict[str, Any] | None:
    """The refusal kept, or None; a file that does not read is a refusal still (fail closed)."""
    path = refusal_file(journal)
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"problems": [UNREADABLE]}
    return data if isinstance(data, dict) else {"problems": [UNREADABLE]}


def refused_view(kept: dict[str, Any], modified: float, table: str | None = None) -> dict[str, Any]:
    """What the screens show of a refusal kept while the daemon does not run: when (the refusal's ``at``, else
    the file's time ``modified``), the cause, how many problems, the action and the command that clears it.
    No problem's text, path or exception: the dealer's screen is open to anyone at the table (the list is the
    technician's page's, web/technician.py)."""
    problems = kept.get("problems")
    unreadable = "state" not in kept and problems == [UNREADABLE]
    cause = ("unreadable" if unreadable else "does_not_start" if kept.get("not_started")
             else "no_manifest" if kept.get("state") == NO_MANIFEST else "mismatch")
    at = kept.get("at")
    if not (isinstance(at, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", at)):
        at = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(modified))
    action = "start_again" if kept.get("cleared") and not unreadable else "call_technician"
    return {"at": at, "cause": cause, "problems": len(problems) if isinstance(problems, list) else 0,
            "action": action, "said": WORDS["start_refused"], "cause_said": WORDS[f"start_refused.{cause}"],
            "action_said": WORDS[f"start_refused.{action}"],
            "clear": f"tablectl verify-program --table {table or 'ID'} --clear --by NAME --reason TEXT"}


def write_refusal(journal: Path, data: dict[str, Any]) -> None:
    path = refusal_file(journal)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    tmp.replace(path)
