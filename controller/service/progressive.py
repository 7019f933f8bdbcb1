"""The progressive system around the round: wagers enabled or disabled, the meter signs, wins held.

Owns:

* whether progressive wagers are taken now (``off``: why not, journaled as ``progressive_disabled``
  / ``progressive_enabled`` table events, so a restarted daemon keeps them disabled);
* the meter signs (``show_meters``; a sign that did not take the meters disables progressive
  wagers at the next no more bets);
* the progressive wins of the settled round held until a floor supervisor validates them
  (UTH ch.11 §J(2)(a)-(c), JHE ch.11 §K(2), HCF ch.11 §B(9); ``controller.progressive.hits`` journals them);
* a seat's contribution taken back when its wagers are returned (R7a);
* on a linked table (``[progressive] link``, ``controller.progressive.link``): the round's contributions written to the
  link after its no more bets is journaled (``show_meters``), a lost link disabling progressive wagers at
  the next no more bets (``signs_ready``, NJAC 13:69E-1.39B), hits taken in the link's order (R4), the signs
  shown again at every change anywhere on the link.  A no more bets waits on the link ``LINK_WAIT_S`` at
  most, in all (``signs_ready`` and ``show_meters`` share it): a stalled link is a lost one, the round's
  contributions stay in the link's outbox, sent when it answers (P98).

The lock-out itself is ``controller.service.lockout`` (built on this part: it asks whether wagers are
taken, and follows the system's health itself).  This part follows the progressive system's health
(``Devices.on_health_of``): its wagers are disabled while it does not answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING

from controller import events as ev
from controller.progressive import hits as prog
from controller.service.devices import Devices
from controller.service.refused import Refused
from controller.service.session import Session
from controller.service.told import Told, told
from drivers.health import DeviceError, Health
from games.paytable import MeterPercent
from games.paytables import paytable

if TYPE_CHECKING:
    from controller.progressive.link.meters import LinkedMeters
    from controller.table import Split

NOT_ANSWERING = "the progressive system is not answering"
PROGRESSIVE_SYSTEM = "progressive system"  # its title among the devices (``drivers.device``)


class ProgressiveSystem:
    def __init__(self, s: Session, devices: Devices) -> None:
        self.s = s
        self.devices = devices
        self.off: str | None = None  # why progressive wagers are disabled now, or None
        self.off_told: Told = told("progressive_disabled", cause="disabled_before_start")  # as data (``disabled``)
        self.sign_trouble: str | None = None  # the last meter sign update failed
        self.validation: list[prog.Hit] = []  # progressive wins of the settled round awaiting validation
        self.unclaimed: list[prog.Hit] = []  # a linked table's metered wins the link has not taken yet
        # a linked table's progressive wins of the round as the link paid them, by seat and wager (P68, P80)
        self._link_paid: dict[int, dict[str, Decimal]] = {}
        self.link: LinkedMeters | None = None
        # told of each validation (round, the hits, who): the alarms it acknowledges (P105)
        self._on_validated: list[Callable[[str, list[prog.Hit], str], None]] = []
        self._on_unreasonable: list[Callable[[str], None]] = []  # the floor's alarm (P120)
        self._link_until: float | None = None  # when this no more bets stops waiting on the link (P98)
        if prog.linked(s.cfg.progressive) is not None:  # psycopg is loaded on a linked table only
            from controller.progressive.link.meters import LinkedMeters

            self.link = s.meters if isinstance(s.meters, LinkedMeters) else None
        if self.link is not None:
            self.link.on_change = self.link_changed  # a change anywhere on the link: the signs within a second
            self.link.table_state = lambda: s.life.state.value  # told the link (P120)
        self.off = s.journal.progressive_off()  # disabled when the daemon stopped: they stay so (issue 14)
        devices.on_health_of(PROGRESSIVE_SYSTEM, self.on_health)

    @property
    def offered(self) -> bool:
        """The table offers progressive wagers and has a progressive system to take them."""
        return self.devices.progressive is not None and self.s.cfg.progressive.enabled

    def on_validated(self, listener: Callable[[str, list[prog.Hit], str], None]) -> None:
        """Call ``listener(round, hits, who)`` when a floor supervisor validates held wins."""
        self._on_validated.append(listener)

    def on_unreasonable(self, listener: Callable[[str], None]) -> None:
        """Call ``listener(meter)`` when an unreasonable contribution to ``meter`` is refused."""
        self._on_unreasonable.append(listener)

    def new_round(self) -> None:
        self.validation = []
        self._link_paid = {}

    def link_paid(self) -> dict[int, dict[str, Decimal]]:
        """On a link, what the round's progressive wins pay as the link took them, by seat and wager: the
        dealer pays these (``controller.round.chips``, P68, P80); empty off a link."""
        return self._link_paid

    # ------------------------------------------------------------------ enabled or disabled

    def disabled(self, why: str, cause: str = "not_answering", clauses: tuple[str, ...] = ()) -> None:
        """Progressive wagers are not taken (``why``, said to the dealer; ``cause`` and the ``clauses``
        ``why`` cites, for the status's ``told``)."""
        s = self.s
        r = s.round
        if self.off != why:
            s.journal.record(ev.ProgressiveDisabled(round=r.round_id if r else None, reason=why))
            s.log.error("progressive wagers disabled", reason=why)
        self.off = why
        self.off_told = told("progressive_disabled", cause=cause, clauses=clauses, device="progressive")
        s.tell(f"progressive wagers disabled: {why}", self.off_told)

    def enabled(self) -> None:
        if self.off is None:
            return
        s = self.s
        r = s.round
        s.journal.record(ev.ProgressiveEnabled(round=r.round_id if r else None))
        s.log.info("progressive wagers enabled again")
        self.off = None

    def on_health(self, health: Health) -> None:
        """The progressive system's health changed: wagers disabled while it does not answer."""
        s = self.s
        if not s.cfg.progressive.enabled:
            return
        if health is Health.OFFLINE:
            if self.off is None:
                self.disabled(NOT_ANSWERING)  # for the following rounds, until it is back
            return
        if self.off == NOT_ANSWERING:
            self.enabled()
            s.tell("progressive wagers enabled again: the progressive system answers",
                   told("progressive_enabled", device="progressive"))

    async def link_start(self) -> None:
        """At start, a linked table reaches its link (reconciled with the journal) and shows its meters."""
        if self.link is not None and self.s.cfg.progressive.enabled:
            from controller.progressive.link.meters import START_WAIT_S

            why = await self.link.connect(wait=START_WAIT_S)  # not reached by then: tried in the background
            if why is not None:
                self.s.log.error("progressive link not reached at start", reason=why)
            await self.show_signs()

    def table_state_changed(self) -> None:
        """The table opened, went idle or closed: a linked table tells its link now (a change of the link's
        parameters needs every table closed, P120); a link away is told at its next pass."""
        if self.link is not None and self.link.state_untold:
            from controller.progressive.link.meters import LINK_WAIT_S

            link = self.link

            async def tell() -> None:
                await link.sync(wait=LINK_WAIT_S)

            self.s.spawn(tell())

    async def link_changed(self) -> None:
        """The link's meters changed (another table's contribution or hit): the signs and the status."""
        await self.show_signs()
        self.s.publish()

    async def signs_ready(self) -> str | None:
        """None when the signs show the meters; else why progressive wagers cannot be taken on them.

        A linked table whose link is lost takes no progressive wager: its contributions could not be
        confirmed (NJAC 13:69E-1.39B); the link reached again, they are taken again."""
        if self.link is not None:
            from controller.progressive.link.meters import LINK_WAIT_S

            loop = asyncio.get_running_loop()
            self._link_until = loop.time() + LINK_WAIT_S  # this no more bets' whole wait on the link
            why = await self.link.sync(wait=LINK_WAIT_S)
            if why is not None:
                return why
        if self.sign_trouble is not None:
            await self.show_meters()  # the signs must show the meters before wagers are taken on them
            if self.sign_trouble is not None:
                return f"the meter signs are not answering ({self.sign_trouble})"
        return None

    async def show_meters(self) -> None:
        """The signs show the meters; on a linked table the open round's contributions (journaled
        already) are written to the link first and its meters read back (unconfirmed: sent again later)."""
        if self.link is not None:
            r = self.s.round
            why = await self.link.sync(r.round_id if r is not None else None, wait=self._link_wait())
            if why is not None:  # in the link's outbox: sent when it answers (P98)
                self.s.log.error("contributions not confirmed by the link", reason=why)
        await self.show_signs()

    def _link_wait(self) -> float:
        """How long a sync may wait on the link now: what is left of this no more bets' ``LINK_WAIT_S``
        (nothing when the link is already lost: the outbox holds the round); after any other press, the same
        ``LINK_WAIT_S``."""
        from controller.progressive.link.meters import LINK_WAIT_S

        assert self.link is not None
        until, self._link_until = self._link_until, None
        if self.link.down is not None:
            return 0.0
        if until is None:
            return LINK_WAIT_S
        return max(until - asyncio.get_running_loop().time(), 0.0)

    async def show_signs(self) -> None:
        s = self.s
        system = self.devices.progressive
        if system is None:
            return
        names = list(s.cfg.progressive.meters)
        values = s.meters.values()
        try:
            await system.set_meters({i: int(values[m] * 100) for i, m in enumerate(names)})
        except DeviceError as e:
            self.sign_trouble = str(e)  # progressive wagers are disabled at the next no more bets
            s.log.error("meter sign not updated", error=str(e))
        else:
            self.sign_trouble = None

    # ------------------------------------------------------------------ contributions (R7a)

    def refuse_unreasonable(self, split: Split) -> None:
        """A round's contribution to a meter above its ``unreasonable`` amount is refused: journaled, the dealer
        told, the floor alarmed, the no more bets refused (N.J.A.C. 13:69E-1.39A(a)6, P114, P120)."""
        s = self.s
        for m, c in s.cfg.progressive.meters.items():
            if c.unreasonable is not None and split.total(m) > c.unreasonable:
                r = s.round
                s.journal.record(ev.ContributionRefused(round=r.round_id if r else None, meter=m,
                                                        amount=split.total(m), unreasonable=c.unreasonable))
                s.log.error("unreasonable progressive contribution refused", meter=m, amount=str(split.total(m)))
                for listener in self._on_unreasonable:  # the floor's alarm, besides the dealer told (P120)
                    listener(m)
                raise Refused(f"the progressive contribution to {m} ({split.total(m)}) is above its unreasonable "
                              f"amount {c.unreasonable}: call the floor (N.J.A.C. 13:69E-1.39A(a)6)")

    def without_contribution(self, seat: int) -> dict[str, Decimal] | None:
        """The round's meters without the seat's progressive contribution (R7a), or None without one."""
        s = self.s
        r = s.open_round()
        if "progressive" not in r.seats[seat].wagers or not s.cfg.progressive.enabled:
            return None
        assert r.setup.progressive is not None
        taken = s.meters.take_back(s.journal.events(r.round_id), 1).meters  # negative (R7a, P114)
        return {m: Decimal(str(v)) + taken[m] for m, v in r.setup.progressive["meters"].items()}

    async def take_back_contribution(self, meters: Mapping[str, Decimal] | None) -> None:
        """Journal the contribution taken back with the round's new meters (R7a) and show them."""
        if meters is not None:
            await self.take_back_all(1)

    async def take_back_all(self, accepted: int) -> None:
        """A voided round returns its ``accepted`` progressive wagers: their contributions go back (R7a)."""
        s = self.s
        r = s.open_round()
        taken = s.meters.take_back(s.journal.events(r.round_id), accepted)  # negative (R7a, P114)
        s.journal.record(taken.event(), r.round_id)
        await self.show_meters()

    # ------------------------------------------------------------------ wins held for validation

    def hits(self) -> list[prog.Hit]:
        r = self.s.open_round()
        assert r.settlement is not None
        return prog.hits(self.s.game, r.settlement, r.setup.progressive, r.setup.paytables)

    async def hold_for_validation(self, restarted: bool = False) -> None:
        """UTH ch.11 §J(2)(a)-(c) (JHE ch.11 §K(2), HCF ch.11 §B(9)): the winner lit, the payout held."""
        s = self.s
        r = s.open_round()
        self.validation = prog.pending(s.journal, r.round_id, self.hits())
        if self.link is not None:
            self._link_paid = prog.validated_amounts(s.journal, r.round_id)  # a restart after validation
        if not self.validation:
            return
        if self.link is not None:
            await self.claim()
        clause = s.game.cite("progressive_validation")
        wins = "; ".join(h.describe() for h in self.validation)
        s.tell(f"{'restarted: ' if restarted else ''}PROGRESSIVE WIN held for validation: {wins} -- verify the "
               f"hand and the winner light; a floor supervisor validates with the key and confirm ({clause})",
               told("progressive_win", cause="restarted" if restarted else None, clauses=[clause],
                    seats={h.seat for h in self.validation}))
        s.log.warning("progressive win held for validation", round_id=r.round_id,
                      hits=[h.public() for h in self.validation])
        system = self.devices.progressive
        if system is not None:
            try:
                await system.set_lights(accepted=sorted(r.progressive_seats()),
                                        winner=sorted({h.seat for h in self.validation}))
            except DeviceError as e:  # the dealer verifies the light: the supervisor sees it is off
                s.log.error("winner light not set", error=str(e))

    async def validate(self) -> None:
        """The floor supervisor validated the held payouts: journal them, pay the meters, update the signs."""
        s = self.s
        r = s.open_round()
        clause = s.game.cite("progressive_validation")
        if self.unclaimed and not await self.claim():
            raise Refused(f"progressive win held: the link has not taken it yet ({self.link and self.link.down}); "
                          "validated once the link answers (NJAC 13:69E-1.39B)")
        who = await s.supervisor("validate_progressive")
        if who is None:
            seats = ", ".join(str(h) for h in sorted({h.seat for h in self.validation}))
            raise Refused(f"progressive win at seat {seats} held: a floor supervisor validates it with the "
                          f"key ({clause})")
        prog.record_validation(s.journal, r.round_id, self.validation, who)
        for listener in self._on_validated:
            listener(r.round_id, list(self.validation), who)
        if self.link is not None:
            for h in self.validation:
                if h.meter is not None:
                    await self.link.validated(r.round_id, h.index, who)
        paid = "; ".join(h.describe() for h in self.validation)
        won = {h.seat for h in self.validation}
        self.validation = []
        # a link's meters move with every table's wagers and hits: the settlement's are not expected there
        # (the link's payout is what was journaled, a difference recorded beside it: P68, P80)
        expected = r.settlement.meters if r.settlement is not None and self.link is None else {}
        now = s.meters.values()
        if any(now.get(m) != v for m, v in expected.items() if m in now):
            s.log.error("meters after validation differ from the settlement",
                        meters={k: str(v) for k, v in now.items()})
        await self.show_meters()
        s.tell(f"progressive payout validated by {who}: pay {paid}; pay and collect as shown, then confirm",
               told("progressive_validated", seats=won))

    async def claim(self) -> bool:
        """A linked table's metered wins taken by the link in the database's order: each is paid p x the
        meter as the link holds it when taken, the meter dropping to no less than its reset (R4); the
        validation list carries those amounts.  False when the link is lost (they stay unclaimed)."""
        s = self.s
        r = s.open_round()
        assert self.link is not None
        game = s.game
        name = game.paytable_of.get("progressive", "progressive")
        lines = {line.key: line for line in paytable(game.name, name, r.setup.paytables.get(name)).lines}
        claimed: list[prog.Hit] = []
        self.unclaimed = []
        for h in self.validation:
            pays = lines[h.line].pays if h.meter is not None and h.line in lines else None
            if not isinstance(pays, MeterPercent) or h.meter is None:
                claimed.append(h)
                continue
            from controller.progressive.link.store import LinkError

            try:
                taken = await self.link.claim(r.round_id, h.index, h.seat, h.line, h.meter, pays.percent)
            except LinkError:
                self.unclaimed.append(h)
                claimed.append(h)
                continue
            if taken.paid != h.amount:
                s.log.warning("linked hit paid as the link took it", seat=h.seat, meter=h.meter, seq=taken.seq,
                              settled=str(h.amount), paid=str(taken.paid))
            claimed.append(prog.taken_by_link(h, taken.paid, taken.after))  # P68; a difference kept (P80)
        self.validation = claimed
        for h in claimed:
            self._link_paid.setdefault(h.seat, {})[h.wager] = h.amount
        await self.show_signs()
        return not self.unclaimed
