"""The web service's audit journal cannot fill the table's disk (issue 30 (3)).

Refused logins wrote a record each, at up to 1,698 a second, beside the journal; a 4 MB state directory
filled in 5 s and the daemon exited.  Now the audit files live in a directory of their own, rolled over at
a size and kept to a number of files, and refused logins are written at a bounded rate: an address that
keeps trying is turned away (HTTP 429) without its password checked, recorded once.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from controller.config.table import load_config
from controller.journal.store import Journal
from controller.paths import status_file
from web import audit, auth, keys
from web.app import floor_app
from web.audit import Audit, LoginThrottle, audit_dir
from web.feed import StatusFeed
from web_harness import PASSWORD, SUPERVISOR, floor_accounts

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


def test_the_throttle_turns_an_address_away_and_bounds_what_is_written():
    t = LoginThrottle(per_address=5, window=60.0, recorded=10)
    for k in range(5):
        assert not t.turned_away("a", now=k)
        t.refused("a", now=k)
    assert t.turned_away("a", now=5) and t.first_turned_away("a") and not t.first_turned_away("a")
    assert not t.turned_away("b", now=5)  # another address is not
    assert not t.turned_away("a", now=60.5)  # a window after its first refusal, one more try
    written = [t.may_record(now=100 + k * 0.01) for k in range(25)]
    assert written == [True] * 10 + [False] * 15 and t.take_unrecorded() == 15 and t.take_unrecorded() == 0
    assert t.may_record(now=161)  # a new window


def test_a_thousand_wrong_passwords_from_one_address_write_a_handful_of_records(tmp_path, monkeypatch):
    users = tmp_path / "users"
    floor_accounts(users)
    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / "t.journal"))
    monkeypatch.setenv("TABLE_WEB__USERS", str(users))
    cfg = load_config(ROOT / "config" / "ultimate_texas_holdem.toml")
    checked = []
    real_check = auth.check_password
    monkeypatch.setattr("web.floor.check_password", lambda pw, h: (checked.append(pw), real_check(pw, h))[1])

    async def main() -> list[int]:
        from aiohttp.test_utils import TestClient, TestServer

        a = Audit(audit_dir(Path(cfg.journal)))
        app = floor_app(cfg, StatusFeed(status_file(cfg.journal)), a)
        statuses = []
        try:
            async with TestClient(TestServer(app)) as client:
                for _ in range(1000):
                    r = await client.post("/login", data={"user": SUPERVISOR, "password": "wrong"},
                                          allow_redirects=False)
                    statuses.append(r.status)
                # the right password from the same address is turned away too, until the window has passed
                r = await client.post("/login", data={"user": SUPERVISOR, "password": PASSWORD}, allow_redirects=False)
                statuses.append(r.status)
                assert app[keys.THROTTLE].turned_away("127.0.0.1", now=float("inf")) is False
        finally:
            a.close()
        return statuses

    statuses = asyncio.run(main())
    assert statuses[:5] == [401] * 5 and set(statuses[5:]) == {429}
    assert len(checked) == 5  # no password hash computed for an address turned away
    files = sorted(audit_dir(Path(cfg.journal)).glob("audit-*.journal"))
    with Journal(files[-1]) as j:
        kinds = [e.kind for e in j.events(None)]
    assert kinds == [audit.LOGIN_REFUSED] * 5 + [audit.LOGIN_THROTTLED]
    assert not Path(cfg.journal).with_suffix(".web-audit").exists()  # nothing beside the table's journal
