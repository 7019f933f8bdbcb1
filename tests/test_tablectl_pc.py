"""What a technician uses on the table PC (issue 15): check-config, --table, journald, help, progress."""

from __future__ import annotations

import argparse
import io
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import structlog

from controller import logs
from controller.cli.analyze import _Bar
from controller.cli.main import SUBCOMMANDS, build_parser, main
from demo.run import start_simulator, stop_processes

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "config" / "examples").glob("*.toml"))


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(list(argv), stdout=out, stderr=err), out.getvalue(), err.getvalue()


@pytest.mark.parametrize("path", EXAMPLES + sorted((ROOT / "config").glob("*.toml")), ids=lambda p: p.name)
def test_check_config_passes_every_example(path):
    code, out, err = run("check-config", str(path))
    assert (code, err) == (0, "")
    assert out.startswith(f"{path}: ok")


def test_the_real_device_examples_name_real_ports():
    """shoe and shuffler by their udev names; panel and progressive over Modbus RTU (RS-485) and TCP."""
    text = {p.name: p.read_text() for p in EXAMPLES}
    rs485, tcp = text["hcf-03-rs485.toml"], text["uth-07-tcp.toml"]
    assert re.search(r'(?m)^shoe = "/dev/serial/by-id/', rs485)
    assert re.search(r'(?m)^shuffler = "/dev/serial/by-id/', rs485)
    assert re.search(r'(?m)^panel = "rtu:///dev/serial/by-id/', rs485)
    assert re.search(r'(?m)^progressive = "rtu:///dev/serial/by-id/', rs485)
    assert re.search(r'(?m)^panel = "tcp://', tcp) and re.search(r'(?m)^progressive = "tcp://', tcp)


def test_check_config_names_every_problem_at_once(tmp_path):
    broken = (ROOT / "config" / "ultimate_texas_holdem.toml").read_text()
    broken = broken.replace('seats = 6', 'seats = 9').replace('paytable = "A"                      # UTH ch.12 §C(1)',
                                                              'paytable = "Z"')
    broken = broken.replace('decks = 2 ', 'decks = 3 ') + '\ncolour = "red"\n'
    path = tmp_path / "broken.toml"
    path.write_text(broken)
    code, out, err = run("check-config", str(path))
    assert code == 2 and out == ""
    keys = {line.strip().split(":")[0].split(" ")[0] for line in err.splitlines()[1:]}
    assert keys == {"seats", "dealing.decks", "supervisors.colour"}  # (appended: under [supervisors], the last table)
    path.write_text(broken.replace('seats = 9', 'seats = 6').replace('decks = 3 ', 'decks = 2 ')
                    .replace('\ncolour = "red"\n', '\n').replace('adjacent_boxes = 2', 'adjacent_boxes = 7'))
    code, _, err = run("check-config", str(path))
    keys = {line.strip().split(":")[0] for line in err.splitlines()[1:]}
    assert code == 2 and keys == {"adjacent_boxes", "wagers.trips.paytable"}


def test_check_config_checks_several_files_each_on_its_own(tmp_path):
    """One process for several files (the installer checks every table at once): each good file its line,
    each bad one its own problems under its name, exit 2 when any is refused."""
    good = ROOT / "config" / "ultimate_texas_holdem.toml"
    bad = tmp_path / "bad.toml"
    bad.write_text(good.read_text().replace("seats = 6", "seats = 9"))
    code, out, err = run("check-config", str(bad), str(good))
    assert code == 2
    assert [line.split(": ok ")[0] for line in out.splitlines()] == [str(good)]
    head, *problems = err.splitlines()
    assert head.split(": ")[1] == str(bad) and str(good) not in err
    assert [p.strip().split(":")[0] for p in problems] == ["seats"]
    code, out, err = run("check-config", str(good), str(EXAMPLES[0]))
    assert (code, err) == (0, "") and [line.split(": ok ")[0] for line in out.splitlines()] == [str(good),
                                                                                            str(EXAMPLES[0])]


def test_check_config_never_touches_a_device_without_devices(tmp_path):
    """The example's ports do not exist here: without --devices that is no problem, with it each is one line."""
    code, _, _ = run("check-config", str(EXAMPLES[0]))
    assert code == 0
    code, out, _ = run("check-config", str(EXAMPLES[0]), "--devices")
    lines = out.splitlines()[1:]
    assert code == 2 and len(lines) == 4 and all("NOT ANSWERING" in line for line in lines)


def test_check_config_devices_asks_each_device_who_it_is(tmp_path, monkeypatch):
    procs = []
    try:
        for device in ("shuffler", "progressive", "panel"):
            monkeypatch.setenv(f"TABLE_DEVICES__{device.upper()}", start_simulator(device, 0, procs).url)
        code, out, err = run("check-config", str(ROOT / "config" / "ultimate_texas_holdem.toml"), "--devices")
    finally:
        stop_processes(procs)
    lines = dict(line.split(None, 1) for line in out.splitlines()[1:])
    assert code == 0, out + err
    assert set(lines) == {"shuffler", "progressive", "panel"}
    assert "shuffler, protocol version 1" in lines["shuffler"]
    assert "Modbus unit 1, register map version 1" in lines["progressive"]
    assert "Modbus unit 2, register map version 1" in lines["panel"]


def _table_files(tmp_path, monkeypatch, journal: str) -> None:
    etc = tmp_path / "etc"
    etc.mkdir()
    text = (ROOT / "config" / "ultimate_texas_holdem.toml").read_text()
    (etc / "uth-01.toml").write_text(re.sub(r'(?m)^journal = .*$', f'journal = "{journal}"', text))
    monkeypatch.setenv("TABLECTL_ETC_DIR", str(etc))
    monkeypatch.setenv("TABLECTL_STATE_DIR", str(tmp_path / "state"))


def test_table_id_finds_the_configuration_and_the_units_journal(tmp_path, monkeypatch):
    _table_files(tmp_path, monkeypatch, f"{tmp_path}/state/uth-01.journal")
    code, out, err = run("check-config", "--table", "uth-01")
    assert code == 0, err
    assert f"journal {tmp_path}/state/uth-01.journal" in out
    code, _, err = run("status", "--table", "uth-01")  # the daemon never ran: the status it would write is named
    assert code == 2 and f"{tmp_path}/state/uth-01.status.json" in err
    code, _, err = run("check-config", "--table", "uth-02")
    assert code == 2 and "uth-02.toml does not exist" in err


def test_a_journal_the_unit_cannot_write_is_refused(tmp_path, monkeypatch):
    _table_files(tmp_path, monkeypatch, f"{tmp_path}/elsewhere/uth-01.journal")
    code, _, err = run("check-config", "--table", "uth-01")
    assert code == 2 and "journal:" in err and str(tmp_path / "state") in err


def test_every_option_of_every_subcommand_has_help():
    missing = []

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, p in action.choices.items():
                    walk(p, f"{name} {sub}")
            elif not action.help:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")

    walk(build_parser(), "tablectl")
    assert missing == []


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    return next(list(a.choices) for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def test_each_module_adds_the_subcommands_cli_says():
    """The parser of one subcommand has its module's commands only; the whole parser every one, in order."""
    for module, names in SUBCOMMANDS:
        for name in names:
            assert _commands(build_parser(name)) == ["settle", *names], module
    assert _commands(build_parser("settle")) == ["settle"]
    assert _commands(build_parser()) == ["settle", *(name for _, names in SUBCOMMANDS for name in names)]


def test_a_command_loads_its_own_module_only():
    """`tablectl settle` starts without the configuration's models, `run` (every daemon) without the other
    commands' modules, and no command asks git for the version unless --version is given (issue 12)."""
    probe = ("import sys\nfrom controller.cli.main import build_parser\nfor command in ('settle', 'run'):\n"
             "    build_parser(command)\n"
             "    print(' '.join(m for m in sys.modules if m.startswith(('controller', 'web', 'pydantic'))))")
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    settle, run = (set(line.split()) for line in out.splitlines())
    assert not {m for m in settle if m.startswith(("pydantic", "controller.config.table"))}
    assert not settle & ({m for m, _ in SUBCOMMANDS} | {"controller.version"})
    others = {m for m, names in SUBCOMMANDS if "run" not in names} | {"controller.version"}
    assert "controller.cli.table" in run and not run & others


def test_version_names_the_commit(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    out = capsys.readouterr().out
    assert e.value.code == 0 and re.fullmatch(r"table-controller \S+ \(commit [0-9a-f]{7,}(-dirty)?\)\n", out)


# -- journald ------------------------------------------------------------------------------------


def test_journald_gets_priority_and_fields(tmp_path, monkeypatch):
    sink = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sink.bind(str(tmp_path / "journal"))
    monkeypatch.setenv(logs.JOURNAL_SOCKET_ENV, str(tmp_path / "journal"))
    structlog.contextvars.clear_contextvars()  # nothing bound by an earlier test in this process
    try:
        assert logs.configure("journald") == "journald"
        with structlog.contextvars.bound_contextvars(table="7", round_id="r-1"):
            structlog.get_logger("table").warning("device offline", device="shoe", reason="no answer\nat all")
        structlog.get_logger("table").info("devices online")
    finally:
        logs.configure("json")
        structlog.contextvars.clear_contextvars()
    first, second = sink.recv(65536), sink.recv(65536)
    fields = _parse(first)
    assert (fields["PRIORITY"], fields["TABLE"], fields["ROUND_ID"], fields["DEVICE"]) == ("4", "7", "r-1", "shoe")
    assert fields["EVENT"] == "device offline" and 'reason="no answer\\nat all"' in fields["MESSAGE"]
    assert _parse(second)["PRIORITY"] == "6" and "TABLE" not in _parse(second)


def test_journald_binary_form_for_a_value_with_a_newline():
    data = logs.encode({"MESSAGE": "a\nb", "PRIORITY": "3"})
    assert data == b"MESSAGE\n" + (3).to_bytes(8, "little") + b"a\nb\nPRIORITY=3\n"


def test_auto_is_journald_only_when_stderr_is_the_journal_stream(tmp_path, monkeypatch):
    with open(tmp_path / "stream", "w") as f, open(tmp_path / "other", "w") as g:
        st = os.fstat(f.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{st.st_dev}:{st.st_ino}")
        assert logs.under_journald(f) and not logs.under_journald(g)
    monkeypatch.delenv("JOURNAL_STREAM")
    assert not logs.under_journald(f)


def _parse(data: bytes) -> dict[str, str]:
    out, i = {}, 0
    while i < len(data):
        nl = data.index(b"\n", i)
        line = data[i:nl]
        if b"=" in line:
            k, v = line.split(b"=", 1)
            out[k.decode()], i = v.decode(), nl + 1
        else:
            n = int.from_bytes(data[nl + 1:nl + 9], "little")
            out[line.decode()], i = data[nl + 9:nl + 9 + n].decode(), nl + 9 + n + 1
    return out


# -- progress ------------------------------------------------------------------------------------


class _Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_progress_off_a_terminal_is_one_line_per_stage_with_the_time_it_will_take(monkeypatch):
    clock = _Clock()
    monkeypatch.setattr("controller.cli.analyze.time.monotonic", clock)
    stream = io.StringIO()  # not a terminal
    bar = _Bar(stream, "rounds")
    for done in range(0, 1_000_001, 10_000):
        clock.t += 0.5
        bar(done, 1_000_000)
    bar.close()
    text = stream.getvalue()
    assert "\r" not in text
    lines = text.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("tablectl analyze: 1,000,000 rounds, ") and "s left" in lines[0]
    assert lines[1].startswith("tablectl analyze: done in ")
