"""The floor's game-protection page (``/protection``, issue 28): every finding, and each wager's hold against its band.

Drawn from the journal alone (``controller.protection.report``: the findings of the shuffle monitor and of the
three witnesses, streaks and hold; each wager's house result against the expected one and its band, for the
table, the last gaming day and its shifts).  Nothing on it names a card: the findings' evidence is numbers,
places and positions, the hold sums of settled rounds.  Every value a machine reads is a data-* attribute.
"""

from __future__ import annotations

import asyncio
import html
from collections.abc import Callable
from typing import Any

from aiohttp import web

from controller.journal.segments import open_for_reading
from controller.journal.store import Journal
from controller.protection import requests
from controller.protection.hold import DEFAULT_CALENDAR, Calendar
from controller.protection.report import report
from web import guard, keys
from web.words import local_time, money, say

e = html.escape
Page = Callable[[web.Request, str, str], web.Response]


def _report(path: Any, calendar: Calendar = DEFAULT_CALENDAR) -> dict[str, Any]:
    with Journal.read_only(path) as j:
        owner = j.owner()
    game = owner[1] if owner else ""
    with open_for_reading(path) as j:
        if not game:
            return {"alarms": [], "hold": {"table": [], "days": {}, "shifts": {}, "z": 0}}
        return report(j.iter_events(), game, calendar=calendar)


def _p(p: float | None) -> str:
    return "" if p is None else f"{p:.3g}"


def _amount(text: str | None) -> str:
    return money(text) if text is not None else ""


def _wagered(row: dict[str, Any]) -> str:
    """What a row's band is per: the base game's figures are per Ante (its house result takes in the Blind and the
    Play too), so its amount says so; a side wager's is its stake."""
    amount = _amount(row["wagered"])
    return f"{amount} in Antes" if row["wager"] == "base" else amount


def _attention(row: dict[str, Any]) -> str:
    """A wager outside its band needs the floor's attention: the row's class and ``data-attention`` say so (ISA-101:
    colour only for what needs attention; a row within its band, or with no figures, stays grey)."""
    return ' class="attention" data-attention="true"' if row["state"] == "outside" else ' data-attention="false"'


def hold_table(rows: list[dict[str, Any]], what: str) -> str:
    body = "".join(
        f'<tr data-wager="{e(r["wager"])}" data-state="{e(r["state"])}" data-actual="{e(r["actual"])}" '
        f'data-expected="{e(r["expected"] or "")}" data-band-low="{e(r["band"][0] if r["band"] else "")}" '
        f'data-band-high="{e(r["band"][1] if r["band"] else "")}" data-rounds="{r["rounds"]}" '
        f'data-per="{"ante" if r["wager"] == "base" else "stake"}"{_attention(r)}>'
        f'<td>{e(say(r["wager"]))}</td><td>{r["rounds"]}</td><td>{e(_wagered(r))}</td>'
        f'<td>{e(_amount(r["actual"]))}</td><td>{e(_amount(r["expected"]))}</td>'
        f'<td>{e(_amount(r["band"][0]) + " to " + _amount(r["band"][1]) if r["band"] else "")}</td>'
        f'<td>{e(say(r["state"]))}</td></tr>' for r in rows)
    return (f'<table class="hold" data-period="{e(what)}"><tr><th>Wager</th><th>Rounds</th><th>Wagered</th>'
            "<th>House result</th><th>Expected</th><th>Band</th><th>State</th></tr>"
            f"{body or '<tr><td colspan=7>no round settled</td></tr>'}</table>")


async def protection(request: web.Request, page: Page) -> web.Response:
    protection_cfg = request.app.get(keys.PROTECTION)
    calendar = Calendar.of(protection_cfg) if protection_cfg is not None else DEFAULT_CALENDAR
    r = await asyncio.to_thread(_report, request.app[keys.JOURNAL_PATH], calendar)
    findings = "".join(
        f'<tr data-finding="{e(str(a["kind"]))}" data-round="{e(a["round_id"] or "")}" '
        f'data-p-value="{"" if a["p_value"] is None else a["p_value"]}" '
        f'data-acknowledged-by="{e(a["acknowledged_by"] or "")}">'
        f'<td>{e(local_time(a["at"], date=True))}</td><td>{e(say(a["kind"]))}</td><td>{e(a["round_id"] or "")}</td>'
        f'<td>{e(str(a["evidence"].get("words", "")) if isinstance(a["evidence"], dict) else "")}</td>'
        f'<td>{_p(a["p_value"])}</td><td>{e(a["acknowledged_by"] or "")}</td></tr>'
        for a in reversed(r["alarms"]))
    hold = r["hold"]
    days = list(hold["days"])
    last = days[-1] if days else None
    shifts = [s for s in hold["shifts"] if last and s.startswith(f"{last}/")]
    body = (
        f'<h2>Findings</h2><table id="findings"><tr><th>When</th><th>What</th><th>Round</th><th>Evidence</th>'
        f"<th>Probability</th><th>Acknowledged by</th></tr>{findings or '<tr><td colspan=6>none</td></tr>'}</table>"
        f'<h2>Hold against theoretical</h2><p id="band" data-z="{hold["z"]}" '
        f'data-gaming-day-starts="{e(str(hold.get("gaming_day_starts", "")))}" '
        f'data-shift-hours="{hold.get("shift_hours", "")}">Each band is the expected house '
        f'result plus or minus {hold["z"]} standard deviations. '
        + (f'A gaming day begins at {e(str(hold["gaming_day_starts"]))} UTC; its shifts are '
           f'{hold["shift_hours"]} hours each.' if hold.get("shift_hours") else "") + '</p>'
        f"<h3>The table</h3>{hold_table(hold['table'], 'table')}"
        + (f'<h3>Gaming day {e(last)}</h3>{hold_table(hold["days"][last], "day")}' if last else "")
        + "".join(f'<h3>Shift {e(s.rpartition("/")[2])}</h3>{hold_table(hold["shifts"][s], "shift")}' for s in shifts)
    )
    if request.query.get("requested") == "shuffler":
        body = ('<p id="requested" data-request="out_of_order" data-device="shuffler">Asked: the table takes the '
                "shuffler out of service between rounds.</p>") + body
    return page(request, "Game protection", body + shuffler_form(request))


def shuffler_form(request: web.Request) -> str:
    """A supervisor's button taking the shuffler out of service (UTH ch.13 §J, P43: the table then deals without
    it), while the daemon's status says the table has one in service; the request waits for the round to end."""
    login = request.get(keys.LOGIN)
    st = request.app[keys.FEED].current() or {}
    if login is None or not guard.may(login.role, "/protection/shuffler"):
        return ""
    if "shuffler" not in (st.get("devices") or {}) or "shuffler" in (st.get("out_of_order") or []):
        return ""
    return ('<h2>The shuffler</h2><form method="post" action="/protection/shuffler" id="shuffler-out">'
            f'{guard.csrf_field(request)}<p>A supervisor can take the shuffler out of service: the table deals '
            'without it from the next round, as for a device out of order; it comes back into service with the '
            'floor supervisor\'s key at the table.</p><button>Take the shuffler out of service</button></form>')


async def shuffler_out(request: web.Request) -> web.Response:
    """``POST /protection/shuffler``: the request left for the daemon, with the supervisor's name (issue 28)."""
    login = request[keys.LOGIN]
    await asyncio.to_thread(requests.put, request.app[keys.JOURNAL_PATH], "out_of_order", "shuffler", login.user)
    raise web.HTTPSeeOther("/protection?requested=shuffler")


def routes(app: web.Application, page: Page) -> None:
    """``/protection`` and ``/protection/shuffler``, drawn with the floor's ``page`` (web/floor.py)."""

    async def handler(request: web.Request) -> web.Response:
        return await protection(request, page)

    app.router.add_get("/protection", handler)
    app.router.add_post("/protection/shuffler", shuffler_out)
