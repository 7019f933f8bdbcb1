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
import logging
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from aiohttp import web

from controller.journal.segments import open_for_reading
from controller.journal.store import METER_ADD, METER_PAID, METER_SET, Event, Journal
from controller.progressive import hits as prog
from web import audit, guard, keys, protection, recall, technician
from web.auth import COOKIE, check_password
from web.details import details, kind
from web.feed import liveness_json
from web.verified import OPEN, Verdict
from web.words import local_time, money, say

if TYPE_CHECKING:
    from controller.config.progressive import ProgressiveConfig

e = html.escape
log = logging.getLogger(__name__)
T = TypeVar("T")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
PAGES = [
    ("/", "Table"),
    ("/rounds", "Hand recall"),
    ("/progressive", "Progressive"),
    ("/irregularities", "Irregularities and voids"),
    ("/protection", "Game protection"),  # issue 28 (web/protection.py)
    ("/audit", "Audit"),
    ("/accounts", "Accounts"),  # a supervisor's: unlocking an account (web/accounts.py)
    ("/technician", "Devices and configuration"),  # a technician's (web/technician.py)
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
CLOSED = ("round_closed", "round_voided")  # a round's cards may be shown once it is closed (its recall shows them)


def page(request: web.Request, title: str, body: str, status: int = 200) -> web.Response:
    login = request.get(keys.LOGIN)  # the typed key floor.require_login sets (a string key never matched it)
    current = ' aria-current="page"'
    nav = "".join(
        f'<a href="{href}" data-page="{href}"{current if href == request.path else ""}>{e(name)}</a>'
        for href, name in PAGES
        if login and guard.may(login.role, href)  # the routes of its role only (web/guard.py)
    )
    who = (
        (
            f'<span class="who" data-user="{e(login.user)}" data-role="{e(login.role)}">{e(login.user)} '
            f'({e(say(login.role, "role"))})</span>{logout_form(request)}'
        )
        if login
        else ""
    )
    # logged in: the banner when the daemon stops or this page's stream drops (before, /liveness is refused)
    live = ('<link rel="stylesheet" href="/static/liveness.css"><script src="/static/liveness.js" '
            'data-events="/liveness" defer></script>') if login else ""
    banner = '<div id="liveness" hidden></div>' if login else ""
    verdict = request.get(keys.VERDICT)
    broken = journal_banner(verdict) if login and verdict is not None and not verdict.ok else ""
    text = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>'
        f'<link rel="stylesheet" href="/static/style.css"><script src="/static/cards.js"></script>{live}</head>'
        f'<body class="floor">{banner}'
        f'<nav aria-label="Floor pages"><strong>{e(request.app[keys.TABLE])}</strong>{nav}{who}</nav>'
        f'<main class="page">{broken}<h1>{e(title)}</h1>{body}</main></body></html>'
    )
    return web.Response(text=text, content_type="text/html", status=status, headers={"Cache-Control": "no-store"})


def logout_form(request: web.Request) -> str:
    """Log out: a POST (a link would log out whoever a page of another site points at it)."""
    return ('<form class="logout" method="post" action="/logout">' + guard.csrf_field(request) +
            "<button data-logout>Log out</button></form>")  # its token (web/guard.py)


def verdict_text(v: Verdict) -> str:
    """The journal's verification in words: how many events and the head, or the file, the seq and what is wrong."""
    if v.ok:
        return f"verified: {v.events} events, hash chain intact, head {v.head[:16]}… (checked {local_time(v.at)})"
    where = "" if v.file is None else (f"segment {v.file}" if v.file != OPEN else v.file)
    at = "" if v.seq is None else f"at seq {v.seq}"
    place = ", ".join(x for x in (where, at) if x)
    return f"NOT VERIFIED{f' ({place})' if place else ''}: {say(v.what, 'journal')}: {v.reason}"


def verdict_attrs(v: Verdict) -> str:
    return (f'data-ok="{"yes" if v.ok else "no"}" data-file="{e(v.file or "")}" data-seq="{v.seq or ""}" '
            f'data-what="{e(v.what or "")}"')


def journal_banner(v: Verdict) -> str:
    """On every page while the journal does not verify: what the page shows is read from it as it is."""
    return (f'<p id="journal-broken" class="bad" role="alert" {verdict_attrs(v)}>The table\'s journal is '
            f"{e(verdict_text(v))}. What this page shows from it may not be what was journaled; call the "
            "technician and keep the files as they are.</p>")


def cards(texts: Iterable[str]) -> str:
    return '<span class="cards">' + "".join(f'<span class="card" data-card="{e(c)}"></span>' for c in texts) + "</span>"


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    return await asyncio.get_running_loop().run_in_executor(None, fn, *args)


def journal(request: web.Request) -> Journal:
    return open_for_reading(request.app[keys.JOURNAL_PATH])


# -- login -------------------------------------------------------------------------------------------


def login_form(token: str) -> str:
    return (
        '<form class="login" method="post" action="/login"><label>User <input name="user" autocomplete="username">'
        '</label><label>Password <input name="password" type="password" autocomplete="current-password"></label>'
        f'<input type="hidden" name="{guard.FIELD}" value="{e(token)}"><button type="submit">Log in</button></form>'
    )


def login_answer(request: web.Request, body: str, status: int = 200) -> web.Response:
    """The login page (with ``body`` before its form), its form's token in a cookie as in the form (web/guard.py)."""
    token = guard.login_csrf(request)
    resp = page(request, "Log in", body + login_form(token), status)
    guard.set_cookie(resp, request, guard.LOGIN_CSRF, token)
    return resp


async def login_page(request: web.Request) -> web.Response:
    return login_answer(request, "")


async def login_post(request: web.Request) -> web.Response:
    form = await request.post()
    user, password = str(form.get("user", ""))[:64], str(form.get("password", ""))
    throttle, address, now = request.app[keys.THROTTLE], guard.address(request), time.monotonic()
    tried = throttle.keys(address, user or "-")
    wait = throttle.wait(tried, now)
    if wait is None:
        # this address or name already has tries waiting out their delay: no password checked, recorded once
        if throttle.first_turned_away(tried[0], now):
            audit.record_refusal(request.app[keys.AUDIT], throttle, audit.LoginThrottled(remote=address), user or "-",
                                 now)
        resp = login_answer(request, '<p class="bad" id="throttled">Too many wrong logins: wait a minute, then try '
                            'again.</p>', 429)
        resp.headers["Retry-After"] = str(max(1, round(throttle.cap)))
        return resp
    if wait > 0:  # growing delays per address and per name (web/audit.py LoginThrottle)
        with throttle.holding(tried):
            await asyncio.sleep(wait)
    users = request.app[keys.USERS]
    account = users.get(user)
    # a name without an account costs one hash as well: a refusal takes the same time either way
    ok = await in_thread(check_password, password, account.hash if account is not None else users.dummy)
    if account is None or not ok or account.locked or account.disabled:
        now = time.monotonic()
        failures = throttle.failed(tried, now)
        audit.record_refusal(request.app[keys.AUDIT], throttle, audit.LoginRefused(remote=address), user or "-", now)
        if account is not None and not account.locked and failures >= request.app[keys.WEB].lock_after:
            users.set_flag(account.name, "locked", True)  # until another supervisor unlocks it (P107)
            request.app[keys.AUDIT].record(audit.AccountLocked(failures=failures, remote=address), account.name)
        # one answer for every refusal: it tells nobody which names exist or are locked
        return login_answer(request, '<p class="bad" id="refused">Wrong user or password, or the account is '
                            'locked (another supervisor can unlock it).</p>', 401)
    throttle.succeeded(tried[1])
    sessions = request.app[keys.SESSIONS]
    token = sessions.start(account)
    request.app[keys.AUDIT].record(audit.LoggedIn(role=account.role, remote=address), account.name)
    resp = web.HTTPSeeOther("/")
    guard.set_cookie(resp, request, COOKIE, token, max_age=sessions.seconds)
    resp.del_cookie(guard.LOGIN_CSRF, path="/")
    raise resp  # (an HTTPException raised, with its cookies: returning one is deprecated)


async def logout(request: web.Request) -> web.Response:
    token = request.cookies.get(COOKIE)
    login = request.app[keys.SESSIONS].get(token)
    if login:
        request.app[keys.AUDIT].record(audit.LoggedOut(), login.user)
    request.app[keys.SESSIONS].end(token)
    resp = web.HTTPSeeOther("/login")
    resp.del_cookie(COOKIE, path="/")
    raise resp


#: the paths that read no journal: the login, the liveness streams, the static files, the words
UNCHECKED = ("/login", "/logout", "/liveness", "/liveness.json", "/words.json")


@web.middleware
async def journal_guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """A page never answers 500 (issue 26): the journal is verified before each page (``JournalCheck``, kept
    incrementally) and a page that fails verification says so at its top; a page that cannot be read from the
    journal answers 503 with what is wrong; another table's journal is shown on no page but the glance."""
    if request.method != "GET" or request.path in UNCHECKED or request.path.startswith("/static/") \
            or request.get(keys.LOGIN) is None:
        return await handler(request)
    verdict = await in_thread(request.app[keys.CHECK].check)
    request[keys.VERDICT] = verdict
    if verdict.what == "foreign" and request.path != "/":
        return page(request, "Another table's journal", "<p>This page is read from the table's journal, which is "
                    "not this table's: nothing of it is shown.</p>", 503)
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except Exception as exc:  # a journal that does not read (the verdict names what is wrong), never a traceback
        log.error("floor page %s not drawn: %s", request.path, type(exc).__name__)
        return page(request, "This page cannot be read from the journal", '<p id="unreadable" class="bad">'
                    f"The journal did not read: {e(type(exc).__name__)}. The table's journal is "
                    f"{e(verdict_text(verdict))}</p>", 503)


# -- the table at a glance ---------------------------------------------------------------------------------


def _storage(st: dict[str, Any] | None) -> str:
    """The status's ``storage`` in words (P97, P104): halted by a write the disk refuses, or its reserve given up."""
    if not st:
        return "-"
    if st.get("state") == "ok":
        return f"{say('ok', 'storage')} (reserve: {say(st.get('reserve'), 'storage')})"
    state = say(st.get("state"), "storage")
    return f"{state.upper()} ({say(st.get('cause'), 'storage')}): {st.get('problem') or '-'}"


def _running(request: web.Request) -> str:
    feed = request.app[keys.FEED]
    alive = feed.liveness()
    if alive.running:
        return "Running"
    last = "" if alive.heartbeat is None else f" (last heartbeat {local_time(alive.heartbeat)})"
    refused = feed.refused  # a refusal kept beside the journal (P115, P122): why it does not run, and what to do
    why = "" if refused is None else (f": {refused['cause_said']} (refused {local_time(refused['at'], date=True)})"
                                      f". {refused['action_said']}")
    return f"NOT RUNNING — do not deal{last}{why}"


async def glance(request: web.Request) -> web.Response:
    s = request.app[keys.FEED].current() or {}
    r = s.get("round") or {}
    v: Verdict | None = request.get(keys.VERDICT)
    if v is None:  # (the guard verifies before every page it serves)
        v = await in_thread(request.app[keys.CHECK].check)
    rows = [  # every code in words (web/words.py), every amount as money
        ("Table controller", _running(request)),  # a stopped daemon's last status is not the table now
        ("Game", say(s["game"]) if s.get("game") else "-"),  # no status: every row says "-", as the others
        ("State", say(s["state"]) if s.get("state") else "no status from the daemon"),
        ("Round", f"{r.get('round_id', '-')} {say(r.get('phase'))}"),
        ("Dealer told", s.get("message") or "-"),
        ("Devices", ", ".join(f"{say(k, 'device')} {say(v)}" for k, v in (s.get("devices") or {}).items()) or "-"),
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
        f'<h2>Meters</h2><table>{meters}</table><h2>Journal</h2><p id="verify" class="{"ok" if v.ok else "bad"}" '
        f"{verdict_attrs(v)}>{e(verdict_text(v))}</p>"
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


#: the meters and parameters as regulators name them (N.J.A.C. 13:69E-1.39A; NY 9 NYCRR 5320.8(b); P114), in order
REGULATED_METERS = (("in", "Progressive in"), ("current", "Current"), ("hits", "Hits"), ("wins", "Wins"),
                    ("overflow", "Overflow"), ("reserve", "Reserve"))
PARAMETERS = (("initial", "Base"), ("reset", "Reset"), ("rate", "Rate"), ("hidden_rate", "Hidden rate"),
              ("limit", "Limit"), ("unreasonable", "Unreasonable above"))


def regulated_meters(rep: dict[str, Any], p: ProgressiveConfig) -> str:
    """The six meters and the parameters of each meter, every cell's value in ``data-value`` (P114)."""
    def cell(field: str, v: object) -> str:
        if v is None:
            return f'<td data-field="{field}" data-value="">on the link</td>'
        shown = str(v) if field == "hits" or "rate" in field else money(v)
        return f'<td class=num data-field="{field}" data-value="{e(str(v))}">{e(shown)}</td>'

    rows = ""
    for m, r in rep["meters"].items():
        c = p.meters.get(m)
        params = "".join(cell(k, getattr(c, k)) if c is not None and getattr(c, k) is not None
                         else f'<td data-field="{k}" data-value="">none</td>' for k, _ in PARAMETERS)
        rows += (f'<tr data-meter="{e(m)}"><td>{e(say(m))}</td>'
                 + "".join(cell(k, r.get(k)) for k, _ in REGULATED_METERS) + params + "</tr>")
    head = "".join(f"<th>{w}</th>" for _, w in (*REGULATED_METERS, *PARAMETERS))
    return f"<h2>Meters and parameters</h2><table id=regulated><tr><th>Meter</th>{head}</tr>{rows}</table>"


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
    regulated = regulated_meters(rep, request.app[keys.PROGRESSIVE])
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
        + regulated
        + over_time
        + "<h2>The last 25 hits</h2><table id=hits><tr><th>When</th><th>Meter</th>"
        "<th>Amount</th><th>Seat</th><th>Line</th>"
        f"<th>Round</th><th>Validated by</th></tr>{hits or '<tr><td colspan=7>no hits</td></tr>'}</table>"
    )
    return page(request, "Progressive", body)


# -- irregularities, voids, device faults ---------------------------------------------------------------------


def _trouble(path: Path) -> tuple[list[Event], set[str]]:
    """The last 200 rows of trouble, and the rounds closed (whose cards the rows may show)."""
    found: list[Event] = []
    closed: set[str] = set()
    with open_for_reading(path) as j:
        for x in j.iter_events():
            if x.kind in CLOSED and x.round_id:
                closed.add(x.round_id)
            if any(w in x.kind for w in TROUBLE):
                found.append(x)
    return found[-200:], closed


def detail_list(data: dict[str, Any], cards_shown: bool) -> str:
    return "<dl>" + "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in details(data, cards_shown=cards_shown)) \
        + "</dl>"


async def irregularities(request: web.Request) -> web.Response:
    found, closed = await in_thread(_trouble, request.app[keys.JOURNAL_PATH])
    rows = "".join(  # every kind and code in words, the reasons whole (issue 26), the times local with the zone
        f'<tr data-seq="{x.seq}" data-kind="{e(x.kind)}"><td>{e(local_time(x.at, date=True))}</td>'
        f"<td>{e(x.round_id or 'table')}</td><td>{e(kind(x.kind))}</td><td>{e(x.who or '')}</td>"
        f"<td>{detail_list(x.data, x.round_id is None or x.round_id in closed)}</td></tr>"
        for x in reversed(found)
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
        f'<tr data-kind="{e(x.kind)}"><td>{e(local_time(x.at, date=True))}</td><td>{e(x.who or "")}</td>'
        f"<td>{e(kind(x.kind))}</td><td>{detail_list(x.data, False)}</td></tr>"
        for x in reversed(request.app[keys.AUDIT].events())
    )
    return page(
        request, "Who looked at what",
        f"<table><tr><th>When</th><th>Who</th><th>What</th><th>Details</th></tr>{rows}</table>"
    )


def routes(app: web.Application) -> None:
    app.router.add_get("/login", login_page)
    app.router.add_post("/login", login_post)
    app.router.add_post("/logout", logout)
    app.router.add_get("/", glance)
    recall.routes(app, page)  # /rounds and /rounds/{round_id} (web/recall.py)
    app.router.add_get("/progressive", progressive)
    app.router.add_get("/irregularities", irregularities)
    protection.routes(app, page)  # /protection (web/protection.py)
    app.router.add_get("/audit", audit_page)
    app.router.add_get("/technician", technician_page)
    app.router.add_get("/liveness", liveness_events)
    app.router.add_get("/liveness.json", liveness_now)


async def technician_page(request: web.Request) -> web.Response:
    return await technician.technician(request, page, in_thread)


async def liveness_events(request: web.Request) -> web.StreamResponse:
    return await request.app[keys.FEED].liveness_stream(request)


async def liveness_now(request: web.Request) -> web.Response:
    return liveness_json(request.app[keys.FEED])
