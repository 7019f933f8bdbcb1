"""The floor's pages: behind a login, for a supervisor or an auditor; drawn on the server from the journal.

Every page reads the table's journal read-only (``Journal.read_only``; hand recall (web/recall.py), the progressive
and the irregularities across its sealed segments too, ``open_for_reading``, P61).  Hand history shows only closed
rounds: the open round's cards are the daemon's secret until the rules reveal them (its public state is
the dealer's screen).  Every login, refused login and page of hand history goes to the audit journal
with who (web/audit.py).  Every page after the login shows the daemon's liveness (``/liveness``, as the
dealer's screen: web/static/liveness.js).
"""

from __future__ import annotations

import asyncio
import html
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web

from controller.journal.segments import open_for_reading
from controller.journal.store import METER_ADD, METER_PAID, METER_SET, Event, Journal, JournalIntegrityError
from controller.progressive import hits as prog
from web import audit, keys, recall
from web.auth import COOKIE, check_password
from web.feed import liveness_json
from web.words import local_time, money, say

e = html.escape
T = TypeVar("T")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
PAGES = [
    ("/", "Table"),
    ("/rounds", "Hand recall"),
    ("/progressive", "Progressive"),
    ("/irregularities", "Irregularities and voids"),
    ("/audit", "Audit"),
]
# journal kinds of irregularities, voids and device trouble (table- or round-level)
TROUBLE = (
    "void",
    "halt",
    "irregular",
    "fault",
    "offline",
    "removed",
    "discard",
    "skipped",
    "abandoned",
    "lockout_lost",
    "disabled",
    "resumed",
    "mismatch",
    "jam",
    "misdeal",
)


def page(request: web.Request, title: str, body: str, status: int = 200) -> web.Response:
    login = request.get(keys.LOGIN)  # the typed key floor.require_login sets (a string key never matched it)
    nav = "".join(
        f'<a href="{href}">{e(name)}</a>'
        for href, name in PAGES
        if login and (href != "/audit" or login.role == "auditor")
    )
    who = (
        (
            f'<span>{e(login.user)} ({e(login.role)})</span><form class="logout" method="post" action="/logout">'
            f"<button>Log out</button></form>"
        )
        if login
        else ""
    )
    # logged in: the banner when the daemon stops or this page's stream drops (before, /liveness is refused)
    live = ('<link rel="stylesheet" href="/static/liveness.css"><script src="/static/liveness.js" '
            'data-events="/liveness" defer></script>') if login else ""
    banner = '<div id="liveness" hidden></div>' if login else ""
    text = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>'
        f'<link rel="stylesheet" href="/static/style.css"><script src="/static/cards.js"></script>{live}</head>'
        f'<body class="floor">{banner}'
        f'<nav><strong>{e(request.app[keys.TABLE])}</strong>{nav}{who}</nav>'
        f'<div class="page"><h1>{e(title)}</h1>{body}</div></body></html>'
    )
    return web.Response(text=text, content_type="text/html", status=status, headers={"Cache-Control": "no-store"})


def cards(texts: Iterable[str]) -> str:
    return '<span class="cards">' + "".join(f'<span class="card" data-card="{e(c)}"></span>' for c in texts) + "</span>"


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    return await asyncio.get_running_loop().run_in_executor(None, fn, *args)


def journal(request: web.Request) -> Journal:
    return open_for_reading(request.app[keys.JOURNAL_PATH])


# -- login -------------------------------------------------------------------------------------------

LOGIN_FORM = (
    '<form class="login" method="post" action="/login"><label>User <input name="user" autocomplete="username">'
    '</label><label>Password <input name="password" type="password" autocomplete="current-password"></label>'
    '<button type="submit">Log in</button></form>'
)


async def login_page(request: web.Request) -> web.Response:
    return page(request, "Log in", LOGIN_FORM)


async def login_post(request: web.Request) -> web.Response:
    form = await request.post()
    user, password = str(form.get("user", "")), str(form.get("password", ""))
    throttle, address, now = request.app[keys.THROTTLE], request.remote or "-", time.monotonic()
    if throttle.turned_away(address, now):
        # too many refused logins from here: no password checked, recorded once (issue 30 (3))
        if throttle.first_turned_away(address):
            audit.record_refusal(request.app[keys.AUDIT], throttle, audit.LoginThrottled(remote=address), user or "-",
                                 now)
        return page(request, "Log in", '<p class="bad" id="throttled">Too many wrong logins from this '
                    'machine: wait a minute, then try again.</p>' + LOGIN_FORM, 429)
    account = request.app[keys.USERS].get(user)
    ok = account is not None and await in_thread(check_password, password, account.hash)
    if account is None or not ok:
        throttle.refused(address, now)
        audit.record_refusal(request.app[keys.AUDIT], throttle, audit.LoginRefused(remote=address), user or "-", now)
        return page(request, "Log in", '<p class="bad" id="refused">Wrong user or password.</p>' + LOGIN_FORM, 401)
    sessions = request.app[keys.SESSIONS]
    token = sessions.start(account)
    request.app[keys.AUDIT].record(audit.LoggedIn(role=account.role, remote=request.remote), account.name)
    resp = web.HTTPSeeOther("/")
    resp.set_cookie(COOKIE, token, httponly=True, samesite="Strict", path="/", max_age=sessions.seconds)
    return resp


async def logout(request: web.Request) -> web.Response:
    token = request.cookies.get(COOKIE)
    login = request.app[keys.SESSIONS].get(token)
    if login:
        request.app[keys.AUDIT].record(audit.LoggedOut(), login.user)
    request.app[keys.SESSIONS].end(token)
    resp = web.HTTPSeeOther("/login")
    resp.del_cookie(COOKIE, path="/")
    return resp


@web.middleware
async def require_login(request: web.Request, handler: Handler) -> web.StreamResponse:
    if request.path in ("/login", "/words.json") or request.path.startswith("/static/"):
        return await handler(request)
    login = request.app[keys.SESSIONS].get(request.cookies.get(COOKIE))
    if login is None:
        raise web.HTTPSeeOther("/login")
    request[keys.LOGIN] = login
    return await handler(request)


# -- the table at a glance ---------------------------------------------------------------------------------


def _verify(path: Path) -> tuple[bool, str]:
    with Journal.read_only(path) as j:
        try:
            return True, f"{j.verify()} events, hash chain intact, head {j.head()[1][:16]}…"
        except JournalIntegrityError as exc:
            return False, str(exc)


def _storage(st: dict[str, Any] | None) -> str:
    """The status's ``storage`` in words (P97, P104): halted by a write the disk refuses, or its reserve given up."""
    if not st:
        return "-"
    if st.get("state") == "ok":
        return f"{say('ok', 'storage')} (reserve: {say(st.get('reserve'), 'storage')})"
    state = say(st.get("state"), "storage")
    return f"{state.upper()} ({say(st.get('cause'), 'storage')}): {st.get('problem') or '-'}"


def _running(request: web.Request) -> str:
    alive = request.app[keys.FEED].liveness()
    if alive.running:
        return "Running"
    last = "" if alive.heartbeat is None else f" (last heartbeat {local_time(alive.heartbeat)})"
    return f"NOT RUNNING — do not deal{last}"


async def glance(request: web.Request) -> web.Response:
    s = request.app[keys.FEED].current() or {}
    r = s.get("round") or {}
    ok, verdict = await in_thread(_verify, request.app[keys.JOURNAL_PATH])
    rows = [  # every code in words (web/words.py), every amount as money
        ("Table controller", _running(request)),  # a stopped daemon's last status is not the table now
        ("Game", say(s["game"]) if s.get("game") else "?"),
        ("State", say(s["state"]) if s.get("state") else "no status from the daemon"),
        ("Round", f"{r.get('round_id', '-')} {say(r.get('phase'))}"),
        ("Dealer told", s.get("message") or "-"),
        ("Devices", ", ".join(f"{say(k, 'device')} {say(v)}" for k, v in (s.get("devices") or {}).items())),
        ("Watchdog", say(s.get("watchdog", "-"))),
        ("Storage", _storage(s.get("storage"))),
        ("Progressive wagers", say(s.get("progressive_wagers", "-"))),
        (
            "Awaiting supervisor",
            "; ".join(f"seat {h['seat']} {say(h['wager'])} {say(h['line'])} {money(h['amount'])}"
                      for h in s.get("validation") or [])
            or "none",
        ),
    ]
    meters = "".join(f'<tr data-meter="{e(k)}"><td>{e(say(k))}</td><td class=num>{e(money(v))}</td></tr>'
                     for k, v in (s.get("meters") or {}).items())
    body = (
        "<table>" + "".join(f"<tr><th>{e(k)}</th><td>{e(str(v))}</td></tr>" for k, v in rows) + "</table>"
        f'<h2>Meters</h2><table>{meters}</table><h2>Journal</h2><p id="verify" class="{"ok" if ok else "bad"}">'
        f"{'verified' if ok else 'NOT VERIFIED'}: {e(verdict)}</p>"
    )
    return page(request, "The table at a glance", body)


# -- progressive -------------------------------------------------------------------------------------------


def meter_series(j: Journal) -> dict[str, list[tuple[str, Decimal]]]:
    """Each meter's value after every meter event, in journal order (the replay of Journal.meter_values)."""
    values: dict[str, Decimal] = {}
    series: dict[str, list[tuple[str, Decimal]]] = defaultdict(list)
    for x in j.iter_events():
        if x.kind == METER_SET:
            changed = {k: Decimal(str(v)) for k, v in x.data["meters"].items()}
        elif x.kind == METER_ADD:
            changed = {k: values.get(k, Decimal(0)) + Decimal(str(v)) for k, v in x.data["meters"].items()}
        elif x.kind == METER_PAID:
            changed = {x.data["meter"]: Decimal(str(x.data["after"]))}
        else:
            continue
        values.update(changed)
        for k, v in changed.items():
            series[k].append((x.at, v))
    return dict(series)


def chart(name: str, points: list[tuple[str, Decimal]], width: int = 640, height: int = 160) -> str:
    """One meter over time as an SVG line (time across, dollars up), drawn here: no script needed."""
    if not points:
        return f"<p>{e(say(name))}: no meter events</p>"
    times = [datetime.fromisoformat(t).timestamp() for t, _ in points]
    lo, hi = min(v for _, v in points), max(v for _, v in points)
    t0, t1 = times[0], max(times[-1], times[0] + 1)
    span = (hi - lo) or Decimal(1)
    pad = 40

    def xy(t: float, v: Decimal) -> str:
        x = pad + (t - t0) / (t1 - t0) * (width - pad - 10)
        y = height - 20 - float((v - lo) / span) * (height - 40)  # a pixel position, not an amount
        return f"{x:.1f},{y:.1f}"

    line = " ".join(xy(t, v) for t, (_, v) in zip(times, points, strict=True))
    return (
        f'<figure><svg class="chart" data-meter="{e(name)}" data-points="{len(points)}" '
        f'data-now="{e(str(points[-1][1]))}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{e(say(name))} over time">'
        f'<rect width="{width}" height="{height}" fill="#fff" stroke="#ccc"/>'
        f'<polyline fill="none" stroke="#1d3f8a" stroke-width="2" points="{line}"/>'
        f'<text x="4" y="14" font-size="11">{e(money(hi))}</text>'
        f'<text x="4" y="{height - 6}" font-size="11">{e(money(lo))}</text>'
        f'<text x="{width - 4}" y="{height - 6}" font-size="11" text-anchor="end">'
        f"{e(local_time(points[-1][0], date=True))}</text></svg>"
        f"<figcaption>{e(say(name))}: {len(points)} changes, now {e(money(points[-1][1]))}</figcaption></figure>"
    )


def _progressive(
    path: Path, meters: list[str], link: str | None = None
) -> tuple[Any, Any, dict[str, list[tuple[str, Decimal]]]]:
    with open_for_reading(path) as j:
        # a linked table's meters are the link's: never charted nor valued from this journal alone (P81)
        return prog.history(j, 25), prog.report(j, meters, link=link), {} if link else meter_series(j)


async def link_meters(request: web.Request) -> tuple[dict[str, Decimal], dict[str, list[tuple[str, Decimal]]]] | None:
    """A linked table's meters now and over time, read from the link's database; None when it does not answer."""
    from controller.progressive.link.store import LinkError, read_meters

    p = request.app[keys.PROGRESSIVE]
    if p.link is None or p.link_id is None:  # a table of its own: no link to read
        return None
    try:
        values, series = await read_meters(p.link, p.link_id)
    except LinkError:
        return None
    return values, {m: [(at.isoformat(), v) for at, v in points] for m, points in series.items()}


def current_cell(row: dict[str, Any]) -> str:
    if row["current"] is None:
        return '<td class=num data-current="">on link</td>'
    return f'<td class=num data-current="{e(str(row["current"]))}">{e(money(row["current"]))}</td>'


async def progressive(request: web.Request) -> web.Response:
    link = prog.linked(request.app[keys.PROGRESSIVE])
    app = request.app
    hist, rep, series = await in_thread(_progressive, app[keys.JOURNAL_PATH], app[keys.METER_NAMES], link)
    reached = None
    if link is not None:  # the link's meters now and over time, where this page can reach its database
        reached = await link_meters(request)
        for m, row in rep["meters"].items():
            row["current"] = None if reached is None else reached[0].get(m)
        series = {} if reached is None else reached[1]
    hits = "".join(
        f"<tr><td>{e(local_time(h['at'], date=True))}</td>"
        f"<td data-code=\"{e(str(h.get('meter') or 'fixed'))}\">"
        f"{e(say(h['meter']) if h.get('meter') else 'fixed')}</td>"
        f"<td class=num>{e(money(h['amount']))}</td>"
        f"<td>{h['seat']}</td><td>{e(say(h['wager']))} {e(say(h['line']))}</td><td>{e(str(h['round']))}</td>"
        f"<td>{e(str(h['validated_by']))}</td></tr>"
        for h in hist
    )
    report = "".join(
        f'<tr data-meter="{e(m)}"><td>{e(say(m))}</td><td class=num>{e(money(r["coin_in"]))}</td>'
        f"<td class=num>{e(money(r['contributions']))}</td><td class=num>{r['hits']}</td>"
        f"<td class=num>{e(money(r['paid']))}</td>"
        f"{current_cell(r)}</tr>"
        for m, r in rep["meters"].items()
    )
    charts = "".join(chart(m, series.get(m, [])) for m in request.app[keys.METER_NAMES])
    if link is None:
        over_time = "<h2>Each meter over time</h2>" + charts
        on_link = ""
    else:  # the link's meters over time (every table's contributions and hits), never this journal's replay
        over_time = f"<h2>Each meter of link {e(link)} over time</h2>{charts}" if reached is not None else ""
        on_link = (
            f'<p id=link data-link="{e(link)}" data-reached="{"yes" if reached is not None else "no"}">'
            f"This table's own wagers, contributions and hits; its meters are link {e(link)}'s "
            + (
                "(current: read from the link now)"
                if reached is not None
                else "(the link is not answering: current on link)"
            )
            + ". Every table of the link: tablectl progressive report --link.</p>"
        )
    body = (
        f"<p>Progressive wagers accepted: {e(str(rep['progressive_wagers']))}</p>{on_link}"
        "<h2>Meter report</h2><table id=report><tr><th>Meter</th><th>Coin-in</th><th>Contributions</th><th>Hits</th>"
        f"<th>Paid</th><th>Current</th></tr>{report}"
        f"<tr><td>fixed</td><td></td><td></td><td class=num>{rep['fixed']['hits']}</td>"
        f"<td class=num>{e(money(rep['fixed']['paid']))}</td><td></td></tr></table>"
        + over_time
        + "<h2>The last 25 hits</h2><table id=hits><tr><th>When</th><th>Meter</th>"
        "<th>Amount</th><th>Seat</th><th>Line</th>"
        f"<th>Round</th><th>Validated by</th></tr>{hits or '<tr><td colspan=7>no hits</td></tr>'}</table>"
    )
    return page(request, "Progressive", body)


# -- irregularities, voids, device faults ---------------------------------------------------------------------


def _trouble(path: Path) -> list[Event]:
    with open_for_reading(path) as j:
        return [x for x in j.iter_events() if any(w in x.kind for w in TROUBLE)][-200:]


async def irregularities(request: web.Request) -> web.Response:
    rows = "".join(
        f"<tr><td>{e(x.at[:19])}</td><td>{e(x.round_id or 'table')}</td><td>{e(x.kind)}</td>"
        f"<td>{e(x.who or '')}</td><td>{e(', '.join(f'{k}: {v}' for k, v in x.data.items()))[:300]}</td></tr>"
        for x in reversed(await in_thread(_trouble, request.app[keys.JOURNAL_PATH]))
    )
    return page(
        request,
        "Irregularities, voids and device faults",
        f"<table><tr><th>When</th><th>Round</th><th>What</th><th>Who</th><th>Details</th></tr>"
        f"{rows or '<tr><td colspan=5>none</td></tr>'}</table>",
    )


async def audit_page(request: web.Request) -> web.Response:
    if request[keys.LOGIN].role != "auditor":
        raise web.HTTPForbidden(text="the audit trail is for auditors")
    rows = "".join(
        f"<tr><td>{e(x.at[:19])}</td><td>{e(x.who or '')}</td><td>{e(x.kind)}</td>"
        f"<td>{e(', '.join(f'{k}: {v}' for k, v in x.data.items()))}</td></tr>"
        for x in reversed(request.app[keys.AUDIT].events())
    )
    return page(
        request, "Who looked at what", f"<table><tr><th>When</th><th>Who</th><th>What</th><th></th></tr>{rows}</table>"
    )


def routes(app: web.Application) -> None:
    app.router.add_get("/login", login_page)
    app.router.add_post("/login", login_post)
    app.router.add_post("/logout", logout)
    app.router.add_get("/", glance)
    recall.routes(app, page)  # /rounds and /rounds/{round_id} (web/recall.py)
    app.router.add_get("/progressive", progressive)
    app.router.add_get("/irregularities", irregularities)
    app.router.add_get("/audit", audit_page)
    app.router.add_get("/liveness", liveness_events)
    app.router.add_get("/liveness.json", liveness_now)


async def liveness_events(request: web.Request) -> web.StreamResponse:
    return await request.app[keys.FEED].liveness_stream(request)


async def liveness_now(request: web.Request) -> web.Response:
    return liveness_json(request.app[keys.FEED])
