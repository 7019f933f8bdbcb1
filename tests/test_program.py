"""Program verification (controller/program.py, P115): the release's manifest, the daemon's check at start, the
refusal kept across restarts until a technician clears it, and ``tablectl verify-program --seed`` against an
independent computation of the algorithm docs/compliance.md gives.

The release is a small tree of package files with its manifest, made here as ``make dist`` makes it
(deploy/build.py ``write_manifest`` from a wheel); the daemon is pointed at it in place of its own (a source
checkout's, which has none).  One byte changed in an installed file is the tampering.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import json
import sys
import zipfile
from pathlib import Path

import pytest

from controller import program
from controller.cli.main import main
from controller.journal.store import Journal
from daemon_harness import ROOT, table_in_process

sys.path.insert(0, str(ROOT / "deploy"))
import build  # noqa: E402  (deploy/build.py: make dist)

FILES = {"games/__init__.py": b'"""games"""\n', "games/rules.py": b"PAYS = 500\n",
         "controller/__init__.py": b"", "web/static/app.js": b"say();\n"}
NY = "NY 9 NYCRR 5321.18(b)(3)(iv)"


def release(tmp_path: Path) -> program.Release:
    """An installed release: its packages under site/, MANIFEST.json as make dist writes it from the wheel."""
    wheel = tmp_path / "table_controller-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for name, data in FILES.items():
            z.writestr(name, data)
        z.writestr("table_controller-0.1.0.dist-info/RECORD", "not in the manifest\n")
    build.write_manifest(wheel, tmp_path / "MANIFEST.json", "0.1.0-test")
    site = tmp_path / "site"
    for name, data in FILES.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_bytes(data)
    (site / "games" / "__pycache__").mkdir()
    (site / "games" / "__pycache__" / "rules.cpython-311.pyc").write_bytes(b"compiled at install")
    return program.Release(tmp_path / "MANIFEST.json", site)


def flip_one_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-2] ^= 0x01
    path.write_bytes(bytes(data))


def independent(root: Path, seed: bytes | None) -> str:
    """docs/compliance.md's algorithm, by hashlib and hmac alone: per file in the manifest's order (paths sorted
    by their UTF-8 bytes) the path, 0x00, the length as 8 bytes big-endian, the content."""
    msg = b"".join(p.encode() + b"\x00" + len(FILES[p]).to_bytes(8, "big") + (root / p).read_bytes()
                   for p in sorted(FILES, key=lambda p: p.encode()))
    return hmac.new(seed, msg, hashlib.sha256).hexdigest() if seed is not None else hashlib.sha256(msg).hexdigest()


@pytest.mark.requirement("N.J.A.C. 13:69E-1.28(c)")
def test_manifest_lists_the_wheels_files_and_one_byte_changed_is_found(tmp_path):
    r = release(tmp_path)
    m = program.read_manifest(r.manifest)
    assert [f["path"] for f in m["files"]] == sorted(FILES)  # not the wheel's dist-info
    assert all(f["sha256"] == hashlib.sha256(FILES[f["path"]]).hexdigest() for f in m["files"])
    ok = program.check(r)
    assert (ok.state, ok.problems, ok.files, ok.release) == ("verified", (), 4, "0.1.0-test")
    assert ok.digest == independent(r.root, None)
    flip_one_byte(r.root / "games" / "rules.py")
    bad = program.check(r)
    assert bad.state == "mismatch" and bad.refuses and bad.problems == ("changed: games/rules.py",)
    (r.root / "games" / "rules.py").write_bytes(FILES["games/rules.py"])
    (r.root / "games" / "extra.py").write_bytes(b"import os\n")  # a module added inside a package
    (r.root / "web" / "static" / "app.js").unlink()
    assert program.check(r).problems == ("missing: web/static/app.js", "unexpected: games/extra.py")


@pytest.mark.requirement(NY)
def test_an_installed_copy_without_a_manifest_refuses_a_checkout_is_development(tmp_path):
    r = release(tmp_path)
    r.manifest.unlink()
    assert program.check(r).state == "no_manifest" and program.check(r).refuses
    dev = program.check(program.Release(r.manifest, r.root, checkout=True))
    assert dev.state == "development" and not dev.refuses
    # this test's own process runs from the source tree: a development copy, never a release
    assert program.installed().checkout


@pytest.mark.requirement(NY)
def test_verify_program_seeded_matches_an_independent_computation(tmp_path, monkeypatch):
    r = release(tmp_path)
    monkeypatch.setattr(program, "installed", lambda: r)
    seed = bytes(range(1, 17))
    out, err = io.StringIO(), io.StringIO()
    assert main(["verify-program", "--seed", seed.hex(), "--json"], stdout=out, stderr=err) == 0, err.getvalue()
    got = json.loads(out.getvalue())
    assert got["state"] == "verified" and got["digest"] == independent(r.root, None)
    assert got["seeded"] == independent(r.root, seed)
    assert got["seeded"] != independent(r.root, b"\x02" + seed[1:])  # the seed matters
    flip_one_byte(r.root / "games" / "__init__.py")
    out = io.StringIO()
    assert main(["verify-program", "--seed", seed.hex(), "--json"], stdout=out, stderr=io.StringIO()) == 2
    failed = json.loads(out.getvalue())
    assert failed["state"] == "mismatch" and failed["seeded"] is None
    assert failed["problems"] == ["changed: games/__init__.py"]
    assert main(["verify-program", "--seed", "xyz"], stdout=io.StringIO(), stderr=(err := io.StringIO())) == 2
    assert "--seed" in err.getvalue()


@pytest.mark.requirement(NY)
@pytest.mark.requirement("AGCO error conditions")
def test_a_changed_file_refuses_play_and_the_refusal_survives_a_restart_until_cleared(tmp_path, monkeypatch):
    state = tmp_path / "state"
    state.mkdir()
    r = release(tmp_path)
    monkeypatch.setattr(program, "installed", lambda: r)
    flip_one_byte(r.root / "games" / "rules.py")
    with table_in_process("high_card_flush", state, monkeypatch) as t:
        t.start_daemon()
        s = t.until(lambda s: s.get("program") is not None, "the program checked")
        assert s["program"]["state"] == "mismatch" and s["program"]["refused"]
        assert s["next_action"]["action"] == "program_refused" and s["next_action"]["why"] == "P115"
        assert [a["kind"] for a in s["alarms"]] == ["program_refused"] and s["alarms"][0]["priority"] == "high"
        s = t.press_refused("confirm")
        assert s["told"]["cause"] == "program_refused" and s["state"] != "open"
        t.stop_daemon()
        # the file put back: still refused after a restart (AGCO: the error survives a power cycle)
        (r.root / "games" / "rules.py").write_bytes(FILES["games/rules.py"])
        t.start_daemon()
        s = t.until(lambda s: s.get("program") is not None and s["program"]["state"] == "verified", "restarted")
        assert s["program"]["refused"] and s["next_action"]["action"] == "program_refused"
        t.stop_daemon()
        config = ["--config", str(t.config_path)]
        err = io.StringIO()
        assert main(["verify-program", *config, "--clear", "--by", "tech 7"], stdout=io.StringIO(), stderr=err) == 2
        assert "--reason" in err.getvalue()  # who and why, or nothing is cleared
        assert main(["verify-program", *config, "--clear", "--by", "tech 7", "--reason", "reinstalled 0.1.0"],
                    stdout=io.StringIO(), stderr=(err := io.StringIO())) == 0, err.getvalue()
        t.start_daemon()
        # (the new daemon's first status: the last one published is the refused daemon's)
        s = t.until(lambda s: s["program"]["refused"] is False, "the refusal cleared")
        assert s["program"]["state"] == "verified" and s["next_action"]["action"] != "program_refused"
        t.open_table()
        assert t.status()["state"] == "open"
        assert not program.refusal_file(t.journal_path).exists()
        t.stop_daemon()
    with Journal(state / "table.journal") as j:
        rows = [e for e in j.events(None) if e.kind.startswith("program_")]
    assert [(e.kind, e.data.get("state")) for e in rows] == [
        ("program_checked", "mismatch"), ("program_checked", "verified"), ("program_cleared", None),
        ("program_checked", "verified")]
    assert rows[0].data["problems"] == ["changed: games/rules.py"] and rows[0].data["digest"]
    assert rows[2].data["by"] == "tech 7" and rows[2].data["reason"] == "reinstalled 0.1.0"


@pytest.mark.requirement(NY)
def test_a_file_changed_while_the_table_plays_refuses_the_next_press(tmp_path, monkeypatch):
    state = tmp_path / "state"
    state.mkdir()
    r = release(tmp_path)
    monkeypatch.setattr(program, "installed", lambda: r)
    with table_in_process("high_card_flush", state, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        assert t.status()["program"]["state"] == "verified"
        flip_one_byte(r.root / "web" / "static" / "app.js")
        daemon = t.daemon.daemon
        t.loop.run(daemon.check_program())  # what every [program] check_hours runs
        s = t.until(lambda s: s["program"]["state"] == "mismatch", "the check published")
        assert s["program"]["refused"] and s["next_action"]["action"] == "program_refused"
        assert [a["kind"] for a in s["alarms"]] == ["program_refused"]
        assert t.press_refused("no_more_bets")["told"]["cause"] == "program_refused"
        assert program.read_refusal(t.journal_path)["problems"] == ["changed: web/static/app.js"]
        t.stop_daemon()
