"""Game protection in the daemon: three witnesses' findings, hold and streaks journaled and raised (issue 28).

The reconciliation itself runs in the deal and before the settlement (``Deal.reconcile``: the witnesses'
ledger, ``controller.protection.witnesses``); a round it voids comes here (``Settling.on_irregular``): the
finding is journaled (``ProtectionFinding``, a table event naming its round) and latched as an alarm until a
supervisor acknowledges it (``Alarms.latch``, key ``protection:<seq>``).  Each settled round (``on_settled``)
feeds the streak monitor and the gaming day's hold (``controller.protection.hold``): a streak, or a wager's hold
outside its band (once a day and wager), is a finding too.  Their state is not kept apart: it is rebuilt from
the journal's settlements and findings at start.  A supervisor on the floor's pages takes the shuffler out of
service through a request the daemon takes between rounds (``floor_requests``).  docs/protection.md.
"""

from __future__ import annotations

import sqlite3
from decimal import Decimal
from functools import cache
from typing import Any

from controller import events as ev
from controller.protection import hold, requests, witnesses
from controller.round.machine import Phase
from controller.service.alarms import Alarms, Condition
from controller.service.refused import Refused
from controller.service.remedies import Remedies
from controller.service.session import Session
from controller.service.settlement import Settling

P_WHY = "P112"  # the reading of issue 28's hold and streak alarms (docs/rulings.md)


class Protection:
    def __init__(self, s: Session, settling: Settling, alarms: Alarms, remedies: Remedies) -> None:
        self.s = s
        self.settling = settling
        self.alarms = alarms
        self.remedies = remedies  # a device taken out of service from the floor's pages
        self.game = s.game.name
        self.calendar = hold.Calendar.of(s.base_cfg.protection)  # the gaming day's start
        self.figures_of = cache(hold.figures)
        self.streaks = hold.Streaks(self.game, self.figures_of)
        self.day: str | None = None
        self.today: dict[str, hold.Tally] = {}
        self.held_outside: set[tuple[str, str]] = set()  # (gaming day, wager) already a finding
        self._rebuild()
        settling.on_irregular(self.irregular)
        settling.on_settled(self.settled)

    def _rebuild(self) -> None:
        """The streaks' windows and the gaming day's hold from the journal (a restart loses nothing)."""
        j = self.s.journal
        for r in hold.settled_results(j.iter_events(), self.game):
            # the same results in the same order: the windows restart where the streaks journaled were found
            self.streaks.add([r])
            self._tally(r)
        for e in j.events_of(ev.ProtectionFinding.kind):
            t = e.typed
            if isinstance(t, ev.ProtectionFinding) and t.finding == hold.HOLD and t.wager is not None:
                self.held_outside.add((str(t.evidence.get("day")), t.wager))

    def _tally(self, r: hold.Result) -> None:
        day, _ = hold.periods(r.at, self.calendar)
        if day != self.day:
            self.day, self.today = day, {}
        self.today.setdefault(r.wager, hold.Tally()).add(r)

    def finding(self, event: ev.ProtectionFinding, alarm: str, clauses: tuple[str, ...]) -> int:
        """Journal ``event`` and latch its alarm; its journal seq."""
        seq = self.s.journal.record(event)
        self.s.log.warning("protection finding", finding=event.finding, round_id=event.round, seat=event.seat,
                           wager=event.wager, seq=seq)
        self.alarms.latch(f"protection:{seq}", Condition(alarm, "high", clauses, seat=event.seat))
        return seq

    def irregular(self, round_id: str, found: Any) -> None:
        """``found``: the deal's ``Found`` (not imported: this part is not given the deal)."""
        if found.cause != witnesses.FINDING:
            return
        deck = self.s.life.last_shuffled if self.s.cfg.automated_shuffler else None
        self.finding(ev.ProtectionFinding(finding=witnesses.FINDING, evidence=found.evidence or {}, round=round_id,
                                          deck=deck),
                     "protection_card_switched", found.clauses)

    def settled(self, round_id: str) -> None:
        """A round's settlement journaled: its results to the streaks and the day's hold.  A fault of the monitor
        itself is logged and does not stop the round's payment (a journal write that fails is the table's, P97)."""
        try:
            self._settled(round_id)
        except sqlite3.Error:
            raise
        except Exception:
            self.s.log.exception("protection monitor failed", round_id=round_id)

    def _settled(self, round_id: str) -> None:
        results = list(hold.settled_results(self.s.journal.events(round_id), self.game))
        for streak in self.streaks.add(results):
            self.finding(ev.ProtectionFinding(finding=hold.STREAK, evidence={**streak.evidence(),
                                                                             "words": streak.words()},
                                              round=round_id, seat=streak.seat, wager=streak.wager,
                                              p_value=Decimal(f"{streak.p_value:.3g}")),
                         "protection_streak", (P_WHY,))
        for r in results:
            self._tally(r)
        for wager in sorted({r.wager for r in results}):
            if (str(self.day), wager) in self.held_outside:
                continue
            # the base game: shown against its band, its heavy tail tested by no count (P112)
            outside = hold.outside_band(self.today[wager], self.game, wager, self.figures_of)
            if outside is None:
                continue
            row, p = outside
            self.held_outside.add((str(self.day), wager))
            self.finding(ev.ProtectionFinding(finding=hold.HOLD, evidence={"day": self.day, **row}, round=round_id,
                                              wager=wager, p_value=Decimal(f"{p:.3g}")),
                         "protection_hold", (P_WHY,))

    async def floor_requests(self) -> bool:
        """The floor's requests waiting (``controller.protection.requests``): the shuffler taken out of service by a
        supervisor logged in on the floor's pages, between rounds (a round in play: it waits), journaled with who;
        one for a device already out of order or not at this table is done with nothing to do.  True when one was
        taken."""
        s = self.s
        taken = False
        for r in requests.pending(s.cfg.journal):
            r_ = s.round
            if r_ is not None and r_.phase is not Phase.WAGERS:
                return taken  # between rounds only (P43): it waits for the round to end
            configured = getattr(s.base_cfg.devices, r.device, None)
            if configured and r.device not in s.life.out_of_order:
                try:
                    await self.remedies.out_of_order(r.device, f"floor supervisor {r.by}")
                except Refused as e:
                    s.log.warning("floor request refused", action=r.action, device=r.device, why=str(e))
                    return taken
            requests.done(r)
            taken = True
        return taken
