"""``tablectl sim``, ``inject`` and ``watch`` against the simulators, as a user runs them.

Each test starts a simulator process (one through ``tablectl sim`` itself),
runs ``tablectl watch`` as a subprocess with its standard input piped, injects
faults with ``tablectl inject`` (in process: ``controller.cli.main.main``; once as a
subprocess) and reads the watch's output lines.  Nothing sleeps: every wait
reads lines until the expected one appears, with a deadline.
"""

from __future__ import annotations

import io
import json
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from controller.cli import main as cli
from controller.cli.device import parse_fields
from devices import start_simulator, stop_simulator
from simulators.control import ControlError

ROOT = Path(__file__).resolve().parent.parent
WAIT = 10.0  # seconds for one expected line: things that take milliseconds, on a loaded machine
CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")  # a card value such as "As"


CTRL_C_LAUNCHER = (
    "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "sys.argv[0] = 'tablectl'; runpy.run_module('controller.cli', run_name='__main__')"
)


def env() -> dict[str, str]:
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), e.get("PYTHONPATH")]))
    return e


class Watch:
    """``tablectl watch ...`` as a subprocess: ``send`` a command line, ``expect`` an output line."""

    def __init__(self, *args: str, ctrl_c: bool = False) -> None:
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by kill()
        # ctrl_c: SIGINT raises KeyboardInterrupt in the watch even when this test run was started with
        # SIGINT ignored (a background job), which the child would inherit
        launch = ["-c", CTRL_C_LAUNCHER] if ctrl_c else ["-m", "controller.cli"]
        self.proc = subprocess.Popen(
            [sys.executable, *launch, "watch", *args],
            cwd=ROOT,
            env=env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        self.start = 0  # expect() looks at the lines from here on
        self.eof = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(raw.decode(errors="replace").rstrip("\n"))
        self.lines.put(None)

    def _take(self, timeout: float) -> bool:
        try:
            line = self.lines.get(timeout=timeout) if timeout > 0 else self.lines.get_nowait()
        except queue.Empty:
            return False
        if line is None:
            self.eof = True
        else:
            self.seen.append(line)
        return True

    def mark(self) -> None:
        """From now on, expect() looks only at lines printed after this call."""
        while self._take(0):
            pass
        self.start = len(self.seen)

    def expect(self, pattern: str, timeout: float = WAIT) -> str:
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        i = self.start
        while True:
            while i < len(self.seen):
                if regex.search(self.seen[i]):
                    return self.seen[i]
                i += 1
            left = deadline - time.monotonic()
            if self.eof or left <= 0:
                exited = " (the watch exited)" if self.eof else ""
                self.fail(f"no line matching {pattern!r} within {timeout:g} s{exited}")
            self._take(left)

    def fail(self, why: str) -> None:
        self.stderr.seek(0)
        err = self.stderr.read().decode(errors="replace")[-2000:]
        pytest.fail(f"{why}\n--- watch printed:\n" + "\n".join(self.seen) + f"\n--- stderr:\n{err}")

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()

    def close(self) -> int:
        """End of input: the watch closes its driver and exits."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.expect("driver closed")
        return self.proc.wait(timeout=WAIT)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=WAIT)
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        self.stderr.close()


@pytest.fixture
def procs():
    """Start processes through this; every one is killed at the end, whatever happened."""
    started: list = []

    class Start:
        @staticmethod
        def sim(module: str, *args: str) -> tuple[str, str]:
            proc, url, control_url = start_simulator(module, *args)
            started.append(lambda: stop_simulator(proc))
            return url, control_url

        @staticmethod
        def watch(*args: str, ctrl_c: bool = False) -> Watch:
            w = Watch(*args, ctrl_c=ctrl_c)
            started.append(w.kill)
            return w

    yield Start
    for stop in reversed(started):
        stop()


def inject(control_url: str, cmd: str, *fields: str) -> dict:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["inject", control_url, cmd, *fields], stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    reply = json.loads(out.getvalue())
    assert reply.pop("ok") is True
    return reply


def no_card_values(w: Watch) -> None:
    shown = [line for line in w.seen if CARD.search(line.split(" ", 1)[1])]
    assert not shown, f"card values printed without --show-cards: {shown}"


# --------------------------------------------------------------------------


def test_shuffler_shuffle_deliver_jam_count_and_face_up(procs):
    url, ctl = procs.sim("controller.cli", "sim", "shuffler", "--seed", "11", "--shuffle-ms", "1")  # tablectl sim
    w = procs.watch("shuffler", url)
    w.expect(r"health ONLINE")

    w.mark()
    w.send("shuffle")
    w.expect(r"shuffle: deck A in play, 52 cards counted")
    w.send("deliver 5")
    w.expect(r"deliver 5: deck A, positions 1-5 \(5 cards\): \*\* \*\* \*\* \*\* \*\*")

    w.mark()
    inject(ctl, "fault", "fault=jam", "at=8")
    w.send("deliver 5")
    w.expect(r"deliver 5: ERROR JamError: shuffler: device reports jam \(detail 8\)")
    w.expect(r"health DEGRADED: device reports JAM")

    w.mark()
    inject(ctl, "clear")
    inject(ctl, "fault", "fault=count", "count=51")
    w.send("shuffle")
    w.expect(r"shuffle: ERROR CardCountError: shuffler: deck B counted 51 cards, expected 52")
    w.expect(r"health DEGRADED: device reports COUNT_WRONG")

    w.mark()
    inject(ctl, "fault", "fault=face_up", "at=2")
    w.send("shuffle")
    w.expect(r"shuffle: deck A in play, 52 cards counted")
    w.send("deliver 3")
    w.expect(r"deliver 3: deck A, positions 1-3 \(3 cards\): \*\* \*\* \*\*; FACE UP at position 2")
    w.expect(r"health ONLINE")

    w.mark()
    w.send("deliver x")
    w.expect(r"deliver: usage: deliver N")
    no_card_values(w)
    assert w.close() == 0


def test_shoe_cards_masked_face_up_unplug_and_show_cards(procs):
    url, ctl = procs.sim("simulators.shoe", "--seed", "5")
    w = procs.watch("shoe", url)
    w.expect(r"health ONLINE")
    w.expect(r"card values masked")

    inject(ctl, "draw")
    w.expect(r"card #1 \*\* face-down")
    inject(ctl, "fault", "fault=face_up", "at=2")
    inject(ctl, "draw")
    w.expect(r"card #2 \*\* FACE-UP")

    w.mark()
    inject(ctl, "unplug")  # silent: the shoe stops answering
    w.expect(r"health OFFLINE: device does not answer")
    w.mark()
    assert inject(ctl, "draw") == {"reported": 1}  # drawn while unplugged: kept by the shoe
    inject(ctl, "plug")
    w.expect(r"health ONLINE")
    w.expect(r"card #3 \*\* face-down")
    no_card_values(w)
    assert w.close() == 0

    shown = procs.watch("shoe", url, "--show-cards")
    shown.expect(r"health ONLINE")
    shown.expect(r"card values SHOWN")
    inject(ctl, "load", 'cards=["As","Kd"]')
    inject(ctl, "draw", "n=2")
    shown.expect(r"card #1 As face-down")
    shown.expect(r"card #2 Kd face-down")
    assert shown.close() == 0


def test_progressive_lockout_late_wager_stop_answering_and_refused_inject(procs):
    url, ctl = procs.sim("simulators.progressive")
    w = procs.watch("progressive", url)
    w.expect(r"health ONLINE")
    w.expect(r"lock-out OFF; accepted seats none; late attempts none")

    assert inject(ctl, "wager", "seat=2") == {"accepted": True}
    w.expect(r"wager accepted at seat 2")
    w.mark()
    w.send("lockout on")
    w.expect(r"lockout on: lock-out on, confirmed by read-back")
    w.expect(r"lock-out ON")
    assert inject(ctl, "wager", "seat=3") == {"accepted": False, "late": True}
    w.expect(r"LATE wager attempt at seat 3")

    out, err = io.StringIO(), io.StringIO()
    assert cli.main(["inject", ctl, "fault", "fault=bogus"], stdout=out, stderr=err) == 2
    assert out.getvalue() == "" and err.getvalue().count("\n") == 1
    assert err.getvalue().startswith("tablectl inject: fault refused: ") and "unknown command" in err.getvalue()

    w.mark()
    inject(ctl, "stop_answering")
    w.expect(r"health OFFLINE: .*no answer")
    w.mark()
    w.send("lockout off")
    w.expect(r"lockout off: ERROR DeviceOffline")
    inject(ctl, "resume")
    w.expect(r"health ONLINE")
    assert w.close() == 0


def test_panel_presses_bounce_key_switch_and_ctrl_c(procs):
    url, ctl = procs.sim("simulators.panel")
    w = procs.watch("panel", url, ctrl_c=True)
    w.expect(r"health ONLINE")
    w.expect(r"key switch OFF \(at start\)")

    inject(ctl, "press", "button=bet_2x")
    w.expect(r"press bet x2 \(press #1\)")
    w.mark()
    assert inject(ctl, "press", "button=deal", "bounce=5")["registered"] == 1
    inject(ctl, "press", "button=fold")
    w.expect(r"press fold \(press #3\)")
    assert [line.split(" ", 1)[1] for line in w.seen[w.start:] if " press " in line] == [
        "press deal (press #2)",
        "press fold (press #3)",
    ]
    inject(ctl, "key", "on=true", "supervisor=4711")
    w.expect(r"key switch ON, supervisor 4711")

    w.mark()
    w.send("buzz")
    w.expect(r"buzz: buzzer sounded")
    w.send("light nope on")
    w.expect(r"light nope on: ERROR ValueError: no light named 'nope'")

    w.mark()
    w.proc.send_signal(signal.SIGINT)  # Ctrl-C
    w.expect(r"interrupted: closing the driver")
    w.expect(r"driver closed")
    assert w.proc.wait(timeout=WAIT) == 0


def test_inject_unreachable_port_exits_2():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli", "inject", f"tcp://127.0.0.1:{port}", "ping"],
        cwd=ROOT,
        env=env(),
        check=False,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"tablectl inject: cannot reach tcp://127.0.0.1:{port}")
    assert done.stderr.count("\n") == 1


def test_inject_values_are_json_when_they_parse():
    assert parse_fields("fault", ["fault=jam", "at=3", "on=true", 'cards=["As","Kd"]', "at2=[2,4]"]) == {
        "cmd": "fault",
        "fault": "jam",
        "at": 3,
        "on": True,
        "cards": ["As", "Kd"],
        "at2": [2, 4],
    }
    for bad in (["at"], ["=3"], ["at=1", "at=2"], ["cmd=x"]):
        with pytest.raises(ControlError):
            parse_fields("fault", bad)
    err = io.StringIO()
    assert cli.main(["inject", "not a url", "ping"], stdout=io.StringIO(), stderr=err) == 2
    assert "not a control URL" in err.getvalue()
