"""The floor's game-protection page (/protection, web/protection.py; issue 28) served from a journal, in process.

A journal labelled for a UTH table with 40 settled rounds whose Trips always wins at three of a kind, a card
switched found and its alarm acknowledged: the page lists the finding with its round and who acknowledged it,
and each wager's hold for the table, the gaming day and its shifts, the Trips outside its band, the base game with
no figures until its par sheet is stored -- every value as a data-* attribute, every code in words.  A
technician may not open it (web/guard.py).  A supervisor's button leaves the daemon a request to take the shuffler
out of service, with the supervisor's name (an auditor's is refused); the daemon's side:
tests/test_protection_witnesses.py.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import re
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

from aiohttp.test_utils import TestClient, TestServer

from controller import events as ev
from controller.journal import store as journal_store
from controller.journal.store import Journal
from controller.protection import requests
from test_protection_hold import _rows
from test_web_floor_pages import UTH
from web import keys
from web.auth import Account
from web_harness import AUDITOR, SUPERVISOR, floor_accounts

TABLE = "uth-01"


def _journal(path: Path) -> str:
    with Journal(path) as j:
        j.claim(TABLE, "ultimate_texas_holdem")
        rows = _rows(["three_of_a_kind"] * 40)
        for n in range(40):
            j.record_many([e.typed for e in rows if e.round_id == f"r{n}"], f"r{n}")
        seq = j.record(ev.ProtectionFinding(finding="card_switched", round="r39",
                                            evidence={"discrepancies": [{"what": "not_read", "place": "seat:1"}]}))
        alarm = f"protection:{seq}@1795745153.048"
        j.record(ev.AlarmRaised(id=alarm, alarm="protection_card_switched", priority="high",
                                since=Decimal("1795745153.048")))
        j.record(ev.AlarmAcknowledged(id=alarm, alarm="protection_card_switched", priority="high",
                                      by="supervisor 4711", at=Decimal("1795745160.2")), who="supervisor 4711")
    return alarm


async def _get(path: Path, tmp: Path, role: str, *, fresh: bool = True, post: bool = False,
               protection: dict[str, object] | None = None) -> tuple[int, str]:
    from controller.config.table import load_config
    from controller.paths import heartbeat_file, status_file
    from web.app import floor_app
    from web.audit import Audit, audit_dir
    from web.feed import StatusFeed

    users = tmp / "users"
    if fresh:
        floor_accounts(users)
    cfg = load_config(UTH).model_copy(update={"journal": path})
    cfg = cfg.model_copy(update={"web": cfg.web.model_copy(update={"users": users})})
    if protection:
        cfg = cfg.model_copy(update={"protection": cfg.protection.model_copy(update=protection)})
    audit = Audit(audit_dir(path))
    app = floor_app(cfg, StatusFeed(status_file(path), heartbeat_file(path)), audit)
    name = {"auditor": AUDITOR, "supervisor": SUPERVISOR}.get(role, "tech")
    token = app[keys.SESSIONS].start(Account(name, role, "-"))
    async with TestClient(TestServer(app)) as client:
        if post:
            login = app[keys.SESSIONS].get(token)
            assert login is not None
            r = await client.post("/protection/shuffler", data={"csrf": login.csrf},
                                  cookies={"floor_session": token}, allow_redirects=False)
        else:
            r = await client.get("/protection", cookies={"floor_session": token}, allow_redirects=False)
        out = (r.status, r.headers.get("Location", "") if post else await r.text())
    audit.close()
    return out


def _attrs(tag: str) -> dict[str, str]:
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', tag))


def test_the_protection_page_shows_each_finding_and_each_wagers_band(tmp_path):
    path = tmp_path / "t.journal"
    _journal(path)
    status, text = asyncio.run(_get(path, tmp_path, "auditor"))
    assert status == 200, text[:500]
    (finding,) = [_attrs(t) for t in re.findall(r"<tr data-finding[^>]*>", text)]
    assert finding == {"finding": "card_switched", "round": "r39", "p-value": "",
                       "acknowledged-by": "supervisor 4711"}
    tables = re.findall(r'<table class="hold" data-period="(\w+)">(.*?)</table>', text, re.S)
    assert [p for p, _ in tables][:2] == ["table", "day"] and {p for p, _ in tables[2:]} == {"shift"}
    rows = {a["wager"]: a for a in (_attrs(t) for t in re.findall(r"<tr data-wager[^>]*>", tables[0][1]))}
    assert rows["trips"]["state"] == "outside" and rows["trips"]["rounds"] == "40"
    assert Decimal(rows["trips"]["actual"]) == -600 and rows["trips"]["band-low"] and rows["trips"]["band-high"]
    assert rows["base"]["state"] in ("within", "outside") and Decimal(rows["base"]["expected"]) > 0  # games/par
    assert (rows["base"]["per"], rows["trips"]["per"]) == ("ante", "stake")  # the base game's figures are per Ante
    # only a wager outside its band has the attention colour (ISA-101), in every period's table
    for _, table in tables:
        for tag in re.findall(r"<tr data-wager[^>]*>", table):
            a = _attrs(tag)
            assert a["attention"] == ("true" if a["state"] == "outside" else "false"), a
            assert ('class="attention"' in tag) == (a["state"] == "outside"), tag
    css = (Path(__file__).resolve().parents[1] / "web/static/style.css").read_text()
    assert re.search(r"body\.floor tr\.attention td \{[^}]*var\(--attention\)", css)
    assert "card_switched" not in re.sub(r"<[^>]*>", "", text)  # the codes are in words
    assert "Card switched" in text and "Outside its band" in text
    (band,) = [_attrs(t) for t in re.findall(r'<p id="band"[^>]*>', text)]
    assert (band["gaming-day-starts"], band["shift-hours"]) == ("06:00", "8")


class _Noon(_dt.datetime):
    """The journal's clock (controller.journal.store._dt) at 12:00 UTC on 2026-11-27, whenever the test runs."""

    @classmethod
    def now(cls, tz: _dt.tzinfo | None = None) -> _Noon:  # type: ignore[override]
        return cls(2026, 11, 27, 12, 0, tzinfo=_dt.UTC)


def test_the_page_takes_the_gaming_day_and_shifts_from_the_configuration(tmp_path, monkeypatch):
    monkeypatch.setattr(journal_store, "_dt", SimpleNamespace(datetime=_Noon, timezone=_dt.timezone))
    path = tmp_path / "t.journal"
    _journal(path)  # every round at 12:00 UTC (the journal's clock, set above)
    status, text = asyncio.run(_get(path, tmp_path, "auditor",
                                    protection={"gaming_day_starts": "13:00", "shift_hours": 12}))
    assert status == 200, text[:500]
    (band,) = [_attrs(t) for t in re.findall(r'<p id="band"[^>]*>', text)]
    assert (band["gaming-day-starts"], band["shift-hours"]) == ("13:00", "12")
    # 12:00 is the end of the gaming day that began at 13:00 the day before: its second shift
    assert re.findall(r"<h3>Gaming day ([0-9-]+)</h3>", text) == ["2026-11-26"]
    assert re.findall(r"<h3>Shift (\d+)</h3>", text) == ["2"]


def test_a_technician_may_not_open_it(tmp_path):
    from web import guard
    from web.auth import add_user

    assert guard.may("supervisor", "/protection") and guard.may("auditor", "/protection")
    assert not guard.may("technician", "/protection")
    path = tmp_path / "t.journal"
    _journal(path)
    floor_accounts(tmp_path / "users")
    add_user(tmp_path / "users", "tech", "technician", "a technician's long password")
    status, _ = asyncio.run(_get(path, tmp_path, "technician", fresh=False))
    assert status == 403


def test_a_supervisor_asks_for_the_shuffler_out_of_service_and_an_auditor_may_not(tmp_path):
    path = tmp_path / "t.journal"
    _journal(path)
    status, where = asyncio.run(_get(path, tmp_path, "supervisor", post=True))
    assert status == 303 and where == "/protection?requested=shuffler"
    (asked,) = requests.pending(path)
    assert (asked.action, asked.device, asked.by) == ("out_of_order", "shuffler", SUPERVISOR)
    requests.done(asked)
    status, _ = asyncio.run(_get(path, tmp_path, "auditor", post=True))
    assert status == 403 and requests.pending(path) == []
