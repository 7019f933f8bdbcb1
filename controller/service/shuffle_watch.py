"""The shuffle monitor in the daemon (issue 28; docs/protection.md "The shuffle monitor"; P110).

After each press, while a round is out: which deck it is dealt from and the shuffler's read of each card's
position in it.  Once the round is over (closed or void): the observation -- the cards read, in their
positions, and the order they go back into the shuffler (the stub first, never read, UTH ch.10 §C(4); then
the round's cards in the order dealt) -- goes to the pure monitor (``controller.protection.shuffle``), is
journaled (``DeckObserved``, with the monitor's small state) and each finding is journaled
(``ProtectionFinding``) and raised as an alarm (``protection_shuffle``, ``protection_replay``) until a floor
supervisor acknowledges it.  At start the monitor is rebuilt from the journaled observations, not replayed.
Nothing is observed before the round is over, and no card is named in a finding.  A table whose card-reading
shoe reads the cards (no shuffler, or it out of order) observes the shoe's deck, each load once, with no order
fed (P124): the replay index and the card-by-position counts.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from controller import events as ev
from controller.protection.shuffle import DeckObservation, Finding, ShuffleMonitor
from controller.round.machine import Phase
from controller.service.alarms import Alarms, Condition
from controller.service.devices import Devices
from controller.service.session import Session

#: the alarm each finding raises
ALARM_OF = {"replayed_deck": "protection_replay"}
ALARMS = ("protection_shuffle", "protection_replay")
CLAUSE = "P110"
SHOE = "shoe"  # the deck of a table whose shoe reads the cards (no order fed known, P124)


class ShuffleWatch:
    def __init__(self, s: Session, devices: Devices, alarms: Alarms) -> None:
        self.s = s
        self.devices = devices  # the shuffler: the position of each card read
        self.alarms = alarms  # the findings' alarms, until acknowledged
        self.monitor = ShuffleMonitor()
        self.raised: dict[str, str] = {}  # alarm key -> alarm kind, open until a supervisor acknowledges it
        self._round: str | None = None  # the round out, its deck and the positions read so far
        self._deck: str | None = None
        self._positions: dict[str, int] = {}
        self._load: int | None = None  # a shoe's: the load the positions are of
        self._observed_load: int | None = None  # the shoe's load last observed: one deck, one observation
        alarms.add_source(self.conditions)

    def start(self) -> None:
        """The monitor as the journaled observations left it; the findings' alarms still open, open."""
        j = self.s.journal
        observed = [e.typed for e in j.events_of(ev.DeckObserved.kind)]
        seen = [t for t in observed if isinstance(t, ev.DeckObserved)]
        if seen:
            self.monitor = ShuffleMonitor.rebuild(seen[-1].monitor, [t.read for t in seen])
        for a in self.alarms.open.values():
            if a.kind in ALARMS and a.acknowledged is None:
                self.raised[a.key] = a.kind

    def conditions(self) -> dict[str, Condition]:
        for key in [k for k in self.raised if (a := self.alarms.open.get(k)) is not None and a.acknowledged]:
            del self.raised[key]  # acknowledged: the finding is the supervisor's now
        return {key: Condition("protection_replay", "high", (CLAUSE,), device="shuffler") if kind == "protection_replay"
                else Condition("protection_shuffle", "high", (CLAUSE,), device="shuffler")
                for key, kind in self.raised.items()}

    def after_press(self) -> None:
        devices = self.devices
        shoe = devices.shoe if devices.shoe_reads_the_cards else None  # the device that reads the round's cards
        source = shoe or devices.shuffler
        if source is None:
            return
        r = self.s.round
        out = r is not None and r.phase is not Phase.COMPLETE and r.phase is not Phase.WAGERS
        if self._round is not None and (not out or r is None or r.round_id != self._round):
            self._observe(self._round, self._deck, self._positions)
            self._round, self._deck, self._positions, self._load = None, None, {}, None
        if out and r is not None:
            positions = source.positions()
            if positions:
                # a table without a shuffler (P124): the shoe's deck, the order it was shuffled in by hand unknown
                deck = SHOE if shoe is not None else self.s.life.last_shuffled
                self._round, self._deck, self._positions = r.round_id, deck, positions
                self._load = shoe.loads if shoe is not None else None

    def _observe(self, round_id: str, deck: str | None, positions: dict[str, int]) -> None:
        if deck is None:
            return
        if deck == SHOE:
            # positions count from the shoe's load: a second round from one load is no deck of its own
            if self._load == self._observed_load:
                return
            self._observed_load = self._load
        read: list[str] = []
        for card, pos in sorted(positions.items(), key=lambda cp: cp[1]):
            if pos != len(read) + 1:
                break  # a position not read: the prefix before it counts
            read.append(card)
        if not read:
            return
        collected: list[str | None] = []  # a shoe's deck: not known (P124)
        shuffler = self.devices.shuffler
        if deck != SHOE:
            if shuffler is None:
                return
            dealt = [t.card for e in self.s.journal.events(round_id) if isinstance(t := e.typed, ev.CardDealt)]
            back = [c for c in dict.fromkeys(dealt) if c in positions and positions[c] <= len(read)]
            back += [c for c in read if c not in back]  # a card read but not dealt (face up, discarded) last
            collected = [None] * max(0, shuffler.deck_size - len(read))
            collected += back
        findings = self.monitor.observe(DeckObservation(deck, tuple(read), tuple(collected), round_id))
        j = self.s.journal
        j.record(ev.DeckObserved(deck=deck, round=round_id, read=tuple(read), collected=tuple(collected),
                                 monitor=exact(self.monitor.summary())))  # the table's: the round is closed
        for f in findings:
            self._found(f, round_id)

    def _found(self, f: Finding, round_id: str) -> None:
        p = Decimal(f"{f.p_value:.3g}") if f.p_value is not None else None
        self.s.journal.record(ev.ProtectionFinding(finding=f.finding, evidence=exact(f.evidence), round=round_id,
                                                   deck=f.deck, p_value=p))
        kind = ALARM_OF.get(f.finding, "protection_shuffle")
        self.raised[f"{kind}:{round_id}:{f.finding}"] = kind
        self.s.log.warning("protection finding", finding=f.finding, deck=f.deck, round=round_id)


def exact(value: Any) -> Any:
    """``value`` with each float as the Decimal of its shortest repr (the journal takes no binary float)."""
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, dict):
        return {k: exact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [exact(v) for v in value]
    return value
