"""The offline install of issue 15, as a technician does it (docs/install.md), under a temporary prefix.

One test, because every step needs the artefacts (two `make dist` builds, stamped with two commits)
and xdist would build them once per worker: install without network (in a network namespace of
its own when we are root: `unshare -n`; the installer itself uses `pip --no-index` and no pip
configuration of the machine's), the installed copy's version, check-config and unit; the daemon
started with the unit's own command line and environment against the simulators, a jam injected
into the shuffler and its warning checked on the entry the daemon hands to journald; then an
upgrade and a rollback, one command each.  Nothing touches /etc or /opt: every directory is under
tmp_path.  It takes about a minute on an idle machine and some 45-55 s of CPU (less once
build/wheel-cache and the kept build environment exist), most of it pip's: the two installs (half of
each is compiling the dependencies' bytecode), then the first build.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from controller.cli import check as checkcli
from controller.paths import load_table
from daemon_harness import bet, deal, next_round, no_more_bets, phase, play_out, round_id, simulated_table
from test_irregularities_devices import JAM

ROOT = Path(__file__).resolve().parent.parent
TABLE = "uth-01"


def build(out: Path, commit: str) -> Path:
    r = subprocess.run([sys.executable, str(ROOT / "deploy" / "build.py"), "--out", str(out), "--commit", commit],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    artefact = Path(r.stdout.strip().splitlines()[-1])
    # unpacked as the technician does (docs/install.md); tarfile's extraction filters came with Python
    # 3.11.4, and Debian 12's is 3.11.2
    subprocess.run(["tar", "xzf", str(artefact), "-C", str(out)], check=True)
    (unpacked,) = out.glob(f"table-controller-*-{commit}-*/")
    return unpacked


def table_files(etc: Path, state: Path, examples: Path) -> None:
    """A table PC's tables: uth-01 (the simulators') and the real-device examples, their journals in state."""
    etc.mkdir()
    state.mkdir()
    (etc / f"{TABLE}.toml").write_text(re.sub(r'(?m)^journal = .*$', f'journal = "{state}/{TABLE}.journal"',
                                              (ROOT / "config" / "ultimate_texas_holdem.toml").read_text()))
    for example in examples.glob("*.toml"):  # the real-device tables, journal moved here
        (etc / example.name.split("-rs485")[0].split("-tcp")[0]).with_suffix(".toml").write_text(
            re.sub(r'(?m)^journal = .*$', f'journal = "{state}/{example.stem}.journal"', example.read_text()))


def offline(cmd: list[str]) -> list[str]:
    """No network at all, when we may make a namespace without one."""
    if os.geteuid() == 0 and shutil.which("unshare"):
        return ["unshare", "--net", *cmd]
    return cmd


def unit_command(unit_text: str, table: str) -> tuple[list[str], dict[str, str]]:
    """ExecStart= and Environment= of the unit, %i filled in, as systemd would run them."""
    execstart = re.search(r"^ExecStart=(.+)$", unit_text, re.M).group(1).replace("%i", table)
    env = {}
    for line in re.findall(r"^Environment=(.+)$", unit_text, re.M):
        for pair in shlex.split(line):
            k, v = pair.split("=", 1)
            env[k] = v.replace("%i", table)
    return shlex.split(execstart), env


def receive_journal(sock: socket.socket, entries: list[dict[str, str]]) -> None:
    """What journald would receive, as it would: read as soon as sent (until the socket is closed)."""
    while True:
        try:
            data = sock.recv(1 << 16)
        except OSError:
            return
        if not data:
            return
        entries.append(dict(line.split("=", 1) for line in data.decode().splitlines() if "=" in line))


@pytest.mark.install  # make test-install (CI runs it): a minute of pip, apart from make test
@pytest.mark.requirement("58 Pa. Code 461a.4(b)")
def test_offline_install_daemon_upgrade_and_rollback(tmp_path, monkeypatch):
    # the second build after the first (beside the first install): it then finds build/wheel-cache and the
    # kept build environment made, as a technician's second `make dist` does, instead of both making them
    pool = ThreadPoolExecutor(1)
    a = build(tmp_path / "a", "aaaaaaaaaaaa")
    later_b = pool.submit(build, tmp_path / "b", "bbbbbbbbbbbb")
    wheels = {p.name.split("-")[0].lower() for p in (a / "wheelhouse").glob("*.whl")}
    assert {"table_controller", "pyserial", "pymodbus", "structlog", "pydantic_settings", "numpy", "pip"} <= wheels

    etc, state, prefix = tmp_path / "etc", tmp_path / "state", tmp_path / "opt"
    table_files(etc, state, a / "config-examples")
    dirs = ["--prefix", str(prefix), "--etc-dir", str(etc), "--state-dir", str(state),
            "--systemd-dir", str(tmp_path / "systemd"), "--udev-dir", str(tmp_path / "udev"), "--files-only"]

    # -- install: one command, no network
    r = subprocess.run(offline([str(a / "install.sh"), *dirs]), capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    tablectl = prefix / "bin" / "tablectl"
    assert "aaaaaaaaaaaa" in subprocess.run([tablectl, "--version"], capture_output=True, text=True).stdout
    (site,) = (prefix / "current" / "venv" / "lib").glob("python3*/site-packages")
    program = [p for pkg in ("games", "controller", "drivers", "simulators", "web") for p in (site / pkg).rglob("*.py")]
    assert program and all(Path(importlib.util.cache_from_source(p)).exists() for p in program)  # compiled at install
    # the installed copy is its release's: every file the manifest names, and nothing added (P115)
    r = subprocess.run([tablectl, "verify-program", "--json"], capture_output=True, text=True)
    assert r.returncode == 0 and json.loads(r.stdout)["state"] == "verified", r.stdout + r.stderr
    assert json.loads(r.stdout)["files"] == len(json.loads((a / "MANIFEST.json").read_text())["files"]) > len(program)
    examples = sorted((a / "config-examples").glob("*.toml"))
    r = subprocess.run([tablectl, "check-config", *examples], capture_output=True, text=True)  # all in one
    assert r.returncode == 0, r.stderr
    assert [line.split(": ok ")[0] for line in r.stdout.splitlines()] == [str(e) for e in examples]
    unit = (tmp_path / "systemd" / "table-controller@.service").read_text()
    assert not re.search(r"@[A-Z_]+@", unit)  # every path filled in
    assert f"TABLECTL_ETC_DIR={etc}" in unit
    web_unit = (tmp_path / "systemd" / "table-web@.service").read_text()  # the dealer's screen, beside it
    assert not re.search(r"@[A-Z_]+@", web_unit) and f"TABLECTL_ETC_DIR={etc}" in web_unit
    assert unit_command(web_unit, TABLE)[0] == [str(prefix / "current" / "venv" / "bin" / "tablectl"), "web",
                                                "--table", TABLE]
    dropins = {d.name: (d / "devices.conf").read_text() for d in (tmp_path / "systemd").glob("*.service.d")}
    assert "DeviceAllow=/dev/serial/by-id/usb-FTDI_FT232R_USB_UART_SHOE0001-if00-port0 rw" in \
        dropins["table-controller@hcf-03.service.d"]
    assert dropins["table-controller@uth-07.service.d"].count("IPAddressAllow=") == 2
    assert "IPAddressAllow=127.0.0.1" in dropins[f"table-controller@{TABLE}.service.d"]
    exposure = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager",
                               str(tmp_path / "systemd" / "table-controller@.service")], capture_output=True, text=True)
    level = float(re.search(r"Overall exposure level for \S+: ([\d.]+)", exposure.stdout).group(1))
    assert level < 2.0, exposure.stdout

    b = later_b.result()  # (before the daemon: it is not timed against a build)
    pool.shutdown()

    # -- the daemon from the installed copy, the unit's command line and environment, the simulators
    cmd, unit_env = unit_command(unit, TABLE)
    assert cmd == [str(prefix / "current" / "venv" / "bin" / "tablectl"), "run", "--table", TABLE]
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(tmp_path / "notify"))
    notify.settimeout(60)
    journald = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    journald.bind(str(tmp_path / "journald"))
    entries: list[dict[str, str]] = []
    reader = threading.Thread(target=receive_journal, args=(journald, entries), daemon=True)
    reader.start()
    with simulated_table("ultimate_texas_holdem", state, monkeypatch, config=etc / f"{TABLE}.toml") as t:
        stderr = open(tmp_path / "daemon.stderr", "w")
        st = os.fstat(stderr.fileno())
        env = {**os.environ, **unit_env, "TABLE_LOG_FORMAT": "auto", "NOTIFY_SOCKET": str(tmp_path / "notify"),
               "JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}", "TABLECTL_JOURNAL_SOCKET": str(tmp_path / "journald")}
        t.daemon = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=stderr, cwd=tmp_path)
        t.procs.append(t.daemon)
        try:
            ready = notify.recv(4096)
        except TimeoutError:
            ready = b""
        assert b"READY=1" in ready, (tmp_path / "daemon.stderr").read_text()  # every device answered
        _, s = next_round(t, None, load_shoe=False)
        for cmd_, kw in JAM:
            t.controls["shuffler"](cmd_, **kw)
        rid = bet(t, s)
        no_more_bets(t)
        deal(t)
        s = play_out(t)
        assert phase(s) == "voided" and round_id(s) == rid
    journald.shutdown(socket.SHUT_RDWR)
    reader.join(5)
    assert entries, (tmp_path / "daemon.stderr").read_text()
    jam = [e for e in entries if e.get("EVENT") == "irregularity"]
    assert jam and jam[0]["PRIORITY"] == "4", entries  # warning: `journalctl -p warning` finds it
    assert (jam[0]["TABLE"], jam[0]["ROUND_ID"], jam[0]["DEVICE"]) == (TABLE, rid, "shuffler")
    assert all(e["TABLE"] == TABLE and e["SYSLOG_IDENTIFIER"] == "tablectl" for e in entries)
    assert "{" not in (tmp_path / "daemon.stderr").read_text()  # nothing fell back to JSON lines

    # -- upgrade: one command; the version before is kept
    r = subprocess.run(offline([str(b / "install.sh"), *dirs]), capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "bbbbbbbbbbbb" in subprocess.run([tablectl, "--version"], capture_output=True, text=True).stdout
    assert os.readlink(prefix / "previous").endswith("aaaaaaaaaaaa")
    # -- rollback: one command
    r = subprocess.run(offline([str(prefix / "rollback")]), capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "aaaaaaaaaaaa" in subprocess.run([tablectl, "--version"], capture_output=True, text=True).stdout
    assert os.readlink(prefix / "previous").endswith("bbbbbbbbbbbb")

    # -- one byte of an installed file changed: verify-program fails and names it (P115)
    # (a module the check itself does not import: one that no longer compiles stops tablectl before any check)
    rules = site / "games" / "paytables" / "high_card_flush.py"
    data = bytearray(rules.read_bytes())
    data[len(data) // 2] ^= 0x01
    rules.write_bytes(bytes(data))
    r = subprocess.run([tablectl, "verify-program", "--json"], capture_output=True, text=True)
    assert r.returncode == 2, r.stdout + r.stderr
    assert json.loads(r.stdout)["problems"] == ["changed: games/paytables/high_card_flush.py"], r.stdout


def test_the_installer_checks_every_table_in_one_process_and_an_older_tablectl_one_each(tmp_path, monkeypatch):
    """install.check_tables: one check-config for every table, each table's drop-in split from its answer;
    the previous release's tablectl (a rollback runs it) may be one from before check-config took several
    tables, which checks only the last --table: then one process per table, the same drop-ins.  Any
    table refused: nothing to write, its problem said.  A stand-in tablectl answers with the drop-ins the
    real check-config makes of these tables (computed here, in this process), and logs its --table options."""
    spec = importlib.util.spec_from_file_location("install", ROOT / "deploy" / "install.py")
    install = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(install)
    etc, state, answers = tmp_path / "etc", tmp_path / "state", tmp_path / "answers"
    table_files(etc, state, ROOT / "config" / "examples")
    monkeypatch.setenv("TABLECTL_ETC_DIR", str(etc))
    monkeypatch.setenv("TABLECTL_STATE_DIR", str(state))
    names = sorted(p.stem for p in etc.glob("*.toml"))
    real = {t: checkcli.dropin(load_table(argparse.Namespace(table=t, config=None))) for t in names}
    answers.mkdir()
    for t, text in real.items():
        (answers / t).write_text(text)
    args = argparse.Namespace(etc_dir=etc, state_dir=state)

    def stand_in(old: bool, refused: str = "") -> Path:
        script = tmp_path / f"tablectl-{old}-{refused}"
        script.write_text(f"""#!/bin/sh
tables=""
for a in "$@"; do case $a in --table=*) tables="{'' if old else '$tables '}${{a#--table=}}";; esac; done
echo $tables >> {tmp_path}/calls
for t in $tables; do
  if [ "$t" = "{refused}" ]; then echo "tablectl check-config: $t.toml: 1 problem:" >&2; exit 2; fi
  cat {answers}/$t
done
""")
        script.chmod(0o755)
        return script

    def calls() -> list[str]:
        log = tmp_path / "calls"
        lines = log.read_text().splitlines()
        log.unlink()
        return lines

    assert install.check_tables(stand_in(old=False), args) == real
    assert calls() == [" ".join(names)]
    assert install.check_tables(stand_in(old=True), args) == real
    assert calls() == [names[-1], *names]
    with pytest.raises(install.Refused) as refused:
        install.check_tables(stand_in(old=False, refused=names[0]), args)
    assert f"{names[0]}.toml" in str(refused.value)
