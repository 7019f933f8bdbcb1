"""Program verification of the dependencies and of a module that no longer imports (controller/program.py,
controller/boot.py, P122).

The dependency is a small wheel made here, installed as pip installs one (its RECORD rewritten with the
installer's own lines, the bytecode's and a script outside site-packages); its manifest entry is made from the
wheel as ``make dist`` makes it (deploy/build.py).  The copied install is a virtual environment of its own
(no pip: ``venv --without-pip``) with the program's packages copied into its site-packages and a manifest of
them; its dependencies come from this interpreter's (``PYTHONPATH``), outside the release's site-packages.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import io
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from controller import program
from controller.cli.main import main
from controller.journal.store import Journal
from daemon_harness import ROOT, table_in_process
from test_program import FILES, flip_one_byte, release

sys.path.insert(0, str(ROOT / "deploy"))
import build  # noqa: E402  (deploy/build.py: make dist)

NY = "NY 9 NYCRR 5321.18(b)(3)(iv)"
DEP = {"fakedep/__init__.py": b"from .core import x\n", "fakedep/core.py": b"x = 1\n",
       "fakedep/data/table.bin": b"\x00\x01\x02", "fakedep-1.2.dist-info/METADATA": b"Name: FakeDep\nVersion: 1.2\n",
       "fakedep-1.2.dist-info/WHEEL": b"Wheel-Version: 1.0\n"}
SCRIPT = ("fakedep-1.2.data/scripts/fakedep", b"#!python\nimport fakedep\n")


def _hash(content: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()


def dependency(tmp_path: Path, site: Path) -> Path:
    """FakeDep 1.2's wheel, and it installed into ``site`` as pip would."""
    wheel = tmp_path / "fakedep-1.2-py3-none-any.whl"
    record = "".join(f"{p},{_hash(c)},{len(c)}\n" for p, c in [*DEP.items(), SCRIPT])
    record += "fakedep-1.2.dist-info/RECORD,,\n"
    with zipfile.ZipFile(wheel, "w") as z:
        for p, c in [*DEP.items(), SCRIPT]:
            z.writestr(p, c)
        z.writestr("fakedep-1.2.dist-info/RECORD", record)
    for p, c in DEP.items():
        (site / p).parent.mkdir(parents=True, exist_ok=True)
        (site / p).write_bytes(c)
    (site / "fakedep" / "__pycache__").mkdir()
    (site / "fakedep" / "__pycache__" / "core.cpython-311.pyc").write_bytes(b"compiled")
    installed = "".join(f"{p},{_hash(c)},{len(c)}\n" for p, c in DEP.items())
    installed += (f"fakedep/__pycache__/core.cpython-311.pyc,{_hash(b'compiled')},8\n"
                  f"../../../bin/fakedep,{_hash(b'#!/venv/bin/python')},18\n"
                  f"fakedep-1.2.dist-info/INSTALLER,{_hash(b'pip')},3\nfakedep-1.2.dist-info/RECORD,,\n")
    (site / "fakedep-1.2.dist-info" / "RECORD").write_text(installed)
    (site / "fakedep-1.2.dist-info" / "INSTALLER").write_text("pip")
    return wheel


def with_dependency(tmp_path: Path) -> program.Release:
    """test_program's release, its manifest made again with FakeDep's wheel beside the program's."""
    r = release(tmp_path)
    wheel = dependency(tmp_path, r.root)
    build.write_manifest(tmp_path / "table_controller-0.1.0-py3-none-any.whl", r.manifest, "0.1.0-test", [wheel])
    return r


def independent(root: Path, seed: bytes | None) -> str:
    """docs/compliance.md's stream by hashlib and hmac alone: the program's files by their paths' UTF-8 bytes,
    then the distribution's files its RECORD lists inside site-packages (not its own RECORD and INSTALLER, not
    the bytecode), by their paths' UTF-8 bytes."""
    paths = sorted(FILES, key=str.encode) + sorted((p for p in DEP), key=str.encode)
    msg = b"".join(p.encode() + b"\x00" + len((root / p).read_bytes()).to_bytes(8, "big") + (root / p).read_bytes()
                   for p in paths)
    return hmac.new(seed, msg, hashlib.sha256).hexdigest() if seed is not None else hashlib.sha256(msg).hexdigest()


@pytest.mark.requirement("N.J.A.C. 13:69E-1.28(c)")
def test_a_dependencys_files_are_checked_against_its_record(tmp_path):
    r = with_dependency(tmp_path)
    (entry,) = program.read_manifest(r.manifest)["distributions"]
    assert (entry["name"], entry["version"], entry["files"]) == ("FakeDep", "1.2", len(DEP))
    ok = program.check(r)
    assert (ok.state, ok.problems, ok.distributions, ok.dependency_files) == ("verified", (), 1, len(DEP))
    assert ok.digest == independent(r.root, None)
    flip_one_byte(r.root / "fakedep" / "core.py")
    assert program.check(r).problems == ("changed: fakedep/core.py",)
    (r.root / "fakedep" / "core.py").write_bytes(DEP["fakedep/core.py"])
    (r.root / "fakedep" / "hook.py").write_text("import os\n")  # code RECORD does not list
    (r.root / "fakedep" / "data" / "extra.bin").write_bytes(b"\x00")  # not code: not looked for
    (r.root / "sitecustomize.pth").write_text("import fakedep\n")  # a .pth runs at every start
    assert program.check(r).problems == ("unexpected: fakedep/hook.py", "unexpected: sitecustomize.pth")
    (r.root / "fakedep" / "hook.py").unlink()
    (r.root / "sitecustomize.pth").unlink()
    meta = r.root / "fakedep-1.2.dist-info" / "METADATA"
    meta.write_text("Name: FakeDep\nVersion: 1.3\n")
    (r.root / "other-0.1.dist-info").mkdir()
    (r.root / "other-0.1.dist-info" / "METADATA").write_text("Name: other\nVersion: 0.1\n")
    (r.root / "table_controller-0.1.0.dist-info").mkdir()  # the program's own: its files are listed one by one
    (r.root / "table_controller-0.1.0.dist-info" / "METADATA").write_text("Name: table-controller\nVersion: 0.1.0\n")
    bad = program.check(r)
    assert bad.refuses and bad.problems == ("version: FakeDep 1.3 (release: 1.2)",
                                            "changed: fakedep-1.2.dist-info/METADATA",  # RECORD lists it too
                                            "unexpected: distribution other 0.1")
    shutil.rmtree(r.root / "fakedep-1.2.dist-info")
    assert program.check(r).problems[0] == "missing: distribution FakeDep 1.2"


@pytest.mark.requirement(NY)
def test_verify_program_seeded_covers_the_dependencies(tmp_path, monkeypatch):
    r = with_dependency(tmp_path)
    monkeypatch.setattr(program, "installed", lambda: r)
    seed = bytes(range(7, 39))
    out, err = io.StringIO(), io.StringIO()
    assert main(["verify-program", "--seed", seed.hex(), "--json"], stdout=out, stderr=err) == 0, err.getvalue()
    got = json.loads(out.getvalue())
    assert (got["distributions"], got["dependency_files"]) == (1, len(DEP))
    assert got["digest"] == independent(r.root, None) and got["seeded"] == independent(r.root, seed)
    flip_one_byte(r.root / "fakedep" / "__init__.py")
    out = io.StringIO()
    assert main(["verify-program", "--seed", seed.hex(), "--json"], stdout=out, stderr=io.StringIO()) == 2
    assert json.loads(out.getvalue())["problems"] == ["changed: fakedep/__init__.py"]


def copied_install(tmp_path: Path) -> tuple[Path, program.Release]:
    """A virtual environment with the program's packages copied into it and their manifest beside it."""
    venv = tmp_path / "release" / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    purelib = sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)})
    site = Path(purelib)
    files = {}
    for pkg in program.PACKAGES:
        shutil.copytree(ROOT / pkg, site / pkg, ignore=shutil.ignore_patterns("__pycache__"))
        files.update({f.relative_to(site).as_posix(): f.read_bytes() for f in (site / pkg).rglob("*") if f.is_file()})
    manifest = tmp_path / "release" / program.MANIFEST
    manifest.write_text(json.dumps(program.manifest_of(files, "0.1.0-copy")))
    return venv / "bin" / "python", program.Release(manifest, site)


@pytest.mark.requirement(NY)
@pytest.mark.requirement("AGCO error conditions")
def test_a_module_that_no_longer_imports_is_refused_before_the_daemon_starts(tmp_path, monkeypatch):
    python, r = copied_install(tmp_path)
    daemon = r.root / "controller" / "daemon.py"
    good = daemon.read_bytes()
    flip_one_byte(daemon)
    with pytest.raises(SyntaxError):  # (the byte changed breaks the module, as the test means)
        compile(daemon.read_bytes(), str(daemon), "exec")
    state = tmp_path / "state"
    state.mkdir()
    deps = sysconfig.get_path("purelib")  # this interpreter's: numpy, pydantic ... outside the release
    with table_in_process("high_card_flush", state, monkeypatch) as t:
        env = {**os.environ, "PYTHONPATH": deps}
        run = subprocess.run([str(python), "-m", "controller.cli", "run", "--config", str(t.config_path)],
                             env=env, capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert run.returncode == 2, run.stderr
        lines = run.stderr.splitlines()
        assert len(lines) == 1 and "changed: controller/daemon.py" in lines[0] and "SyntaxError" in lines[0], lines
        kept = program.read_refusal(t.journal_path)
        assert kept["problems"] == ["changed: controller/daemon.py"] and kept["journaled"] is False
        assert kept["not_started"].startswith("SyntaxError")
        assert program.refused_view(kept, 0.0)["cause"] == "does_not_start"  # the screens' view of it (P122)
        # the module put back: the next start journals the refusal it could not, and stays refused (P115)
        daemon.write_bytes(good)
        monkeypatch.setattr(program, "installed", lambda: r)
        t.start_daemon()
        s = t.until(lambda s: s.get("program") is not None, "the program checked")
        assert s["program"]["state"] == "verified" and s["program"]["refused"]
        assert s["next_action"]["action"] == "program_refused"
        assert [a["kind"] for a in s["alarms"]] == ["program_refused"]
        t.stop_daemon()
        assert program.read_refusal(t.journal_path)["journaled"] is True
    with Journal(state / "table.journal") as j:
        rows = [e.data for e in j.events(None) if e.kind == "program_checked"]
    assert [(d["state"], d.get("refused_at") is not None) for d in rows] == [("mismatch", True), ("verified", False)]
    assert rows[0]["problems"] == ["changed: controller/daemon.py"] and rows[0]["not_started"].startswith("Syntax")
