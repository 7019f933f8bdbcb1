"""The web service's audit journal cannot fill the table's disk (issue 30 (3)).

Refused logins wrote a record each, at up to 1,698 a second, beside the journal; a 4 MB state directory
filled in 5 s and the daemon exited.  Now the audit files live in a directory of their own, rolled over at
a size and kept to a number of files, and refused logins are written at a bounded rate: an address that
keeps trying is turned away (HTTP 429) without its password checked, recorded once.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from controller.config.table import load_config
from controller.journal.store import Journal
from controller.paths import status_file
from web import audit, auth
from web.app import floor_app
from web.audit import Audit, LoginThrottle, audit_dir
from web.feed import StatusFeed
from web_harness import PASSWORD, SUPERVISOR, form_token

ROOT = Path(__file__).resolve().parent.parent


def test_the_audit_files_roll_over_and_are_kept_to_their_number(tmp_path):
    a = Audit(tmp_path / "audit.d", max_bytes=200_000, keep=3)
    for i in range(300):
        a.record(audit.HandHistoryViewed(page="round", round=f"r-{i:06d}"), "sam")
    files = a.files()
    assert len(files) == 3 and files[-1] == a.journal.path
    assert int(files[0].stem.split("-")[1]) > 1  # the oldest were removed
    # each file a whole chain; the disk used bounded by the number of files and their size (plus one page)
    for f in files:
        with Journal(f) as j:
            assert j.verify(full=True) > 0
    used = sum(p.stat().st_size for p in (tmp_path / "audit.d").iterdir())  # write-ahead logs included
    assert used < 3 * 260_000  # a file ends at the first record past 200 kB; its log is checkpointed when closed
    # the audit page's last events: the newest file's and the one's before it, in order, up to the newest
    last = [int(e.data["round"][2:]) for e in a.events(100)]
    assert last == list(range(300 - len(last), 300)) and len(last) > 1
    a.close()
    again = Audit(tmp_path / "audit.d", max_bytes=200_000, keep=3)  # a restart writes on in the newest file
    assert again.journal.path == files[-1]
    again.close()


def test_the_throttle_holds_each_key_longer_and_bounds_what_is_written():
    t = LoginThrottle(free=3, base=1.0, cap=30.0, forget=900.0, held=2, recorded=10)
    assert [t.delay_after(n) for n in (0, 2, 3, 4, 5, 8, 9, 20)] == [0, 0, 1, 2, 4, 30, 30, 30]
    tried = t.keys("a", "sam")
    for k in range(3):  # the first failures: no delay
        assert t.wait(tried, now=k) == 0
        t.failed(tried, now=k)
    assert t.wait(tried, now=2) == 1  # then held a second after the last failure, then two ...
    assert t.wait(t.keys("a", "other"), now=2) == 1  # ... per address ...
    assert t.wait(t.keys("b", "sam"), now=2) == 1  # ... and per name, from any address
    assert t.wait(t.keys("b", "other"), now=2) == 0
    with t.holding(tried), t.holding(tried):  # two tries of a key waiting: a third is turned away
        assert t.wait(tried, now=2) is None and t.wait(t.keys("b", "other"), now=2) == 0
    assert t.first_turned_away(tried[0], now=2) and not t.first_turned_away(tried[0], now=3)
    t.failed(tried, now=3)
    assert t.wait(tried, now=3) == 2
    t.succeeded(tried[1])  # a right password clears its name, not its address
    assert t.wait(t.keys("b", "sam"), now=3) == 0 and t.wait(tried, now=3) == 2
    assert t.wait(tried, now=3 + 900) == 0  # forgotten a while after its last failure
    written = [t.may_record(now=100 + k * 0.01) for k in range(25)]
    assert written == [True] * 10 + [False] * 15 and t.take_unrecorded() == 15 and t.take_unrecorded() == 0
    assert t.may_record(now=161)  # a new window


def test_a_flood_of_wrong_passwords_writes_a_handful_of_records(tmp_path, monkeypatch):
    users = tmp_path / "users"
    users.write_text(auth.Account(SUPERVISOR, "supervisor", auth.hash_password(PASSWORD, n=2**10)).line())
    users.chmod(0o600)
    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / "t.journal"))
    monkeypatch.setenv("TABLE_WEB__USERS", str(users))
    cfg = load_config(ROOT / "config" / "ultimate_texas_holdem.toml")

    async def main() -> list[int]:
        from aiohttp.test_utils import TestClient, TestServer

        a = Audit(audit_dir(Path(cfg.journal)))
        # no delays here (web/test_web_security.py times them): what is written is bounded all the same
        app = floor_app(cfg, StatusFeed(status_file(cfg.journal)), a, LoginThrottle(free=10**6, recorded=10))
        statuses = []
        try:
            async with TestClient(TestServer(app)) as client:
                token = form_token(await (await client.get("/login")).text())
                for _ in range(100):
                    r = await client.post("/login", data={"user": SUPERVISOR, "password": "wrong", "csrf": token},
                                          allow_redirects=False)
                    statuses.append(r.status)
        finally:
            a.close()
        return statuses

    statuses = asyncio.run(main())
    assert set(statuses) == {401}
    files = sorted(audit_dir(Path(cfg.journal)).glob("audit-*.journal"))
    with Journal(files[-1]) as j:
        kinds = [e.kind for e in j.events(None)]
    assert kinds == [audit.LOGIN_REFUSED] * 10 + [audit.LOCKED]  # the rest counted, written at the service's stop
    assert not Path(cfg.journal).with_suffix(".web-audit").exists()  # nothing beside the table's journal


def cut_short(a: Audit) -> list[dict]:
    out = []
    for f in a.files():
        with Journal(f) as j:
            out += [e.data for e in j.events(None) if e.kind == audit.CUT_SHORT]
    return out


@pytest.mark.requirement("AGCO log retention")
def test_the_access_log_is_kept_its_days_and_says_when_the_cap_cut_it_short(tmp_path):
    now = [datetime.now(UTC).timestamp()]
    a = Audit(tmp_path / "audit.d", max_bytes=100_000, keep=3, keep_days=90, clock=lambda: now[0])
    for i in range(40):  # about four records a file
        a.record(audit.HandHistoryViewed(page="round", round=f"r-{i:06d}"), "sam")
    assert cut_short(a) and all(c["keep_days"] == 90 for c in cut_short(a))  # removed younger than 90 days: said
    kept = a.files()[0].name
    a.close()
    now[0] += 91 * 86400  # three months on, the files removed have had their days: nothing to say
    b = Audit(tmp_path / "audit.d", max_bytes=100_000, keep=3, keep_days=90, clock=lambda: now[0])
    for i in range(40):
        b.record(audit.HandHistoryViewed(page="round", round=f"s-{i:06d}"), "sam")
    assert len(b.files()) == 3 and b.files()[0].name > kept  # those of the first part removed since
    assert not [c for c in cut_short(b) if c["file"] >= kept]
    b.close()


def test_the_access_log_records_each_page_viewed_and_no_token(tmp_path, monkeypatch):
    """Who opened which page, when, with its answer; the search's fields kept, any other field of an address
    left out (a token put in a link never reaches the log); the streams, polled data and static files not."""
    from test_web_security import accounts, config, floor, log_in

    users = tmp_path / "users"
    accounts(users)
    cfg = config(tmp_path, monkeypatch, users)
    Journal(Path(cfg.journal)).close()  # an empty journal: the pages have one to read

    async def main() -> dict[str, int]:
        async with floor(cfg) as client:
            assert await log_in(client, SUPERVISOR) == 303
            statuses = {}
            for path in ("/", "/rounds?seat=2&csrf=SECRET1&password=SECRET2", "/rounds/nope", "/liveness.json",
                         "/words.json", "/static/style.css", "/audit"):
                statuses[path] = (await client.get(path, allow_redirects=False)).status
            return statuses

    statuses = asyncio.run(main())
    assert statuses["/rounds/nope"] == 404 and statuses["/audit"] == 403
    files = sorted(audit_dir(Path(cfg.journal)).glob("audit-*.journal"))
    with Journal(files[-1]) as j:
        rows = j.events(None)
    viewed = [(e.who, e.data["page"], e.data["path"], e.data["status"], e.data.get("query"))
              for e in rows if e.kind == audit.VIEWED]
    assert viewed == [(SUPERVISOR, "table", "/", statuses["/"], None),
                      (SUPERVISOR, "rounds", "/rounds", 200, "seat=2"),
                      (SUPERVISOR, "round", "/rounds/nope", 404, None)]  # the auditor's page: refused, logged so
    assert [e.data["path"] for e in rows if e.kind == audit.REFUSED] == ["/audit"]
    assert all(b"SECRET" not in f.read_bytes() for f in audit_dir(Path(cfg.journal)).iterdir())
