"""A stopped or frozen daemon never looks live (issue 25): the daemon's heartbeat (controller/liveness.py), the
web feed's ``liveness`` events and web/static/liveness.js on the dealer's screen and the floor's pages.

The browser test runs ``tablectl run`` as a process (the simulators in the test's process) and ``tablectl web``:
no daemon yet -> "not running" on both pages; started -> gone; SIGSTOP -> "not running" within 3 s of the daemon's
last heartbeat; SIGCONT -> gone; SIGTERM -> at once (the heartbeat deleted); the web service killed -> "no
connection"; before the start, a refusal kept beside the journal -> the banner says why (P122; the rest of it:
tests/test_start_refused.py).  The others: the heartbeat's age read, and a heartbeat that cannot be touched
halting the table as a status does.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import time
import urllib.request
from pathlib import Path

from controller import liveness, program
from controller.cli.main import main as tablectl
from controller.paths import heartbeat_file
from daemon_harness import simulated_table, table_in_process
from unsaid import identifiers
from web_harness import login, web_service

GAME = "ultimate_texas_holdem"
STOPPED = "TABLE CONTROLLER NOT RUNNING \u2014 do not deal"
DISCONNECTED = "NO CONNECTION TO THE TABLE SERVICE \u2014 do not deal"
START_MS = 60_000  # a daemon or a page starting on a loaded machine: its own deadline, not the 3 s promised


def live_is(page, state: str, timeout: float) -> None:
    page.wait_for_function("s => document.body.dataset.live === s", arg=state, timeout=timeout)


def banner(page) -> dict:
    return page.evaluate("""() => { const b = document.getElementById('liveness');
        return {hidden: b.hidden, role: b.getAttribute('role'), text: b.querySelector('strong')?.textContent || null,
                width: b.getBoundingClientRect().width, page: document.documentElement.clientWidth}; }""")


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def status_running(config: Path) -> bool:
    out, err = io.StringIO(), io.StringIO()
    assert tablectl(["status", "--json", "--config", str(config)], io.StringIO(), out, err) == 0, err.getvalue()
    return bool(json.loads(out.getvalue())["running"])


def test_the_screens_say_not_running_within_3_s_of_the_last_heartbeat(tmp_path, monkeypatch, browser):
    with simulated_table(GAME, tmp_path, monkeypatch, simulators="in_process") as t:
        beat = heartbeat_file(t.journal_path)
        with web_service(t, tmp_path, monkeypatch) as w:
            dealer = browser.new_page()
            dealer.goto(w.dealer)
            live_is(dealer, "stopped", 3_000)  # no daemon yet: never a heartbeat
            assert banner(dealer)["text"] == STOPPED
            # a refusal kept beside the journal (P122): the banner says why, in words; gone, it says so
            program.write_refusal(t.journal_path, {"at": "2026-03-01T09:30:00Z", "state": "mismatch",
                                                   "problems": ["changed: controller/daemon.py"],
                                                   "not_started": "SyntaxError: x", "journaled": False})
            dealer.wait_for_function("() => document.body.dataset.startRefused === 'does_not_start'", timeout=3_000)
            b = banner(dealer)
            assert (b["hidden"], b["role"], b["text"]) == (False, "alert", program.WORDS["start_refused"])
            assert dealer.evaluate("() => [...document.querySelectorAll('#liveness [data-cause], #liveness "
                                   "[data-action]')].map(e => e.dataset.cause || e.dataset.action)") == [
                "does_not_start", "call_technician"]
            said = dealer.evaluate("() => document.getElementById('liveness').innerText")
            assert not identifiers([said]) and "daemon.py" not in said and "SyntaxError" not in said
            # its time as the floor's rows write one (words.js localTime), whatever the browser's language
            refused = dealer.evaluate("() => document.querySelector('#liveness .refused').textContent")
            assert re.search(r"\(refused 2026-03-0[12] \d\d:\d\d:\d\d \S+\)$", refused), refused
            program.refusal_file(t.journal_path).unlink()
            dealer.wait_for_function("() => document.body.dataset.startRefused === undefined", timeout=3_000)
            assert banner(dealer)["text"] == STOPPED
            t.start_daemon()  # started: the banner goes
            live_is(dealer, "running", START_MS)
            floor = login(browser.new_page(), w.floor)  # (its first page verifies the journal: there is one now)
            pages = (dealer, floor)
            for p in pages:
                live_is(p, "running", START_MS)
                assert banner(p)["hidden"] is True
            assert get_json(w.dealer + "liveness.json")["running"] is True
            assert get_json(w.dealer + "status.json")["liveness"]["running"] is True
            # a tick at least every second: three liveness events in 3.5 s, the daemon idle
            dealer.evaluate("() => { window.__ticks = 0; "
                            "window.__liveness.addEventListener('liveness', () => window.__ticks++); }")
            dealer.wait_for_function("() => window.__ticks >= 3", timeout=3_500)

            t.daemon.send_signal(signal.SIGSTOP)  # frozen: its process there, its heartbeat not
            try:
                for p in pages:
                    live_is(p, "stopped", 3_000)
                shown_at = time.time()
                last = beat.stat().st_mtime  # the last heartbeat it made (none since: it is stopped)
                assert shown_at - last <= 3.0, f"the banner {shown_at - last:.2f} s after the last heartbeat"
                for p in pages:
                    b = banner(p)
                    assert (b["hidden"], b["role"], b["text"]) == (False, "alert", STOPPED)
                    assert b["width"] >= b["page"] - 1  # full width
                alive = get_json(w.dealer + "liveness.json")
                assert alive == {"running": False, "heartbeat": last}
                assert not status_running(t.config_path)  # tablectl status agrees
            finally:
                t.daemon.send_signal(signal.SIGCONT)
            for p in pages:
                live_is(p, "running", 3_000)
                assert banner(p)["hidden"] is True
            assert status_running(t.config_path)

            t.daemon.terminate()  # a clean stop: the heartbeat deleted, the screens say so without waiting
            assert t.daemon.wait(30) == 0
            assert not beat.exists()
            for p in pages:
                live_is(p, "stopped", 3_000)
            assert get_json(w.dealer + "liveness.json") == {"running": False, "heartbeat": None}
            assert floor.request.get(w.floor + "liveness.json").json() == {"running": False, "heartbeat": None}

            w.proc.kill()  # the web service gone: each page's own stream drops
            w.proc.wait()
            for p in pages:
                live_is(p, "disconnected", 3_000)
                b = banner(p)
                assert (b["hidden"], b["role"], b["text"]) == (False, "alert", DISCONNECTED)
            dealer.close()
            floor.close()


def test_the_heartbeats_age_says_running(tmp_path):
    path = tmp_path / "t.heartbeat"
    assert liveness.read(path) == liveness.Liveness(False, None)  # never beat (or stopped: deleted)
    liveness.beat(path)  # made when missing
    now = path.stat().st_mtime
    assert liveness.read(path, now + liveness.STALE_S) == liveness.Liveness(True, now)
    assert liveness.read(path, now + liveness.STALE_S + 0.01).running is False  # frozen, killed
    assert liveness.read(path, now - liveness.STALE_S - 0.01).running is False  # a beat from the clock's future
    os.utime(path, (now - 60, now - 60))
    liveness.beat(path)
    assert path.stat().st_mtime >= now
    liveness.stopped(path)
    assert not path.exists()
    liveness.stopped(path)  # twice: nothing to delete, no error


def test_a_heartbeat_that_cannot_be_touched_halts_the_table_as_a_status_does(tmp_path, monkeypatch):
    """The heartbeat's touch fails (its file a link to a directory that is not there): the screens would say
    "do not deal", so the daemon refuses every press (``heartbeat_fault``) until a touch takes; it lives."""
    with table_in_process(GAME, tmp_path, monkeypatch) as t:
        t.start_daemon()
        t.open_table()
        beat = heartbeat_file(t.journal_path)
        assert liveness.read(beat).running
        beat.unlink()
        beat.symlink_to(tmp_path / "gone" / "heartbeat")
        s = t.until(lambda s: s["storage"]["state"] == "halted", "the heartbeat's fault")
        assert s["next_action"]["action"] == "storage_fault" and "heartbeat" in s["storage"]["problem"]
        s = t.press_refused("no_more_bets")
        assert (s["told"]["cause"], s["told"]["clauses"]) == ("heartbeat_fault", ["P97"])
        assert t.daemon.poll() is None
        beat.unlink()  # the next beat makes the file again
        s = t.until(lambda s: s["storage"]["state"] != "halted", "the heartbeat again")
        assert liveness.read(beat).running and t.daemon.poll() is None
        assert t.stop_daemon() == 0
        assert not beat.exists()  # a clean stop deletes it
