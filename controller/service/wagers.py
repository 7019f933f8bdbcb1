"""No more bets: the deck checks, the bet sensors read, the lock-out engaged, the wagers placed.

UTH ch.8 §C / UTH ch.10 §A(2): at the dealer's no_more_bets press the table checks that a round may be
dealt (a card source in service, the decks' age and alternation), reads the bet sensors (on the
progressive unit), engages the progressive wager lock-out (``controller.service.lockout``) before
any card leaves, and places every sensed wager after checking them all against the table's
wagers and limits: a refusal journals nothing.
"""

from __future__ import annotations

from decimal import Decimal

from controller.irregularities import clause
from controller.service.devices import Devices
from controller.service.life import Life
from controller.service.lockout import WagerLockout
from controller.service.progressive import NOT_ANSWERING, ProgressiveSystem
from controller.service.refused import Refused, ask
from controller.service.session import Session
from controller.service.told import told
from drivers.health import Health


class Wagers:
    def __init__(self, s: Session, devices: Devices, life: Life, progressive: ProgressiveSystem,
                 lockout: WagerLockout) -> None:
        self.s = s
        self.devices = devices
        self.life = life
        self.progressive = progressive
        self.lockout = lockout

    async def no_more_bets(self) -> None:
        """UTH ch.8 §C / UTH ch.10 §A(2): no more bets; the lock-out set and confirmed before any card leaves."""
        s = self.s
        progressive = self.progressive
        r = s.open_round()
        devices = self.devices
        if devices.no_card_source:
            where = clause('out_of_order', s.game.short)
            raise Refused(f"{devices.no_card_source} ({where}): no round until a device is back in service",
                          "no_card_source", clauses=[where])
        self.life.check_deck_age()
        self.life.check_alternation()
        system = devices.progressive
        offered = progressive.offered
        if system is not None and system.health is Health.OFFLINE:
            # the bet sensors are on the progressive unit: no wager can be read, nothing is journaled
            # for the round; it stays open for wagers until the system answers again
            if offered:
                progressive.disabled(NOT_ANSWERING)
            raise Refused("progressive wagers disabled: the progressive system is not answering "
                          "(its bet sensors too): no more bets once it is back", "not_answering")
        bets = await system.read_bets() if system else {}
        areas = [w for w in s.game.wagers if w != "progressive"]  # bet-sensor area i = wager i (docs)
        accepted = await self.lockout.engage() if offered else []
        playing = {seat for seat, by_area in bets.items() if by_area}
        sensed: list[tuple[int, str, Decimal]] = []
        cfg = s.cfg
        for seat in sorted(playing):
            if seat > cfg.seats:
                raise Refused(f"chips at seat {seat}, but this table has {cfg.seats} seats")
            for area, cents in sorted(bets[seat].items()):
                wager = areas[area] if area < len(areas) else f"area {area}"
                if wager in devices.closed_wagers:
                    raise Refused(f"seat {seat}: chips on {wager}, closed while the table deals by "
                                       f"{cfg.dealing.procedure.replace('_', ' ')} (UTH ch.10 §B(1), P55)")
                if wager not in cfg.wagers and wager not in s.game.antes:
                    raise Refused(f"seat {seat}: chips on {wager}, which this table does not offer")
                amount = Decimal(cents) / 100
                low, high = cfg.limits(wager)
                if not low <= amount <= high:
                    raise Refused(f"seat {seat}: {wager} {amount} is outside the table limits {low}-{high}")
                sensed.append((seat, wager, amount))
        meters = contributions = None
        if cfg.progressive.enabled:
            # the contributions go on the meters as the wagers are accepted (UTH ch.8 §C); this round's
            # progressive hands are paid from the meters with them (R4)
            split = s.meters.split(len(accepted))
            progressive.refuse_unreasonable(split)  # N.J.A.C. 13:69E-1.39A(a)6 (P114): nothing journaled but that
            meters = {m: v + split.meters[m] for m, v in s.meters.values().items()}
            contributions = split.event()
        # the wagers, no more bets and the contributions: one fact, one transaction (all checked first: a
        # refusal journals nothing; a crash leaves all or none of it on disk)
        ask(r.can_close_wagers(sensed, accepted))
        await r.close_wagers(sensed, progressive_seats=accepted, meters=meters,
                             contributions=contributions if accepted else None)
        if accepted:
            await progressive.show_meters()
        said = (f"no more bets: {len(playing)} players, {len(accepted)} progressive wagers accepted -- "
                "check the chips and confirm")
        data = told("wagers_closed",
                    counts={"players": len(playing), "progressive_accepted": len(accepted)})
        if offered and progressive.off:
            said = (f"progressive wagers disabled: {progressive.off} -- return any progressive chips; "
                    f"no more bets: {len(playing)} players, no progressive wagers -- confirm")
            off = progressive.off_told  # its cause and clauses, as said when they were disabled
            data = told("wagers_closed", cause=off["cause"], clauses=off["clauses"],
                        counts={"players": len(playing), "progressive_accepted": 0},
                        also=["progressive_disabled"])
        s.tell(said, data)
