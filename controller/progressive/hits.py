"""The progressive system around a round: winning hands held for validation, history, report.

A winning progressive hand is not paid when the round settles: the dealer
verifies the hand and the seat's winner light, and a floorperson or above
validates the payout (UTH ch.11 §J(2)(a)-(c), JHE ch.11 §K(2)(a)-(c), HCF ch.11
§B(9)(a)-(c); RET has no such clause in RET ch.11 and is read like the others,
RET ch.12 §F).  Every progressive win is held alike: a percentage-of-meter line, a
fixed amount ("$250", "X for 1") or an Envy Bonus.

``hits()`` lists what the settlement pays from the progressive, in settlement
order (R1), each percentage line with the meter as the previous winner left it
(R4).  On validation the daemon journals, per hit, ``meter_paid`` (round event,
metered lines only) then ``progressive_hit`` (table event with the round id and
the validating supervisor).  A hit with no ``progressive_hit`` is still
waiting: a restart finds the same waiting state (``pending()``), and a
``meter_paid`` already journaled for a hit is never journaled twice.

``history()`` and ``report()`` read the journal only (``tablectl progressive``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, cast

from controller import events as ev
from controller.journal.store import METER_ADD, METER_PAID, Journal
from games.game import Game
from games.paytable import MeterPercent
from games.paytables import paytable
from games.round import Settlement

if TYPE_CHECKING:
    from controller.config.progressive import MeterConfig, ProgressiveConfig

# the progressive system's table events that are read back by kind (declared in controller.events)
PROGRESSIVE_HIT = ev.ProgressiveHit.kind
ACCEPTED_RETURNED = ev.ProgressiveAcceptedReturned.kind

@dataclass(frozen=True)
class Hit:
    index: int  # 0, 1, ... in settlement order
    seat: int
    wager: str  # "progressive" or "envy"
    line: str  # the paytable line (royal_flush, ...) or "envy from seats 2, 4"
    amount: Decimal  # what the player is paid
    meter: str | None = None  # the meter it is paid from (percentage lines), else None
    after: Decimal | None = None  # the meter after it (R4)
    # on a link: the settlement's figure when the link paid another amount (P68, P80), else None
    settled: Decimal | None = None
    before: Decimal | None = None  # the meter before it (percentage lines): what the reserve funds (P114)

    def public(self) -> dict[str, Any]:
        out: dict[str, Any] = {"hit": self.index, "seat": self.seat, "wager": self.wager, "line": self.line,
                               "amount": str(self.amount)}
        if self.meter is not None:
            out["meter"] = self.meter
        return out

    def describe(self) -> str:
        source = f"from the {self.meter} meter" if self.meter else "fixed"
        return f"seat {self.seat} {self.wager} {self.line} {self.amount} ({source})"


def hits(game: Game, settlement: Settlement, progressive: Mapping[str, Any] | None,
         paytables: Mapping[str, str]) -> list[Hit]:
    """Every progressive win of ``settlement`` in settlement order (R1, R4)."""
    if not progressive:
        return []
    meters = {k: Decimal(str(v)) for k, v in progressive["meters"].items()}
    reset = {k: Decimal(str(v)) for k, v in progressive["reset"].items()}
    name = game.paytable_of.get("progressive", "progressive")
    table = paytable(game.name, name, paytables.get(name))
    lines = {line.key: line for line in table.lines}
    out: list[Hit] = []
    for seat in settlement.seats:
        w = seat.wagers.get("progressive")
        if w is not None and w.result == "win":
            paid = w.net + w.amount  # R3: the wager was collected at no more bets
            line = lines.get(w.line or "")
            if line is not None and isinstance(line.pays, MeterPercent):
                m = line.pays.meter
                after = max(reset[m], meters[m] - paid)  # R4
                out.append(Hit(len(out), seat.seat, "progressive", w.line or "", paid, m, after, before=meters[m]))
                meters[m] = after
            else:
                out.append(Hit(len(out), seat.seat, "progressive", w.line or "", paid))
        e = seat.wagers.get("envy")
        if e is not None and e.result == "win" and e.net > 0:
            others = ", ".join(str(s) for s in (e.from_seats or ()))
            out.append(Hit(len(out), seat.seat, "envy", f"envy from seats {others}", e.net))
    return out


def taken_by_link(h: Hit, paid: Decimal, after: Decimal) -> Hit:
    """``h`` as the link took it (P68): paid what the link paid, the meter as the link left it; the
    settlement's figure kept beside it when they differ (P80), however often the link is asked again."""
    figure = h.settled if h.settled is not None else h.amount
    return dataclasses.replace(h, amount=paid, after=after, settled=None if paid == figure else figure)


def validated(journal: Journal, round_id: str) -> set[int]:
    """The hits of ``round_id`` already validated (a ``progressive_hit`` journaled)."""
    first = journal.first_seq(round_id)  # a round's hits are validated after it began (the index on kind)
    return {e.data["hit"] for e in journal.events_of(PROGRESSIVE_HIT, after=(first or 1) - 1)
            if e.data.get("round") == round_id}


def validated_amounts(journal: Journal, round_id: str) -> dict[int, dict[str, Decimal]]:
    """What the hits of ``round_id`` already validated paid, by seat and wager (``progressive_hit.amount``: on a
    link the link's payout, P80)."""
    first = journal.first_seq(round_id)
    out: dict[int, dict[str, Decimal]] = {}
    for e in journal.events_of(PROGRESSIVE_HIT, after=(first or 1) - 1):
        if e.data.get("round") == round_id:
            wagers = out.setdefault(int(e.data["seat"]), {})
            wagers[e.data["wager"]] = wagers.get(e.data["wager"], Decimal(0)) + Decimal(str(e.data["amount"]))
    return out


def meter_paid(journal: Journal, round_id: str) -> set[int]:
    """The hits of ``round_id`` whose ``meter_paid`` is journaled."""
    return {e.data["hit"] for e in journal.events(round_id) if e.kind == METER_PAID and "hit" in e.data}


def pending(journal: Journal, round_id: str, all_hits: Iterable[Hit]) -> list[Hit]:
    done = validated(journal, round_id)
    return [h for h in all_hits if h.index not in done]


def record_validation(journal: Journal, round_id: str, todo: list[Hit], who: str) -> None:
    """Journal the validated payouts, hit by hit in settlement order: ``meter_paid``, then ``progressive_hit``."""
    paid = meter_paid(journal, round_id)
    for h in todo:
        if h.meter is not None and h.index not in paid:
            # ``after`` is set on every metered hit (``hits``, R4); were it not, the journal refuses the event
            journal.record(ev.MeterPaid(meter=h.meter, paid=h.amount, after=cast(Decimal, h.after), hit=h.index,
                                        seat=h.seat, settled=h.settled, reserve=reserve_after(journal, h)),
                           round_id, who=who)  # P80: settled
        journal.record(ev.ProgressiveHit(round=round_id, hit=h.index, seat=h.seat, wager=h.wager, line=h.line,
                                         amount=h.amount, meter=h.meter), who=who)


def reserve_drawn(held: Decimal, kept: Decimal) -> Decimal:
    """What a hit draws from the reserve ``held`` when the reset floor ``kept`` the meter above what the hit left
    (R4): that, as far as the reserve holds (N.J.A.C. 13:69E-1.39A(a)5, P114); on a link too (``link.store``)."""
    return min(kept, held) if kept > 0 and held > 0 else Decimal(0)


def reserve_after(journal: Journal, h: Hit) -> Decimal | None:
    """The meter's reserve after ``h`` when the reset floor kept the meter above what the hit left (R4): the
    reserve funds that, as far as it holds (N.J.A.C. 13:69E-1.39A(a)5, P114); None when it does not move."""
    held = journal.meter_accounts()["reserve"].get(h.meter or "", Decimal(0))
    if h.meter is None or h.before is None or h.after is None or held <= 0:
        return None
    kept = h.after - (h.before - h.amount)  # what the reset floor put back on the meter
    return held - reserve_drawn(held, kept) if kept > 0 else None


# ---------------------------------------------------------------------- tablectl progressive


def history(journal: Journal, last: int = 25) -> list[dict[str, Any]]:
    """The last ``last`` validated hits, newest first."""
    rows = journal.events_of(PROGRESSIVE_HIT)
    out = []
    for e in reversed(rows[-last:] if last else rows):
        out.append({**e.data, "at": e.at, "validated_by": e.who})
    return out


def parse_when(text: str, *, end: bool = False) -> datetime:
    """An ISO 8601 date or date-time as an aware UTC datetime (``--since`` / ``--until``).

    A date-time without an offset is UTC; one with an offset is converted to UTC.  A date alone is
    the start of that day (UTC), or with ``end`` the start of the next day, so that
    ``--since 2024-05-01 --until 2024-05-31`` is the whole of May.  Raises ``ValueError``.
    """
    text = text.strip()
    try:
        if len(text) == 10 and "T" not in text:
            day = date.fromisoformat(text)
            start = datetime(day.year, day.month, day.day, tzinfo=UTC)
            return start + timedelta(days=1) if end else start
        when = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{text!r} is not an ISO date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM[:SS][+HH:MM])") \
            from None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def _new_row() -> dict[str, Any]:
    return {"coin_in": Decimal(0), "contributions": Decimal(0), "hits": 0, "paid": Decimal(0),
            "reserve_in": Decimal(0), "overflow_in": Decimal(0)}


def report(journal: Journal, meter_names: Iterable[str], since: datetime | None = None,
           until: datetime | None = None, *, link: str | None = None,
           parameters: Mapping[str, MeterConfig] | None = None, table: str | None = None) -> dict[str, Any]:
    """Per meter: coin-in, contributions, hits, paid, current value; and the fixed-amount hits.

    The meters regulators name (N.J.A.C. 13:69E-1.39A(b); NY 9 NYCRR 5320.8(b); P114) beside them: ``in``
    (every contribution of the period: meter, reserve and overflow), ``current``, ``hits``, ``wins`` (paid),
    ``overflow`` and ``reserve`` (now); ``parameters`` (the configuration's ``[progressive.meters]``) adds
    each meter's base, reset, rate, hidden rate, limit and unreasonable amount; ``last_hits`` the last 25
    hits (time, amount, ``table``: this table's id).

    ``since`` (inclusive) and ``until`` (exclusive), aware datetimes, keep the events journaled in
    that period: progressive wagers and their contributions when they were accepted (no more
    bets), taken back when their round was voided and they were returned (R7a), hits and payouts
    when validated.  ``current`` is the meter now, whatever the period.

    ``link``: the link id of a linked table (``[progressive] link_id``, docs/linked-progressive.md).
    Its journal holds its own coin-in, contributions and hits, not the other tables': the meters now
    are the link's and never a replay of this journal (P81), so ``current`` is None and ``meters_on_link``
    names the link (``tablectl progressive report --link`` and the floor's page read them there).
    """
    names = list(meter_names)
    meters = {m: _new_row() for m in names}
    units: dict[str, Decimal] = {}
    accepted: dict[str, int] = {}  # round -> progressive wagers accepted at no more bets
    wagers = 0  # progressive wagers counted in the period
    coin_in = Decimal(0)
    fixed_hits, fixed_paid = 0, Decimal(0)

    def in_period(at: str) -> bool:
        if since is None and until is None:
            return True
        when = datetime.fromisoformat(at)
        return (since is None or when >= since) and (until is None or when < until)

    for e in journal.iter_events():
        rid = e.round_id or ""  # the round events below always belong to a round
        if e.kind == "round_opened" and e.data.get("progressive"):
            units[rid] = Decimal(str(e.data["progressive"]["unit"]))
        elif e.kind == "no_more_bets":
            n = accepted[rid] = len(e.data.get("progressive_seats", ()))
            if n and in_period(e.at):
                wagers += n
                coin_in += units.get(rid, Decimal(0)) * n
        elif e.kind == "voided" and "progressive" not in (e.data.get("keep") or ()):
            n = accepted.pop(rid, 0)  # the progressive wagers returned (R7a)
            if n and in_period(e.at):
                wagers -= n
                coin_in -= units.get(rid, Decimal(0)) * n
        elif e.kind == METER_ADD and e.round_id is not None:
            if in_period(e.at):
                for m, v in e.data["meters"].items():
                    meters.setdefault(m, _new_row())["contributions"] += Decimal(v)
                for account in ("reserve", "overflow"):
                    for m, v in (e.data.get(account) or {}).items():
                        meters.setdefault(m, _new_row())[f"{account}_in"] += Decimal(v)
        elif e.kind == METER_PAID:
            if in_period(e.at):
                row = meters.setdefault(e.data["meter"], _new_row())
                row["hits"] += 1
                row["paid"] += Decimal(e.data["paid"])
        elif e.kind == PROGRESSIVE_HIT and e.data.get("meter") is None:
            if in_period(e.at):
                fixed_hits += 1
                fixed_paid += Decimal(e.data["amount"])
    current = journal.meter_values() if link is None else {}
    accounts = journal.meter_accounts()
    for m, row in meters.items():
        row["coin_in"] = coin_in  # every progressive wager feeds every meter (its rate of progression)
        row["current"] = current.get(m, Decimal(0)) if link is None else None
        # the regulators' names (N.J.A.C. 13:69E-1.39A(b), NY 9 NYCRR 5320.8(b)); on a link, the link's (P81)
        row["in"] = row["contributions"] + row.pop("reserve_in") + row.pop("overflow_in")
        row["wins"] = row["paid"]
        row["overflow"] = accounts["overflow"].get(m, Decimal(0)) if link is None else None
        row["reserve"] = accounts["reserve"].get(m, Decimal(0)) if link is None else None
        c = parameters.get(m) if parameters is not None else None
        if c is not None:
            row["parameters"] = {"base": c.initial, "reset": c.reset, "rate": c.rate, "hidden_rate": c.hidden_rate,
                                 "limit": c.limit, "unreasonable": c.unreasonable}
    period = {"since": since.isoformat() if since else None, "until": until.isoformat() if until else None}
    fixed = {"hits": fixed_hits, "paid": fixed_paid}
    last = [{"at": h["at"], "amount": Decimal(str(h["amount"])), "table": table, "meter": h.get("meter"),
             "seat": h["seat"], "line": h["line"], "round": h["round"]} for h in history(journal, 25)]
    return {"meters": meters, "fixed": fixed, "progressive_wagers": wagers, "period": period,
            "meters_on_link": link, "last_hits": last}


def linked(progressive: ProgressiveConfig) -> str | None:
    """The link id of a table's ``[progressive]`` settings when its meters are a link's, else None (``report``)."""
    return progressive.link_id if progressive.enabled and progressive.link is not None else None


__all__ = ["Hit", "hits", "taken_by_link", "pending", "validated_amounts", "record_validation", "history", "report",
           "linked", "parse_when"]
