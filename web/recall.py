"""Recall of any hand: the search of the whole journal, and a round's page (the floor's pages, web/floor.py).

``/rounds`` searches every closed round across the journal's segments (P61) through the index the web
service keeps beside the journal (web/search.py, P109): by round id or its beginning, the time it began
(local dates and times, the zone said), seat, wager, an amount at least or at most (of the seat's wager or
of its net), an outcome (a progressive hit, a void, an irregularity, the payout limit); 25 a page, the
latest first, the total said.  Each round found is read back from the journal before it is listed.

``/rounds/{round_id}`` is one closed round from its journal: the cards in the order dealt and the dealing
procedure, the journal's settlement in the rules' order of payment (P65) beside a fresh re-settlement by
the rules engine (differences marked), the chips as the dealer handled them (``controller.round.chips``),
every press of the dealer's panel and every device's event with its local time and zone (surveillance
finds the video by it), and whether the table's clock was synchronised before the round (the last
``clock_checked``, P109).  The open round is never served: its cards are the daemon's secret until the
rules reveal them.  Every page is in the audit journal with who looked (web/audit.py).
"""

from __future__ import annotations

import asyncio
import html
import re
import time
import urllib.parse
from collections.abc import Callable, Iterable
from datetime import datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, TypeVar

from aiohttp import web

from controller import events as ev
from controller.journal.segments import open_for_reading
from controller.journal.store import Event, Journal, JournalError
from controller.service import clock
from web import audit, keys
from web.search import OUTCOMES, PAGE, Found, Index, Query, cents, confirm
from web.words import local_time, money, say

e = html.escape
T = TypeVar("T")
Page = Callable[[web.Request, str, str], web.Response]
OUTCOME_WORDS = {"hit": "Progressive hit", "void": "Void", "irregularity": "Irregularity", "limit": "Payout limit"}
#: each journal kind of a round's page in words (the kinds a person reads there)
KIND_WORDS = {
    ev.RoundOpened.kind: "Round opened", ev.WagerPlaced.kind: "Wager", ev.NoMoreBets.kind: "No more bets",
    ev.CountConfirmed.kind: "Chip count confirmed", ev.CardDealt.kind: "Card", ev.CardDiscarded.kind: "Card discarded",
    ev.DecisionMade.kind: "Decision", ev.Revealed.kind: "Turned face up", ev.SeatAbandoned.kind: "Seat out",
    ev.SeatSkipped.kind: "Seat skipped", ev.Settled.kind: "Settled", ev.Voided.kind: "Void", ev.Halted.kind: "Halted",
    ev.Resumed.kind: "Resumed", ev.RoundClosed.kind: "Round closed", ev.RoundVoided.kind: "Round closed (void)",
    ev.MeterSet.kind: "Meters set", ev.MeterAdd.kind: "Meters added to", ev.MeterPaid.kind: "Meter paid",
    ev.DeviceOutOfOrder.kind: "Device out of order", ev.DeviceInService.kind: "Device back in service",
    ev.DeviceInputRefused.kind: "Device's input refused", ev.DeviceFault.kind: "Device fault",
    ev.DeviceFaultEnded.kind: "Device fault ended", ev.ProgressiveHit.kind: "Progressive hit",
    ev.ProgressiveLockoutLost.kind: "Lock-out lost", ev.LateProgressiveWager.kind: "Late progressive wager",
    ev.SupervisorRefused.kind: "Supervisor's key refused", ev.DeckRemoved.kind: "Deck removed",
    ev.AlarmRaised.kind: "Alarm raised", ev.AlarmAcknowledged.kind: "Alarm acknowledged",
    ev.AlarmCleared.kind: "Alarm cleared", ev.ClockChecked.kind: "Clock checked", "checkpoint": "Checkpoint",
    ev.PressRefused.kind: "Press refused",
}


def kind_words(kind: str) -> str:
    """A kind in words; one this page has no words for, spelt out (never shown as a code)."""
    return KIND_WORDS.get(kind) or plain(say(kind))


def plain(text: str) -> str:
    return text.replace("_", " ").capitalize() if re.fullmatch(r"[a-z0-9_]+", text) else text


def cards(texts: Iterable[str]) -> str:
    return '<span class="cards">' + "".join(f'<span class="card" data-card="{e(c)}"></span>' for c in texts) + "</span>"


async def in_thread(fn: Callable[..., T], *args: Any) -> T:
    return await asyncio.get_running_loop().run_in_executor(None, fn, *args)


def zone() -> str:
    """The zone the pages' times are in, as they say it ("EST, UTC-05:00")."""
    now = datetime.now().astimezone()
    off = now.strftime("%z")
    return f"{now.tzname()}, UTC{off[:3]}:{off[3:]}"


# -- the search ------------------------------------------------------------------------------------------


class Problem(ValueError):
    """A search field that cannot be read: named on the page."""


def _when(text: str, field: str) -> float | None:
    if not text:
        return None
    try:  # a local date and time (the form's datetime-local), or a date
        return datetime.fromisoformat(text).astimezone().timestamp()
    except ValueError:
        raise Problem(f"{field}: a date and time, as 2026-11-26T14:03") from None


def _amount(text: str, field: str) -> int | None:
    if not text:
        return None
    try:
        return cents(Decimal(text.replace("$", "").replace(",", "")))
    except InvalidOperation:
        raise Problem(f"{field}: an amount in dollars, as 25.00") from None


def query_of(form: Any) -> Query:
    """The search in the page's query string."""
    def get(k: str) -> str:
        return str(form.get(k, "")).strip()

    seat, page = get("seat"), get("page") or "1"
    if seat and not (seat.isdigit() and 1 <= int(seat) <= 7):
        raise Problem("seat: a seat's number")
    if not page.isdigit():
        raise Problem("page: a number")
    until = _when(get("to"), "to")
    if until is not None and len(get("to")) <= 10:
        until += 86_400 - 0.001  # a date alone: to its end
    return Query(round=get("round"), since=_when(get("from"), "from"), until=until,
                 seat=int(seat) if seat else None, wager=get("wager"), on="net" if get("on") == "net" else "wager",
                 at_least=_amount(get("at_least"), "at least"), at_most=_amount(get("at_most"), "at most"),
                 outcome=get("outcome") if get("outcome") in OUTCOMES else "", page=max(int(page), 1))


def _search(path: Path, q: Query) -> tuple[int, list[Found], list[str], list[str]]:
    """Bring the index up to date, search it, read each round found back from the journal (P109)."""
    index = Index(path)
    with open_for_reading(path) as j:
        index.update(j)
        total, found = index.search(q)
        wrong = confirm(j, found)
        if wrong:  # the index does not hold what the journal does: never trusted over it; built again
            index.discard()
            index.update(j)
            total, found = index.search(q)
            wrong = confirm(j, found)
    return total, [f for f in found if f.rid not in wrong], wrong, index.wagers()


def _form(form: Any, wagers: list[str]) -> str:
    def v(k: str) -> str:
        return e(str(form.get(k, "")))

    def options(name: str, choices: list[tuple[str, str]]) -> str:
        return "".join(f'<option value="{e(c)}"{" selected" if str(form.get(name, "")) == c else ""}>{e(w)}</option>'
                       for c, w in choices)

    return (
        '<form class="search" method="get" action="/rounds" role="search">'
        f'<label>Round <input name="round" value="{v("round")}" placeholder="its id or its beginning"></label>'
        f'<label>From <input type="datetime-local" name="from" value="{v("from")}"></label>'
        f'<label>To <input type="datetime-local" name="to" value="{v("to")}"></label>'
        f'<span class="zone" data-zone="{e(zone())}">local time: {e(zone())}</span>'
        f'<label>Seat <input name="seat" inputmode="numeric" size="2" value="{v("seat")}"></label>'
        f'<label>Wager <select name="wager">{options("wager", [("", "any")] + [(w, say(w)) for w in wagers])}'
        "</select></label>"
        f'<label>Amount of <select name="on">{options("on", [("wager", "the wager"), ("net", "the seat net")])}'
        "</select></label>"
        f'<label>at least $ <input name="at_least" inputmode="decimal" size="8" value="{v("at_least")}"></label>'
        f'<label>at most $ <input name="at_most" inputmode="decimal" size="8" value="{v("at_most")}"></label>'
        f'<label>Outcome <select name="outcome">{options("outcome", [("", "any"), *OUTCOME_WORDS.items()])}'
        "</select></label>"
        '<button type="submit">Search</button></form>'
    )


def _link(form: Any, page: int) -> str:
    keep = {k: str(v) for k, v in form.items() if k != "page" and str(v)}
    return "/rounds?" + urllib.parse.urlencode({**keep, "page": page})


async def rounds(request: web.Request, page: Page) -> web.Response:
    login, form = request[keys.LOGIN], request.query
    try:
        q = query_of(form)
    except Problem as p:
        wagers = await in_thread(lambda: Index(request.app[keys.JOURNAL_PATH]).wagers())
        return page(request, "Hand recall", _form(form, wagers) + f'<p class="bad" id="problem">{e(str(p))}</p>')
    started = time.monotonic()
    try:
        total, found, wrong, wagers = await in_thread(_search, request.app[keys.JOURNAL_PATH], q)
    except (JournalError, OSError) as exc:  # a journal that cannot be read is named, not a 500
        return page(request, "Hand recall", _form(form, []) + f'<p class="bad" id="problem">The journal cannot be '
                    f"read: {e(str(exc))}</p>")
    took = time.monotonic() - started
    request.app[keys.AUDIT].record(audit.HandHistoryViewed(page="rounds", rounds=len(found)), login.user)
    rows = "".join(
        f'<tr data-round="{e(f.rid)}" data-began="{f.began:.3f}" data-outcomes="{e(" ".join(f.outcomes))}">'
        f'<td><a href="/rounds/{e(urllib.parse.quote(f.rid))}">{e(f.rid)}</a></td>'
        f"<td>{e(local_time(f.began, date=True))}</td><td>{e(say(f.game))}</td>"
        f"<td>{e(', '.join(f'seat {s} {money(Decimal(c) / 100)}' for s, c in f.nets.items()))}</td>"
        f"<td>{e(', '.join(OUTCOME_WORDS[o] for o in f.outcomes))}</td><td>{e(kind_words(f.closed_by))}</td></tr>"
        for f in found
    )
    pages = max(1, -(-total // PAGE))
    nav = (
        f'<p class="pages" data-total="{total}" data-page="{q.page}" data-pages="{pages}">'
        f"{total:,} rounds found, page {q.page} of {pages} ({took * 1000:.0f} ms)"
        + (f' <a rel="prev" href="{e(_link(form, q.page - 1))}">Previous</a>' if q.page > 1 else "")
        + (f' <a rel="next" href="{e(_link(form, q.page + 1))}">Next</a>' if q.page < pages else "")
        + "</p>"
    )
    unconfirmed = (f'<p class="bad" id="unconfirmed">The journal does not confirm {len(wrong)} rounds the index '
                   "found: they are not listed.</p>") if wrong else ""
    table = ("<table id=found><tr><th>Round</th><th>Began</th><th>Game</th><th>Seat nets</th><th>Outcome</th>"
             f"<th>Closed</th></tr>{rows or '<tr><td colspan=6>no round found</td></tr>'}</table>")
    return page(request, "Hand recall", _form(form, wagers) + nav + unconfirmed + table)


# -- one round -------------------------------------------------------------------------------------------


def resettle(events: list[Event]) -> tuple[dict[str, Any] | None, str | None]:
    """A fresh settlement of a journaled round by the rules engine: the round rebuilt from its facts,
    settled through the settle contract (the same path as ``tablectl recall --json | tablectl settle``)."""
    from controller.round.machine import RoundController
    from controller.table import setup_from_journal
    from games.contract import settle, settlement_json

    try:
        r = asyncio.run(
            RoundController.restore(
                events[0].round_id or "", setup_from_journal(events[0].data), [(x.kind, x.data) for x in events]
            )
        )
        return settlement_json(settle(r.settle_input())), None
    except Exception as exc:  # a round the engine cannot settle is shown as such, never hidden
        return None, f"{type(exc).__name__}: {exc}"


def dealer_chips(j: Journal, round_id: str, events: list[Event]) -> dict[str, Any] | None:
    """What the dealer paid, took or returned per seat and wager: the dealer's screen's own computation
    (``controller.round.chips``) on the round rebuilt from its journal, progressive wins as validated (P80)."""
    from controller.progressive.hits import validated_amounts
    from controller.round import chips
    from controller.round.machine import RoundController
    from controller.table import setup_from_journal

    try:
        r = asyncio.run(RoundController.restore(round_id, setup_from_journal(events[0].data),
                                                [(x.kind, x.data) for x in events]))
        found = chips.round_chips(r, validated_amounts(j, round_id))
    except Exception:  # the re-settlement above names what is wrong with such a round
        return None
    return chips.public(found) if found is not None else None


def compare(journaled: dict[str, Any], fresh: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """(what, journal, fresh, differs) per seat net and per meter."""
    rows = []
    nets = {str(s["seat"]): str(s["net"]) for s in fresh["seats"]}
    for seat in sorted(set(journaled.get("nets", {})) | set(nets), key=int, reverse=True):
        a, b = journaled.get("nets", {}).get(seat), nets.get(seat)
        rows.append((f"seat {seat} net", a or "-", b or "-", a is None or b is None or Decimal(a) != Decimal(b)))
    meters = {k: str(v) for k, v in fresh.get("meters", {}).items()}
    for m in sorted(set(journaled.get("meters", {})) | set(meters)):
        a, b = journaled.get("meters", {}).get(m), meters.get(m)
        rows.append((f"meter {m}", a or "-", b or "-", a is None or b is None or Decimal(a) != Decimal(b)))
    return rows


def _recall(path: Path, round_id: str) -> tuple[list[Event] | None, Any]:
    with open_for_reading(path) as j:
        events = j.events(round_id)
        if not events or not any(x.kind in (ev.RoundClosed.kind, ev.RoundVoided.kind) for x in events):
            return None, None  # unknown, or the open round: its cards are not for any page
        paid = dealer_chips(j, round_id, events)
        # the table's events while the round was open (devices, alarms, the progressive system's)
        table = [x for x in j.events(None, after=events[0].seq) if x.seq <= events[-1].seq]
        table += [x for x in j.events_of(ev.ProgressiveHit.kind, after=events[-1].seq)
                  if x.data.get("round") == round_id]  # validated after the round closed (UTH ch.11 §J(2))
        checked = [x for x in j.events_of(ev.ClockChecked.kind) if x.seq < events[0].seq][-1:]
    settled = next((x.data for x in events if x.kind == ev.Settled.kind), None)
    fresh, error = resettle(events) if settled is not None else (None, None)
    return events, (settled, fresh, error, paid, table, checked[0] if checked else None)


def press_of(x: Event) -> str | None:
    """The press of the dealer's panel (or the supervisor's key) that journaled ``x``, in words; None for a fact
    a device or the daemon reported.  The panel's presses are journaled as the facts they make, and a press
    refused as the refusal (``press_refused``, P118), with why."""
    d = x.data
    if x.kind == ev.PressRefused.kind:
        button = f"bet_{d.get('multiple')}x" if d.get("button") == "bet" and d.get("multiple") else d.get("button")
        return f"{say(button)}: refused ({say(d.get('code'))})"
    if x.kind == ev.NoMoreBets.kind:
        return say("no_more_bets")
    if x.kind == ev.CountConfirmed.kind:
        return f"{say('confirm')} (the chip count)"
    if x.kind == ev.DecisionMade.kind:
        button = "fold" if d.get("fold") else "check" if d.get("check") else f"bet_{d.get('multiple')}x"
        return f"Seat {d.get('seat')}: {say(button)}"
    if x.kind == ev.RoundClosed.kind:
        return f"{say('confirm')} (paid and collected)"
    if x.kind == ev.RoundVoided.kind:
        return f"{say('confirm')} (wagers returned)"
    if x.kind == ev.Resumed.kind:
        return f"{say('resume')}, the key of {d.get('by')}"
    if x.kind == ev.Voided.kind and x.who:
        return f"{say('void_round')}, the key of {x.who}"
    if x.kind in (ev.SeatAbandoned.kind, ev.SeatSkipped.kind) and d.get("by"):
        return f"Seat {d.get('seat')} out, by {d.get('by')}"
    if x.kind == ev.ProgressiveHit.kind and x.who:
        return f"Validated, the key of {x.who}"
    if x.kind == ev.AlarmAcknowledged.kind:
        return f"Alarm acknowledged, the key of {d.get('by')}"
    return None


def details(x: Event) -> str:
    """An event's data in words, every code said (never a card: cards are shown as cards)."""
    d = x.data
    if x.kind == ev.CardDealt.kind:
        return f"{e(say(d['place']))} {cards([d['card']])}"
    if x.kind == ev.WagerPlaced.kind:
        return e(f"Seat {d['seat']} {say(d['wager'])} {money(d['amount'])}")
    if x.kind == ev.Revealed.kind:
        return f"{cards(d.get('cards') or ())} {e(str(d.get('clause') or ''))}"
    press = press_of(x)
    if press is None:
        parts = []
        for k, v in d.items():
            if k in ("order", "progressive", "paytables", "meters", "nets"):
                continue
            said = str(v) if isinstance(v, int | Decimal) else plain(say(v, "device"))
            parts.append(f"{k.replace('_', ' ')} {said}")
        return e(", ".join(parts))[:300]
    return e(press)


def _when_row(x: Event) -> str:
    """The event's time in the table's local time and zone, to the millisecond (surveillance's video index)."""
    t = datetime.fromisoformat(x.at).astimezone()
    when = f'{t.strftime("%Y-%m-%d %H:%M:%S")}.{t.microsecond // 1000:03d} {t.strftime("%Z")}'
    return f'<td data-at="{e(x.at)}">{e(when)}</td>'


def _press_row(x: Event, press: str) -> str:
    """A press's row: when (local time and zone), what, who; a refused one marked, with its button and why."""
    refused = x.kind == ev.PressRefused.kind
    button, code = e(str(x.data.get("button"))), e(str(x.data.get("code")))
    marks = (f' data-refused="yes" data-button="{button}" data-code="{code}" class="bad"' if refused
             else ' data-refused="no"')
    return (f'<tr data-seq="{x.seq}" data-kind="{e(x.kind)}"{marks}>{_when_row(x)}<td>{e(press)}</td>'
            f"<td>{e(x.who or '')}</td></tr>")


def _order(settled: dict[str, Any], fresh: dict[str, Any] | None) -> str:
    """The journal's order of payment (P65), step by step, beside the fresh re-settlement of each wager."""
    now = {(str(s["seat"]), w): v for s in (fresh or {}).get("seats", []) for w, v in s["wagers"].items()}
    rows = []
    for n, step in enumerate(settled.get("order") or (), 1):
        for w in step["wagers"]:
            again = now.get((str(step["seat"]), w["wager"]))
            differs = again is not None and Decimal(str(again["net"])) != Decimal(str(w["net"]))
            rows.append(
                f'<tr data-step="{n}" data-seat="{step["seat"]}" data-wager="{e(w["wager"])}"'
                f'{" class=diff" if differs else ""}><td class=num>{n}</td><td>{step["seat"]}</td>'
                f"<td>{e(say(w['wager']))}</td><td>{e(say(w['result']))} {e(say(w.get('line')))}</td>"
                f"<td class=num>{e(money(w['net']))}</td>"
                f"<td class=num>{e(money(again['net'])) if again else '-'}</td><td>{e(step['clause'])}</td></tr>")
    if not rows:
        return "<p>The journal of this round has no order of payment (a program before P65).</p>"
    return ('<table id="order"><tr><th>Step</th><th>Seat</th><th>Wager</th><th>Result</th><th>Journal</th>'
            "<th>Re-settled now</th><th>Clause</th></tr>" + "".join(rows) + "</table>")


def _clock(checked: Event | None) -> str:
    if checked is None:
        return ('<p id="clock" data-clock="unknown">No clock check journaled before this round (a program before '
                "P109): whether the clock was synchronised is unknown.</p>")
    state = str(checked.data.get("state"))
    err = checked.data.get("max_error")
    bound = f", error at most {Decimal(str(err)):.3f} s" if err is not None and state == clock.SYNCHRONISED else ""
    return (f'<p id="clock" data-clock="{e(state)}" class="{"ok" if state == clock.SYNCHRONISED else "bad"}">'
            f"{e(say(state))} (checked {e(local_time(checked.at, date=True))}{e(bound)}).</p>")


async def recall(request: web.Request, page: Page) -> web.Response:
    login, round_id = request[keys.LOGIN], request.match_info["round_id"]
    events, result = await in_thread(_recall, request.app[keys.JOURNAL_PATH], round_id)
    if events is None:
        raise web.HTTPNotFound(text=f"no closed round {round_id}")
    request.app[keys.AUDIT].record(audit.HandHistoryViewed(page="round", round=round_id), login.user)
    settled, fresh, error, paid, table, checked = result
    dealt = [x for x in events if x.kind in (ev.CardDealt.kind, ev.CardDiscarded.kind)]
    drawn = "".join(
        f'<tr data-n="{n}" data-place="{e(str(x.data.get("place", "")))}"><td class=num>{n}</td>{_when_row(x)}'
        f"<td>{e(say(x.data['place']) if x.kind == ev.CardDealt.kind else kind_words(x.kind))}</td>"
        f"<td>{cards([x.data['card']])}</td></tr>"
        for n, x in enumerate(dealt, 1)
    )
    procedure = request.app.get(PROCEDURE)
    out = [say(d, "device") for d in (Index(request.app[keys.JOURNAL_PATH]).round(round_id) or {}).get(
        "out_of_order", [])] if procedure else []
    how = (f'<p id="procedure" data-procedure="{e(procedure or "")}">Dealing procedure: {e(say(procedure))}'
           + (f"; out of order at the round's start: {e(', '.join(out))}" if out else "") + "</p>") if procedure else ""
    presses = [(x, p) for x in sorted(events + table, key=lambda x: x.seq) if (p := press_of(x)) is not None]
    pressed = "".join(_press_row(x, p) for x, p in presses)
    devices = "".join(
        f'<tr data-seq="{x.seq}" data-kind="{e(x.kind)}">{_when_row(x)}<td>{e(kind_words(x.kind))}</td>'
        f"<td>{details(x)}</td></tr>" for x in sorted(table, key=lambda x: x.seq) if press_of(x) is None)
    lines = "".join(
        f'<tr data-seq="{x.seq}"><td class=num>{x.seq}</td>{_when_row(x)}<td>{e(kind_words(x.kind))}</td>'
        f"<td>{details(x)}</td></tr>" for x in events)
    if settled is None:
        check = "<p>Not settled on the cards (voided): nothing to re-settle.</p>"
    elif fresh is None:
        check = f'<p class="bad" id="resettle-error">The rules engine could not re-settle it: {e(error)}</p>'
    else:
        rows = compare(settled, fresh)
        differs = any(r[3] for r in rows)
        check = (
            f'<p id="resettle" class="{"bad" if differs else "ok"}">'
            f"{'DIFFERENCES FLAGGED' if differs else 'The journal and a fresh re-settlement agree.'}</p>"
            "<table><tr><th></th><th>Journal</th><th>Re-settled now</th></tr>"
            + "".join(
                f'<tr class="{"diff" if d else ""}"><th>{e(w)}</th><td class=num>{e(a)}</td>'
                f"<td class=num>{e(b)}</td></tr>"
                for w, a, b, d in rows
            )
            + "</table><h3>In the order of payment (P65)</h3>" + _order(settled, fresh)
        )
    if paid:  # the amounts the dealer's screen showed, from the same computation (controller.round.chips)
        check += (
            '<h3>Paid, taken, returned by the dealer</h3><table id="chips"><tr><th>Seat</th><th>Wager</th>'
            "<th>Dealer</th><th>Amount</th><th>Collected before</th></tr>"
            + "".join(
                f"<tr><td>{e(seat)}</td><td>{e(w)}</td><td>{e(v['do'])}</td><td class=num>{e(v['amount'])}</td>"
                f"<td class=num>{e(v['collected'] or '')}</td></tr>"
                for seat, c in paid.items() for w, v in c["wagers"].items()
            )
            + "".join(
                f"<tr><td>{e(seat)}</td><th>pay / take</th><td></td><td class=num>{e(c['pay'])} / {e(c['take'])}</td>"
                "<td></td></tr>" for seat, c in paid.items()
            )
            + "</table>"
        )
    body = (
        f'<p class="zone" data-zone="{e(zone())}">Times are the table\'s local time: {e(zone())}.</p>{_clock(checked)}'
        f'<h2>Cards drawn, in the order dealt</h2>{how}<table id="drawn"><tr><th>#</th><th>When</th><th>Where</th>'
        f"<th>Card</th></tr>{drawn}</table>"
        f"<h2>Settlement</h2>{check}"
        f'<h2>Presses of the panel and the key</h2><table id="presses"><tr><th>When</th><th>Press</th><th>Who</th></tr>'
        f"{pressed or '<tr><td colspan=3>none</td></tr>'}</table>"
        f'<h2>Devices and alarms during the round</h2><table id="devices"><tr><th>When</th><th>What</th><th></th></tr>'
        f"{devices or '<tr><td colspan=3>none</td></tr>'}</table>"
        f'<h2>Journal</h2><table id="journal"><tr><th>Seq</th><th>When</th><th>What</th><th></th></tr>{lines}</table>'
    )
    return page(request, f"Round {round_id}", body)


PROCEDURE = web.AppKey("dealing_procedure", str)  # the table's configured dealing procedure (web/app.py)


def routes(app: web.Application, page: Page) -> None:
    """``/rounds`` and ``/rounds/{round_id}``, drawn with the floor's ``page`` (web/floor.py)."""

    async def search_page(request: web.Request) -> web.Response:
        return await rounds(request, page)

    async def round_page(request: web.Request) -> web.Response:
        return await recall(request, page)

    app.router.add_get("/rounds", search_page)
    app.router.add_get("/rounds/{round_id}", round_page)
