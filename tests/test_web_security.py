"""The floor's pages on a shared floor PC, tried as an attacker would (issue 26; P107).

Each test serves the floor application in this process (aiohttp's test server), with accounts hashed at a low
scrypt cost where the hash is not what is measured, and a throttle of milliseconds where the delays' schedule
is: 200 wrong passwords lock the account and are answered no faster than the throttle allows; a known and an
unknown name are refused in the same time; a POST without its token is refused and logged; every route is
walked by every role (a technician opens no hand history); accounts changed in the users file count at once;
a slow request head or body is cut off; an event stream's end is no traceback; TLS makes cookies Secure.
"""

from __future__ import annotations

import asyncio
import logging
import ssl
import statistics
import subprocess
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from controller.config.table import ConfigError, TableConfig, load_config
from controller.journal.store import Journal
from controller.paths import status_file
from web import audit, auth, guard
from web.app import dealer_app, floor_app, runner_options
from web.audit import Audit, LoginThrottle, audit_dir
from web.feed import StatusFeed
from web_harness import AUDITOR, PASSWORD, SUPERVISOR, form_token

ROOT = Path(__file__).resolve().parent.parent
TECHNICIAN, OTHER = "tess", "olga"
CHEAP = 2**10  # scrypt's cost for accounts whose hash is not what a test measures


def accounts(path: Path, n: int = CHEAP, **roles: str) -> None:
    roles = roles or {SUPERVISOR: "supervisor", OTHER: "supervisor", AUDITOR: "auditor", TECHNICIAN: "technician"}
    path.write_text("".join(auth.Account(name, role, auth.hash_password(PASSWORD, n=n)).line()
                            for name, role in roles.items()))
    path.chmod(0o600)


def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, users: Path, **web_settings: str) -> TableConfig:
    monkeypatch.setenv("TABLE_JOURNAL", str(tmp_path / "t.journal"))
    monkeypatch.setenv("TABLE_WEB__USERS", str(users))
    for key, value in web_settings.items():
        monkeypatch.setenv(f"TABLE_WEB__{key.upper()}", value)
    cfg = load_config(ROOT / "config" / "ultimate_texas_holdem.toml")
    Journal(cfg.journal).close()  # an empty journal: the pages read it
    return cfg


@asynccontextmanager
async def floor(cfg: TableConfig, throttle: LoginThrottle | None = None) -> AsyncIterator[TestClient[Any, Any]]:
    a = Audit(audit_dir(Path(cfg.journal)))
    try:
        async with TestClient(TestServer(floor_app(cfg, StatusFeed(status_file(cfg.journal)), a, throttle))) as c:
            yield c
    finally:
        a.close()


async def log_in(client: TestClient[Any, Any], user: str, password: str = PASSWORD) -> int:
    token = form_token(await (await client.get("/login")).text())
    r = await client.post("/login", data={"user": user, "password": password, "csrf": token}, allow_redirects=False)
    return r.status


def recorded(cfg: TableConfig) -> list[tuple[str, str | None, dict[str, Any]]]:
    with Journal(sorted(audit_dir(Path(cfg.journal)).glob("audit-*.journal"))[-1]) as j:
        return [(e.kind, e.who, e.data) for e in j.events(None)]


def test_200_wrong_passwords_lock_the_account_no_faster_than_the_throttle_allows(tmp_path, monkeypatch):
    users = tmp_path / "users"
    accounts(users)
    cfg = config(tmp_path, monkeypatch, users)
    # the schedule at milliseconds (the service's: a second, doubling to 30 s; the test's sum would be hours)
    throttle = LoginThrottle(free=3, base=0.001, cap=0.005)
    assert [LoginThrottle().delay_after(n) for n in (2, 3, 4, 7, 12)] == [0, 1, 2, 16, 30]

    async def main() -> tuple[list[int], float, int, int, int]:
        async with floor(cfg, throttle) as client:
            token = form_token(await (await client.get("/login")).text())
            start = time.monotonic()
            statuses = []
            for _ in range(200):
                r = await client.post("/login", data={"user": SUPERVISOR, "password": "wrong", "csrf": token},
                                      allow_redirects=False)
                statuses.append(r.status)
            elapsed = time.monotonic() - start
            locked_out = await log_in(client, SUPERVISOR)  # the right password: locked all the same
            # another supervisor unlocks it on the accounts page (its form's token), then it logs in
            assert await log_in(client, OTHER) == 303
            page = await (await client.get("/accounts")).text()
            r = await client.post("/accounts/unlock", data={"name": SUPERVISOR, "csrf": form_token(page)},
                                  allow_redirects=False)
            client.session.cookie_jar.clear()
            return statuses, elapsed, locked_out, r.status, await log_in(client, SUPERVISOR)

    statuses, elapsed, locked_out, unlocked, after = asyncio.run(main())
    assert statuses == [401] * 200 and locked_out == 401 and unlocked == 303 and after == 303
    # the n-th failure is checked no sooner than delay_after(n - 1) after the one before it
    least = sum(throttle.delay_after(n) for n in range(1, 200))
    assert elapsed >= least, (elapsed, least)
    seen = recorded(cfg)
    locks = [(who, d["failures"]) for kind, who, d in seen if kind == audit.LOCKED]
    assert locks == [(SUPERVISOR, cfg.web.lock_after)]
    assert (audit.UNLOCKED, OTHER, {"account": SUPERVISOR}) in seen
    assert not auth.load_users(users)[SUPERVISOR].locked


def test_tries_beyond_those_held_are_turned_away_unchecked(tmp_path, monkeypatch):
    users = tmp_path / "users"
    accounts(users)
    cfg = config(tmp_path, monkeypatch, users)
    checked: list[str] = []
    real = auth.check_password
    monkeypatch.setattr("web.floor.check_password", lambda pw, h: (checked.append(pw), real(pw, h))[1])

    async def main() -> list[int]:
        async with floor(cfg, LoginThrottle(free=1, base=0.3, held=2)) as client:
            token = form_token(await (await client.get("/login")).text())
            form = {"user": SUPERVISOR, "password": "wrong", "csrf": token}
            assert (await client.post("/login", data=form)).status == 401  # the first: no delay
            answers = await asyncio.gather(*(client.post("/login", data=form) for _ in range(6)))
            return sorted(r.status for r in answers)

    assert asyncio.run(main()) == [401, 401] + [429] * 4
    assert len(checked) == 3
    assert [kind for kind, _, _ in recorded(cfg)].count(audit.LOGIN_THROTTLED) == 1


@pytest.mark.timing  # make test runs it alone, after the parallel run: four workers on two cores are noise
def test_a_known_and_an_unknown_name_are_refused_in_the_same_time(tmp_path, monkeypatch):
    users = tmp_path / "users"
    accounts(users, n=2**13)  # a quarter of the service's scrypt cost (its CPU): the hash still takes the time
    cfg = config(tmp_path, monkeypatch, users, lock_after="100")  # the refusal's work measured, never a lock's

    async def main() -> tuple[list[float], list[float]]:
        async with floor(cfg, LoginThrottle(free=10**6)) as client:  # no delays: the work alone is measured
            token = form_token(await (await client.get("/login")).text())
            times: dict[str, list[float]] = {SUPERVISOR: [], "nobody-here": []}
            for k in range(36):
                name = (SUPERVISOR, "nobody-here")[k % 2]
                start = time.perf_counter()
                r = await client.post("/login", data={"user": name, "password": "wrong", "csrf": token})
                times[name].append(time.perf_counter() - start)
                assert r.status == 401
            return times[SUPERVISOR][2:], times["nobody-here"][2:]  # after a warm-up

    known, unknown = asyncio.run(main())
    # each unknown name's try against the known name's try just before it, interleaved: a busy machine's load
    # (the suite runs four workers on two cores) slows both of a pair alike, so the median of the pairs' ratios
    # measures the refusal's work; the unhashed unknown name of before (4 ms against 86 ms) gives about 0.05
    ratios = sorted(u / k for k, u in zip(known, unknown, strict=True))
    ratio = statistics.median(ratios)
    assert 1 / 1.2 <= ratio <= 1.2, (ratio, min(known), min(unknown), statistics.median(known),
                                     statistics.median(unknown))


def test_a_post_without_its_token_is_refused_and_logged(tmp_path, monkeypatch):
    users = tmp_path / "users"
    accounts(users)
    cfg = config(tmp_path, monkeypatch, users)

    async def main() -> list[int]:
        async with floor(cfg) as client:
            statuses = [(await client.post("/login", data={"user": SUPERVISOR, "password": PASSWORD},
                                           allow_redirects=False)).status]
            await client.get("/login")  # the cookie, but another site's form cannot read the field
            statuses.append((await client.post("/login", data={"user": SUPERVISOR, "password": PASSWORD,
                                                               "csrf": "x" * 43}, allow_redirects=False)).status)
            assert await log_in(client, SUPERVISOR) == 303
            page = await (await client.get("/")).text()
            for form in ({}, {"csrf": "wrong"}):
                statuses.append((await client.post("/logout", data=form, allow_redirects=False)).status)
            statuses.append((await client.get("/", allow_redirects=False)).status)  # still logged in
            statuses.append((await client.post("/logout", data={"csrf": form_token(page)},
                                               allow_redirects=False)).status)
            statuses.append((await client.get("/", allow_redirects=False)).status)  # logged out
            return statuses

    assert asyncio.run(main()) == [403, 403, 403, 403, 200, 303, 303]
    refused = [(who, d["why"], d["path"]) for kind, who, d in recorded(cfg) if kind == audit.REFUSED]
    assert refused == [("-", "csrf", "/login")] * 2 + [(SUPERVISOR, "csrf", "/logout")] * 2


def test_every_route_for_every_role(tmp_path, monkeypatch):
    users = tmp_path / "users"
    accounts(users)
    cfg = config(tmp_path, monkeypatch, users)
    roles = {SUPERVISOR: "supervisor", AUDITOR: "auditor", TECHNICIAN: "technician"}

    async def main() -> dict[tuple[str, str], int]:
        seen = {}
        async with floor(cfg) as client:
            app = client.server.app
            assert app is not None
            declared = {r.resource.canonical for r in app.router.routes() if r.resource is not None}
            assert declared <= set(guard.ROUTES), declared - set(guard.ROUTES)  # every route in the one table
            for user in roles:
                client.session.cookie_jar.clear()
                assert await log_in(client, user) == 303
                token = form_token(await (await client.get("/")).text())
                for route in sorted(declared - {"/logout", "/static"}):
                    path = route.replace("{round_id}", "r-000001")
                    posts = {r.method for r in app.router.routes() if r.resource and r.resource.canonical == route}
                    if "GET" in posts:
                        r = await client.get(path, allow_redirects=False)
                    else:
                        r = await client.post(path, data={"csrf": token, "name": "nobody"}, allow_redirects=False)
                    if route == "/liveness":  # an event stream: its head tells
                        r.close()
                    seen[(user, route)] = r.status
        return seen

    seen = asyncio.run(main())
    for (user, route), status in seen.items():
        if guard.ROUTES[route] is guard.PUBLIC:
            continue
        allowed = guard.may(roles[user], route)
        assert (status == 403) == (not allowed), (user, route, status)
    assert seen[(TECHNICIAN, "/rounds/{round_id}")] == 403 and seen[(TECHNICIAN, "/rounds")] == 403
    assert seen[(SUPERVISOR, "/rounds/{round_id}")] == 404  # allowed: no such round
    refused = {(who, d["path"]) for kind, who, d in recorded(cfg) if kind == audit.REFUSED and d["why"] == "role"}
    assert (TECHNICIAN, "/rounds/r-000001") in refused


def test_accounts_changed_in_the_users_file_count_at_once(tmp_path, monkeypatch):
    users = tmp_path / "users"
    accounts(users, **{SUPERVISOR: "supervisor"})
    cfg = config(tmp_path, monkeypatch, users)

    async def main() -> list[int]:
        out = []
        async with floor(cfg) as client:
            out.append(await log_in(client, AUDITOR))  # no such account yet
            auth.add_user(users, AUDITOR, "auditor", PASSWORD)  # as tablectl web --add-user, the service running
            out.append(await log_in(client, AUDITOR))
            out.append((await client.get("/audit", allow_redirects=False)).status)
            accounts(users, **{SUPERVISOR: "supervisor", AUDITOR: "technician"})  # another role
            out.append((await client.get("/audit", allow_redirects=False)).status)
            out.append((await client.get("/", allow_redirects=False)).status)
            auth.set_flag(users, AUDITOR, "disabled", True)  # as tablectl web --disable: the login ends
            out.append((await client.get("/", allow_redirects=False)).status)
            out.append(await log_in(client, AUDITOR))
            auth.set_flag(users, AUDITOR, "disabled", False)
            auth.set_flag(users, AUDITOR, "locked", True)
            out.append(await log_in(client, AUDITOR))
            auth.set_flag(users, AUDITOR, "locked", False)  # as tablectl web --unlock
            out.append(await log_in(client, AUDITOR))
        return out

    assert asyncio.run(main()) == [401, 303, 200, 403, 200, 303, 401, 401, 303]
    assert (audit.UNLOCKED, "tablectl", {"account": AUDITOR}) in recorded(cfg)


def test_a_slow_request_head_or_body_is_cut_off_and_a_big_body_refused(tmp_path, monkeypatch):
    users = tmp_path / "users"
    accounts(users)
    cfg = config(tmp_path, monkeypatch, users, header_seconds="1", body_seconds="1", max_body_kb="4")

    async def main() -> tuple[float, bytes, bytes, int]:
        a = Audit(audit_dir(Path(cfg.journal)))
        runner = web.AppRunner(floor_app(cfg, StatusFeed(status_file(cfg.journal)), a), **runner_options(cfg))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = runner.addresses[0][1]
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            start = time.monotonic()
            writer.write(b"GET /login HTTP/1.1\r\nHost: floor\r\nX-Slow: ")  # a head that never ends
            await writer.drain()
            closed = await asyncio.wait_for(reader.read(), 10)
            head_cut = time.monotonic() - start
            writer.close()
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"POST /login HTTP/1.1\r\nHost: floor\r\nContent-Type: application/x-www-form-urlencoded"
                         b"\r\nContent-Length: 100\r\n\r\nuser=sam")  # a body that never ends
            await writer.drain()
            slow_body = await asyncio.wait_for(reader.readline(), 10)
            writer.close()
            async with TestClient(TestServer(floor_app(cfg, StatusFeed(status_file(cfg.journal)), a))) as client:
                await client.get("/login")
                big = await client.post("/login", data={"user": "x" * 8000, "password": "-"})
            return head_cut, closed, slow_body, big.status
        finally:
            await runner.cleanup()
            a.close()

    head_cut, closed, slow_body, big = asyncio.run(main())
    assert closed == b"" and head_cut < 5  # closed, nothing answered, after header_seconds
    assert slow_body.split()[1] == b"408" and big == 413


def test_an_event_stream_closed_by_its_page_logs_no_traceback(tmp_path, monkeypatch, caplog):
    users = tmp_path / "users"
    accounts(users)
    cfg = config(tmp_path, monkeypatch, users)

    async def main() -> None:
        feed = StatusFeed(status_file(cfg.journal))
        runner = web.AppRunner(dealer_app(feed), **runner_options(cfg))  # the same stream as the floor's
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0).start()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", runner.addresses[0][1])
            writer.write(b"GET /liveness HTTP/1.1\r\nHost: floor\r\n\r\n")
            assert b"event: liveness" in await reader.readuntil(b"\n\n\r\n")  # the head, the first event
            writer.close()  # the page goes away
            # the stream finds out at its next tick (feed.LIVENESS_EVERY): wait on its subscriber leaving
            for _ in range(300):
                if not feed._subscribers:
                    break
                await asyncio.sleep(0.01)
            assert not feed._subscribers
        finally:
            await runner.cleanup()

    with caplog.at_level(logging.DEBUG):
        asyncio.run(main())
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING or r.exc_info], caplog.records


def test_tls_settings_are_checked_and_make_cookies_secure(tmp_path, monkeypatch):
    users = tmp_path / "users"
    accounts(users)
    cert, key = tmp_path / "floor.crt", tmp_path / "floor.key"
    with pytest.raises(ConfigError) as no_key:
        config(tmp_path, monkeypatch, users, tls_cert=str(tmp_path / "missing.crt"))
    assert [p.split(" ")[0].rstrip(":") for p in no_key.value.problems if "web" in p] == ["web.tls_cert"]
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=floor",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    with pytest.raises(ConfigError) as half:
        config(tmp_path, monkeypatch, users, tls_cert=str(cert))
    assert [p.split(" ")[0].rstrip(":") for p in half.value.problems if "web" in p] == ["web.tls_key"]
    cfg = config(tmp_path, monkeypatch, users, tls_cert=str(cert), tls_key=str(key))

    async def main() -> tuple[str, str, str]:
        a = Audit(audit_dir(Path(cfg.journal)))
        server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        server.load_cert_chain(cert, key)
        client_tls = ssl.create_default_context(cafile=str(cert))
        client_tls.check_hostname = False
        runner = web.AppRunner(floor_app(cfg, StatusFeed(status_file(cfg.journal)), a), **runner_options(cfg))
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", 0, ssl_context=server).start()
        port = runner.addresses[0][1]
        try:
            from aiohttp import ClientSession, CookieJar, TCPConnector

            # unsafe: a jar that keeps cookies of an address (127.0.0.1), not only of a name
            async with ClientSession(connector=TCPConnector(ssl=client_tls), cookie_jar=CookieJar(unsafe=True)) as s:
                r = await s.get(f"https://127.0.0.1:{port}/login")
                form = {"user": SUPERVISOR, "password": PASSWORD, "csrf": form_token(await r.text())}
                r2 = await s.post(f"https://127.0.0.1:{port}/login", data=form, allow_redirects=False)
                return r.headers["Set-Cookie"], r2.headers["Set-Cookie"], r.headers["Strict-Transport-Security"]
        finally:
            await runner.cleanup()
            a.close()

    login_cookie, session_cookie, hsts = asyncio.run(main())
    for cookie in (login_cookie, session_cookie):
        assert {"Secure", "HttpOnly", "SameSite=Strict"} <= {p.strip() for p in cookie.split(";")}, cookie
    assert hsts.startswith("max-age=")


def test_tablectl_web_disables_enables_and_unlocks_an_account(tmp_path, monkeypatch):
    import io

    from controller.cli.main import main

    users = tmp_path / "users"
    accounts(users)
    config(tmp_path, monkeypatch, users)
    auth.set_flag(users, SUPERVISOR, "locked", True)
    conf = str(ROOT / "config" / "ultimate_texas_holdem.toml")

    def tablectl(*args: str) -> int:
        return main(["web", "--config", conf, *args], io.StringIO(), io.StringIO(), io.StringIO())

    assert tablectl("--unlock", SUPERVISOR) == 0 and not auth.load_users(users)[SUPERVISOR].locked
    assert tablectl("--disable", AUDITOR) == 0 and auth.load_users(users)[AUDITOR].disabled
    assert tablectl("--enable", AUDITOR) == 0 and not auth.load_users(users)[AUDITOR].disabled
    assert tablectl("--unlock", "nobody") == 2  # no such account: said, nothing written
    assert tablectl("--unlock", SUPERVISOR, "--disable", AUDITOR) == 2  # one change at a time
