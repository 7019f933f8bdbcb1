"""The operator's tools never answer with a traceback (issue 30): every ``tablectl`` subcommand, every
configuration file and every ``settle`` input gets one line (a configuration: its problems, all of them)
and exit 2; ``check-config --devices`` says why a device does not answer; ``make run`` stops what it
started on SIGTERM or SIGHUP and names a port in use; the artefact carries what its install guide names.

The property tests draw a few hundred hostile inputs each (thousands with ``make soak``'s settings are
not needed: the inputs are drawn from the values that broke the tools, and from text)."""

from __future__ import annotations

import copy
import fcntl
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import tomllib
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.cli import check as check_cli
from controller.cli.main import EXIT_REFUSED, main
from controller.config.table import ConfigError, load_config
from controller.journal.store import Journal

ROOT = Path(__file__).resolve().parent.parent
# examples a property test draws: a few hundred in make test, thousands in make soak (OPERATOR_TOOLS_EXAMPLES=3000)
EXAMPLES = int(os.environ.get("OPERATOR_TOOLS_EXAMPLES", "300"))
UTH = ROOT / "config" / "ultimate_texas_holdem.toml"
HOSTILE = ["-1", "0", "1e30", "99999999999999999999", "1000000001", "nan", "inf", "-inf", "1e-99999", "x", "",
           "1" * 5001, "0.001", "-0", "1e400000000", "a" * 300, "\x00", "1_000", " 5", "0x10", "½"]


def tablectl(*argv: str) -> tuple[int, str, str]:
    """``tablectl`` in this process; argparse's refusals (on sys.stderr) are caught too."""
    out, err = io.StringIO(), io.StringIO()
    real = sys.stderr
    sys.stderr = err
    try:
        code = main(list(argv), io.StringIO(""), out, err)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 2
    finally:
        sys.stderr = real
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def journal(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("j") / "table.journal"
    with Journal(path) as j:
        j.check_at_start("uth-01", "ultimate_texas_holdem")
        j.append("r-1", "wager", {"seat": 1, "wager": "ante", "amount": "5"})
        j.append("r-1", "round_voided", {"reason": "test"})
    return path


# -- tablectl's arguments ------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ("recall", "-1"),  # a negative count: a ValueError deep in the journal
    ("analyze", "--game", "ultimate_texas_holdem", "--wager", "progressive", "--paytable", "B", "--unit", "1e30"),
    ("analyze", "--game", "ultimate_texas_holdem", "--wager", "progressive", "--paytable", "B", "--meter",
     "major=1e30"),
    ("analyze", "--game", "ultimate_texas_holdem", "--wager", "progressive", "--paytable", "B", "--rate",
     "major=1e-99999"),
    ("analyze", "--game", "ultimate_texas_holdem", "--wager", "base", "--paytable", "A", "--rounds",
     "99999999999999999999"),  # a MemoryError
    ("status", "--table", "a" * 300),  # a file name too long: an OSError
    ("check-config", "a" * 300),
])
def test_what_gave_a_traceback_is_refused_in_one_line(argv, journal, monkeypatch):
    monkeypatch.setenv("TABLE_JOURNAL", str(journal))
    config = ("--config", str(UTH)) if argv[0] == "recall" else ()
    code, _, err = tablectl(*argv, *config)
    assert code == EXIT_REFUSED and "Traceback" not in err and err.count("\n") <= 2, err  # check-config: a head


def _commands(value: str) -> list[tuple[str, ...]]:
    c = ("--config", str(UTH))
    analyze = ("analyze", "--game", "ultimate_texas_holdem", "--wager")
    return [("recall", value, *c), ("recall", "--round", value, *c), ("recall", "--round", value, "--json", *c),
            ("progressive", "history", "--last", value, *c), ("progressive", "report", "--since", value, *c),
            ("status", "--table", value), ("journal", "verify", "--table", value), ("run", "--table", value),
            (*analyze, "progressive", "--paytable", "B", "--unit", value),
            (*analyze, "progressive", "--paytable", "B", "--meter", f"major={value}"),
            (*analyze, "progressive", "--paytable", "B", "--rate", f"major={value}"),
            (*analyze, "envy", "--paytable", "B", "--other-seats", value),
            (*analyze, "base", "--paytable", "A", "--json", "--rounds", value),
            ("analyze", "--game", value, "--wager", "trips"), ("check-config", "--table", value),
            ("link", value), ("supervisor", value), ("settle", value)]


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.function_scoped_fixture])
@given(value=st.one_of(st.sampled_from(HOSTILE), st.text(max_size=30).filter(lambda t: not t.isdigit())),
       which=st.integers(0, 17))
def test_every_subcommand_refuses_a_hostile_argument_in_one_line(value, which, journal, monkeypatch):
    """A value that is no number, a number past any bound, a name no file system takes: one line, exit 2
    (never 3, the program error of the last-resort guard)."""
    monkeypatch.setenv("TABLE_JOURNAL", str(journal))
    argv = _commands(value)[which]
    code, _, err = tablectl(*argv)
    lines = 2 if argv[0] == "check-config" else 1  # check-config: its head, then each problem
    assert code in (0, EXIT_REFUSED) and "Traceback" not in err and err.count("\n") <= lines, (argv, code, err)


def test_an_unexpected_error_is_named_a_program_error_in_one_line(monkeypatch):
    import controller.cli.table as table

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(table, "cmd_status", broken)
    code, _, err = tablectl("status", "--config", str(UTH))
    assert code == 3 and "program error" in err and "RuntimeError" in err and err.count("\n") == 1


# -- settle --------------------------------------------------------------------------------------

EXAMPLE = (ROOT / "docs/examples/settle-uth.json").read_text()


def settle_text(text: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["settle"], io.StringIO(text), out, err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("text", [
    '{"a": ' + "1" * 5001 + "}",  # past Python's 4,300-digit limit: a ValueError
    "[" * 100_000 + "]" * 100_000,  # a RecursionError
    EXAMPLE.replace('"ante": 10', '"ante": ' + "9" * 5001),
])
def test_crafted_settle_input_is_refused_in_one_line(text):
    code, out, err = settle_text(text)
    assert code == EXIT_REFUSED and out == "" and err.count("\n") == 1 and err.startswith("tablectl settle: input")


def test_settle_refuses_a_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "round.json"
    path.write_bytes(b"\xff" + EXAMPLE.encode())
    code, _, err = tablectl("settle", str(path))
    assert code == EXIT_REFUSED and "not UTF-8" in err and err.count("\n") == 1


_json_text = st.recursive(
    st.one_of(st.integers(-(10**60), 10**60).map(str), st.decimals(allow_nan=False).map(str), st.just('"x"'),
              st.just("null"), st.just("1" * 5001)),
    lambda inner: st.one_of(st.lists(inner, max_size=3).map(lambda xs: "[" + ",".join(xs) + "]"),
                            st.dictionaries(st.sampled_from(["game", "seats", "a"]), inner, max_size=3)
                            .map(lambda d: "{" + ",".join(f'"{k}":{v}' for k, v in d.items()) + "}")),
    max_leaves=10)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.one_of(_json_text, st.integers(1, 200).map(lambda n: "[" * n + "]" * n),
                 st.integers(1, 200).map(lambda n: '{"a":' * n + "1" + "}" * n),
                 st.text(max_size=200), st.builds(lambda a, b: a + EXAMPLE[b:], st.text(max_size=5),
                                                   st.integers(0, len(EXAMPLE)))))
def test_settle_text_is_settled_or_refused_in_one_line(text):
    code, out, err = settle_text(text)
    assert code in (0, EXIT_REFUSED) and "Traceback" not in err
    if code == EXIT_REFUSED and not err:  # JSON Lines: each refused line its {"line", "error"} on stdout
        assert any("error" in json.loads(line) for line in out.splitlines())
    else:
        assert err.count("\n") == (0 if code == 0 else 1), err


# -- configurations ------------------------------------------------------------------------------

def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, Decimal)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    assert isinstance(v, dict)
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"


def _toml(doc: dict) -> str:
    return "".join(f"{json.dumps(k)} = {_toml_value(v)}\n" for k, v in doc.items())


BASES = [tomllib.loads(p.read_text(), parse_float=Decimal) for p in
         sorted((ROOT / "config").glob("*.toml")) + sorted((ROOT / "config" / "examples").glob("*.toml"))]
ODD = [0, -1, 10**18, 2**63 - 1, "", "x", "1e30", "9" * 40, "0." + "0" * 50 + "1", "NaN", "1.005", Decimal("1e30"),
       Decimal("1e-30"), Decimal("0.001"), Decimal("12345678901234567890123456789.5"), True, [], {}, [1, 2],
       {"a": 1}, "/dev/null", "socket://x:99999", "tcp://:0", "\x00", "a" * 300 + "/b", "a" * 5000,
       Decimal("1e999999")]


def _keys(d: dict, pre: tuple = ()):
    for k, v in d.items():
        yield (*pre, k)
        if isinstance(v, dict):
            yield from _keys(v, (*pre, k))


@st.composite
def mutated_config(draw) -> str:
    doc = copy.deepcopy(draw(st.sampled_from(BASES)))
    doc["journal"] = "table.journal"
    for _ in range(draw(st.integers(1, 4))):
        where = draw(st.sampled_from(list(_keys(doc))))
        node = doc
        for k in where[:-1]:
            node = node[k]
        how = draw(st.integers(0, 9))
        if how == 0:
            del node[where[-1]]
        else:
            node[where[-1] + ("x" if how == 1 else "")] = copy.deepcopy(draw(st.sampled_from(ODD)))
    return _toml(doc)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.function_scoped_fixture])
@given(text=mutated_config())
def test_a_mutated_configuration_is_accepted_or_refused_never_a_traceback(text, tmp_path):
    path = tmp_path / "table.toml"
    path.write_text(text)
    code, _, err = tablectl("check-config", str(path))
    assert code in (0, EXIT_REFUSED) and "Traceback" not in err and "program error" not in err, err


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text.replace('journal = "../var/uth-01.journal"', 'journal = "table.journal"'))
    return path


def test_every_problem_at_once_the_structure_and_the_rules(tmp_path):
    """seats 9 is refused by the schema, the Trips paytable Z by the rules' check of the wagers: both."""
    text = UTH.read_text().replace("seats = 6", "seats = 9").replace(
        'paytable = "A"                      # UTH ch.12 §C(1)', 'paytable = "Z"')
    with pytest.raises(ConfigError) as e:
        load_config(_write(tmp_path, text))
    keys = {p.split(":")[0] for p in e.value.problems}
    assert keys == {"seats", "wagers.trips.paytable"}


@pytest.mark.parametrize("key, text", [
    ("payout_limit", 'payout_limit = 1e30'),  # past Decimal's 28 digits: InvalidOperation
    ("payout_limit", 'payout_limit = "1' + "0" * 29 + '"'),
    ("progressive.unit", "unit = 1e23"),
    ("progressive.meters.major.rate", "rate = 0.0" + "0" * 20 + "1"),
])
def test_amounts_and_rates_are_bounded(tmp_path, key, text):
    base = UTH.read_text()
    line = next(ln for ln in base.splitlines() if ln.startswith(text.split(" ")[0] + " "))
    with pytest.raises(ConfigError) as e:
        load_config(_write(tmp_path, base.replace(line, text, 1)))
    assert [p.split(":")[0] for p in e.value.problems] == [key]


def test_a_journal_path_no_file_system_takes_is_a_problem_of_its_key(tmp_path):
    text = UTH.read_text().replace('journal = "../var/uth-01.journal"', f'journal = "{"j" * 300}/x.journal"')
    path = tmp_path / "table.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert [p.split(":")[0] for p in e.value.problems] == ["journal"]


# -- check-config --devices: why not ---------------------------------------------------------------

def test_an_absent_serial_device_and_an_address_nobody_listens_on_are_absent():
    with socket.socket() as s:  # a port just free
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert check_cli.reach("shuffler", "/dev/tty-no-such-device").startswith("absent:")
    assert check_cli.reach("progressive", f"tcp://127.0.0.1:{port}").startswith("absent:")
    assert check_cli.reach("shuffler", f"socket://127.0.0.1:{port}").startswith("absent:")


def test_a_port_held_by_another_program_is_busy(tmp_path):
    port = tmp_path / "ttyS9"
    port.write_bytes(b"")
    with open(port, "rb+") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as pyserial's exclusive open, the daemon's
        assert check_cli._device_problem(str(port)).startswith("busy:")
    assert check_cli._device_problem(str(port)) is None


def test_a_port_this_user_may_not_open_is_a_permission_problem(monkeypatch):
    def refused(path, flags):  # (the tests may run as root, whom no mode refuses)
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(check_cli.os, "open", refused)
    why = check_cli._device_problem("/dev/ttyUSB0")
    assert why is not None and why.startswith("permission:") and "dialout" in why


def test_a_device_that_takes_the_connection_and_says_nothing_is_silent(tmp_path, monkeypatch):
    monkeypatch.setattr(check_cli, "DEVICE_TIMEOUT", 0.5)
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except TimeoutError:
                continue

    t = threading.Thread(target=accept)
    t.start()
    try:
        text = UTH.read_text().replace('shuffler = "socket://127.0.0.1:7101"',
                                       f'shuffler = "socket://127.0.0.1:{server.getsockname()[1]}"')
        code, out, _ = tablectl("check-config", str(_write(tmp_path, text)), "--devices")
    finally:
        stop.set()
        t.join()
        for c in held:
            c.close()
        server.close()
    line = next(ln for ln in out.splitlines() if ln.startswith("shuffler"))
    assert code == EXIT_REFUSED and "NOT ANSWERING: silent:" in line


# -- make run --------------------------------------------------------------------------------------

def _demo(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "demo.run", "--state-dir", str(tmp_path), *args], cwd=ROOT,
                            env={**os.environ, **(env or {})}, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)


def test_make_run_with_a_refused_configuration_prints_the_reason_only(tmp_path):
    path = _write(tmp_path, UTH.read_text().replace("seats = 6", "seats = 9"))
    proc = _demo(tmp_path, "--config", str(path))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2 and "Traceback" not in err and "seats" in err


def _children(pid: int) -> set[int]:
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.add(int(stat.parent.name))
    return out


#: make test: SIGTERM (systemd's, and the one handler SIGHUP shares); make soak (DEMO_SIGNALS=all) SIGHUP too
DEMO_SIGNALS = [signal.SIGTERM, signal.SIGHUP] if os.environ.get("DEMO_SIGNALS") == "all" else [signal.SIGTERM]


@pytest.mark.parametrize("sig", DEMO_SIGNALS)
def test_the_demo_stops_everything_it_started_on_a_signal(tmp_path, sig):
    proc = _demo(tmp_path, "--config", str(UTH), "--free-ports", "--rounds", "0")
    try:
        assert proc.stdout is not None
        for line in proc.stdout:  # the daemon and the web service started after this line
            if line.startswith("dealer's screen"):
                break
        started = _children(proc.pid)
        assert len(started) >= 4  # three simulators, the daemon, the web service
        proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(Path(f"/proc/{p}").exists() and "Z" not in Path(f"/proc/{p}/stat").read_text().split(")")[1][:3]
              for p in started) and time.monotonic() < deadline:
        time.sleep(0.1)  # (a child reaped by the demo's own stop is gone; waiting on /proc, not on a device)
    assert not [p for p in started if Path(f"/proc/{p}").exists()
                and "Z" not in Path(f"/proc/{p}/stat").read_text().split(")")[1][:3]]
    assert proc.returncode == 0


def test_a_port_in_use_is_named_as_such(tmp_path):
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        proc = _demo(tmp_path, "--config", str(UTH), env={"TABLE_DEVICES__SHUFFLER": f"socket://127.0.0.1:{port}"})
        out, err = proc.communicate(timeout=60)
    assert proc.returncode != 0 and re.search(rf"port {port} \(the shuffler simulator\) is in use", err), err


# -- the artefact ----------------------------------------------------------------------------------

def test_the_artefact_carries_every_document_the_install_guide_names():
    sys.path.insert(0, str(ROOT))
    from deploy.build import shipped

    named = set(re.findall(r"\bdocs/[A-Za-z0-9_.-]+\.md\b", (ROOT / "docs/install.md").read_text()))
    carried = shipped()
    assert named and named <= set(carried)
    assert all((ROOT / carried[d]).is_file() for d in named)
