"""A table whose start was refused says why on its screens (controller/program.py ``refused_view``, web/feed.py).

A refusal kept beside the journal (P115: the program did not verify; P122: it did not even import) while the
daemon does not run: ``/liveness.json`` (both applications) carries ``start_refused`` (when, the cause, the
action, the command that clears it; no path, no problem's text, no exception), the event streams send it when it
changes, the floor's technician page lists its problems, and the pit's Alarms list has it as a high alarm.  In
process, no daemon: a heartbeat file touched here is a daemon running.  The dealer's page in a browser:
tests/test_liveness.py.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from controller import liveness, program
from controller.config.table import load_config
from controller.journal.store import Journal
from controller.paths import heartbeat_file, status_file
from unsaid import identifiers
from web import auth, keys
from web.app import dealer_app, floor_app
from web.audit import Audit, audit_dir
from web.feed import StatusFeed
from web.pit.publish import Publisher

ROOT = Path(__file__).resolve().parents[1]
UTH = ROOT / "config" / "ultimate_texas_holdem.toml"
TABLE = "uth-01"
#: as controller/boot.py keeps a program that does not import (P122)
NOT_STARTED = {"at": "2026-03-01T09:30:00Z", "state": "mismatch", "release": "0.1.0", "digest": "ab" * 32,
               "problems": ["changed: controller/daemon.py", "unexpected: games/extra_rules.py"],
               "not_started": "SyntaxError: invalid syntax (daemon.py, line 3)", "journaled": False}
SECRET_BITS = ("daemon.py", "extra_rules", "SyntaxError", "ab" * 32)  # the problems' and the exception's text


def feed_of(journal: Path) -> StatusFeed:
    return StatusFeed(status_file(journal), heartbeat_file(journal), journal, TABLE)


async def _get(app: Any, path: str, cookie: str | None = None) -> tuple[int, str]:
    async with TestClient(TestServer(app)) as client:
        r = await client.get(path, cookies={"floor_session": cookie} if cookie else None, allow_redirects=False)
        return r.status, await r.text()


def liveness_json(journal: Path) -> dict[str, Any]:
    status, text = asyncio.run(_get(dealer_app(feed_of(journal)), "/liveness.json"))
    assert status == 200
    for bit in (*SECRET_BITS, str(journal.parent)):
        assert bit not in text, bit
    got: dict[str, Any] = json.loads(text)
    return got


def test_liveness_json_says_a_start_refused_and_why_without_its_problems(tmp_path):
    journal = tmp_path / "table.journal"
    assert liveness_json(journal) == {"running": False, "heartbeat": None}  # no refusal: no field
    program.write_refusal(journal, NOT_STARTED)
    got = liveness_json(journal)["start_refused"]
    assert {k: got[k] for k in ("at", "cause", "problems", "action")} == {
        "at": "2026-03-01T09:30:00Z", "cause": "does_not_start", "problems": 2, "action": "call_technician"}
    assert got["clear"].startswith(f"tablectl verify-program --table {TABLE} --clear --by ")
    assert (got["said"], got["cause_said"]) == (program.WORDS["start_refused"],
                                                program.WORDS["start_refused.does_not_start"])
    assert not identifiers([got["said"], got["cause_said"], got["action_said"], got["clear"]])  # words, no codes
    # the daemon's own refusal (P115), kept when it stopped; a release with no manifest; cleared, not restarted
    program.write_refusal(journal, {**NOT_STARTED, "not_started": None})
    assert liveness_json(journal)["start_refused"]["cause"] == "mismatch"
    program.write_refusal(journal, {"at": "2026-03-01T09:30:00Z", "state": "no_manifest", "problems": ["missing: x"]})
    assert liveness_json(journal)["start_refused"]["cause"] == "no_manifest"
    program.write_refusal(journal, {**NOT_STARTED, "cleared": {"by": "tess", "reason": "reinstalled", "at": "x"}})
    assert liveness_json(journal)["start_refused"]["action"] == "start_again"
    # a refusal file that does not read is a refusal still (fail closed), dated by the file
    program.refusal_file(journal).write_text("{not json")
    got = liveness_json(journal)["start_refused"]
    assert (got["cause"], got["action"]) == ("unreadable", "call_technician")
    assert abs(time.mktime(time.strptime(got["at"], "%Y-%m-%dT%H:%M:%SZ")) - time.mktime(time.gmtime())) < 120
    # the daemon running (refused or not, it tells the screens itself, P115): no field
    liveness.beat(heartbeat_file(journal))
    assert "start_refused" not in liveness_json(journal)
    heartbeat_file(journal).unlink()
    program.refusal_file(journal).unlink()  # cleared and started: gone
    assert liveness_json(journal) == {"running": False, "heartbeat": None}


def test_the_streams_are_sent_the_refusal_when_it_appears_and_goes(tmp_path):
    journal = tmp_path / "table.journal"
    feed = feed_of(journal)
    assert feed.look_alive() is False and feed.refused is None
    program.write_refusal(journal, NOT_STARTED)
    assert feed.look_alive() is True and feed.refused is not None  # a change: every stream is sent it
    assert feed.look_alive() is False  # the same file: not read again, nothing sent
    program.write_refusal(journal, {**NOT_STARTED, "cleared": {"by": "tess", "reason": "reinstalled"}, "x": 1})
    assert feed.look_alive() is True and feed.refused is not None and feed.refused["action"] == "start_again"
    program.refusal_file(journal).unlink()
    assert feed.look_alive() is True and feed.liveness_data() == {"running": False, "heartbeat": None}
    # a refusal that cannot even be looked at (here its directory is a file): refused, the same view each look
    (tmp_path / "gone").write_text("")
    feed = feed_of(tmp_path / "gone" / "table.journal")
    assert feed.look_alive() is True and feed.refused is not None and feed.refused["cause"] == "unreadable"
    assert feed.look_alive() is False


def test_the_technicians_page_lists_the_problems_the_dealers_screen_does_not(tmp_path):
    journal = tmp_path / "table.journal"
    with Journal(journal) as j:
        j.claim(TABLE, "ultimate_texas_holdem")
    program.write_refusal(journal, NOT_STARTED)
    users = tmp_path / "users"
    users.write_text(auth.Account("tess", "technician", auth.hash_password("x" * 12, n=2**10)).line() + "\n")
    users.chmod(0o600)
    cfg = load_config(UTH).model_copy(update={"journal": journal})
    cfg = cfg.model_copy(update={"web": cfg.web.model_copy(update={"users": users})})
    audit = Audit(audit_dir(journal))
    try:
        app = floor_app(cfg, feed_of(journal), audit)
        token = app[keys.SESSIONS].start(auth.Account("tess", "technician", "-"))
        status, text = asyncio.run(_get(app, "/technician", token))
    finally:
        audit.close()
    assert status == 200, text
    assert 'id="refusal" data-cause="does_not_start" data-at="2026-03-01T09:30:00Z"' in text
    assert "<li><code>changed: controller/daemon.py</code></li>" in text and "SyntaxError" in text
    assert f"tablectl verify-program --table {cfg.id} --clear" in text


class _Feed:
    def __init__(self, refused: dict[str, Any] | None) -> None:
        self.text, self.alive, self.refused = None, liveness.Liveness(False, None), refused

    def current(self) -> None:
        return None


def test_the_pits_alarms_list_has_the_refusal_as_a_high_alarm(tmp_path):
    journal = tmp_path / "table.journal"
    program.write_refusal(journal, NOT_STARTED)
    feed = feed_of(journal)
    feed.look_alive()
    stub = _Feed(feed.refused)
    pub = Publisher(SimpleNamespace(), TABLE, stub)  # type: ignore[arg-type]  # take() touches no database
    pub.take(time.time())
    assert pub.pending is not None
    summary = pub.pending[0]
    (alarm,) = summary["alarms"]
    assert (alarm["kind"], alarm["priority"], alarm["id"]) == ("start_refused", "high",
                                                               "start_refused@2026-03-01T09:30:00Z")
    assert summary["start_refused"]["cause"] == "does_not_start"
    assert [(e.event, e.alarm_id) for e in pub.outbox] == [("raised", alarm["id"])]
    for bit in SECRET_BITS:
        assert bit not in json.dumps(summary)
    stub.refused = None  # started (or cleared): the alarm clears
    pub.take(time.time())
    assert pub.pending[0]["alarms"] == [] and [e.event for e in pub.outbox] == ["raised", "cleared"]
