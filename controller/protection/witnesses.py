"""Three witnesses to every card: the shuffler's count and stacks, the shoe's reads, the hands scored (issue 28).

One ledger a round (``Witnesses``), fed by the deal as the devices report: each card read with the position
its device gave it (``Read``), each stack with the places it was delivered for; ``read`` answers at once when a
report contradicts the ones before it (a position read twice, a card read twice), ``reconcile`` before the
settlement when the hands to be scored do not match the reads (a card scored that no device read, one read in a
stack delivered for other places, or dealt to another place, a face-up card scored, positions that leave a gap,
a stack of another deck).  Any of them is a card switched (``FINDING``): the deal's caller voids every hand under
the game's wrong-number-of-cards clause and removes the deck (P111; docs/protection.md "Three witnesses").

Pure: no device, no journal.  The ledger lives in memory for its round; a round resumed after a restart has the
journal's cards as its only witness before the restart (``partial``: what was read then is not checked again).
Nothing here is logged or served: a discrepancy's evidence names places and positions, never a card.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: the protection finding this module raises (controller.events.ProtectionFinding's ``finding``)
FINDING = "card_switched"

#: what each discrepancy and the finding are, in words (web/words.py)
WORDS: dict[str, str] = {
    FINDING: "Card switched: the devices' reads and the hands scored disagree",
    "position_read_twice": "A position of the deck read twice",
    "card_read_twice": "The same card read twice",
    "not_read": "A card scored that no device read",
    "wrong_stack": "A card scored from a stack delivered for other places",
    "wrong_place": "A card scored at another place than it was dealt to",
    "face_up_scored": "A card found face up was scored",
    "position_gap": "The reads leave a gap in the deck's order",
    "other_deck": "A stack from another deck than the one dealt",
}


@dataclass(frozen=True)
class Read:
    """One card a device reported: ``device`` "shoe" or "shuffler", its ``position`` in the deck since the shuffle
    or the load (1-based), the ``stack`` it came in (the shuffler's delivery index), the ``deck`` letter."""

    device: str
    position: int
    card: str
    face_up: bool = False
    stack: int | None = None
    deck: str | None = None


@dataclass(frozen=True)
class Discrepancy:
    """What two witnesses disagree on: ``what`` a code of ``WORDS``; ``evidence`` places and positions only."""

    what: str
    evidence: dict[str, Any] = field(default_factory=dict)


@dataclass
class Witnesses:
    """The ledger of one round: start it with ``start``; feed ``read``, ``stack`` and ``placed``."""

    round_id: str | None = None
    deck: str | None = None  # the deck letter the round is dealt from (UTH ch.3 §B), when a shuffler says it
    reads: list[Read] = field(default_factory=list)
    stacks: list[frozenset[str]] = field(default_factory=list)  # the places each stack was delivered for
    places: dict[str, str] = field(default_factory=dict)  # card -> the place it was dealt to
    partial: bool = False

    def start(self, round_id: str, deck: str | None = None, *, partial: bool = False) -> None:
        self.round_id, self.deck, self.partial = round_id, deck, partial
        self.reads, self.stacks, self.places = [], [], {}

    def stack(self, places: Sequence[str]) -> int:
        """A stack is asked of the shuffler for ``places``: its index, for the reads it brings."""
        self.stacks.append(frozenset(places))
        return len(self.stacks) - 1

    def read(self, r: Read) -> Discrepancy | None:
        """A device reported ``r``: what it contradicts among the reads before it, or None."""
        for earlier in self.reads:
            if earlier.device == r.device and earlier.position == r.position:
                self.reads.append(r)
                return Discrepancy("position_read_twice", {"device": r.device, "position": r.position})
            if earlier.card == r.card:
                self.reads.append(r)
                return Discrepancy("card_read_twice", {"device": r.device, "positions": [earlier.position, r.position]})
        if r.deck is not None and self.deck is not None and r.deck != self.deck:
            self.reads.append(r)
            return Discrepancy("other_deck", {"device": r.device, "deck": r.deck, "dealt": self.deck})
        self.reads.append(r)
        return None

    def placed(self, place: str, card: str) -> None:
        """The round journaled ``card`` at ``place`` (again after a re-placement: RET ch.13 §G)."""
        self.places[card] = place

    def reconcile(self, scored: Mapping[str, Sequence[str]]) -> list[Discrepancy]:
        """The hands to be scored (``scored_places``) against the reads: every discrepancy, in place order."""
        found: list[Discrepancy] = []
        by_card = {r.card: r for r in self.reads}
        for place, cards in scored.items():
            for card in cards:
                r = by_card.get(card)
                if r is None:
                    if not self.partial:
                        found.append(Discrepancy("not_read", {"place": place}))
                    continue
                if r.face_up:
                    found.append(Discrepancy("face_up_scored", {"place": place, "position": r.position}))
                if r.stack is not None and place not in self.stacks[r.stack]:
                    found.append(Discrepancy("wrong_stack", {"place": place, "position": r.position,
                                                             "stack": r.stack + 1}))
                dealt_to = self.places.get(card)
                if dealt_to is not None and dealt_to != place:
                    found.append(Discrepancy("wrong_place", {"place": place, "dealt_to": dealt_to,
                                                             "position": r.position}))
        for device in sorted({r.device for r in self.reads}):
            positions = sorted(r.position for r in self.reads if r.device == device)
            if positions and positions[-1] - positions[0] + 1 != len(positions):
                missing = sorted(set(range(positions[0], positions[-1] + 1)) - set(positions))
                found.append(Discrepancy("position_gap", {"device": device, "missing": missing[:10]}))
        return found


def scored_places(settle_input: Mapping[str, Any]) -> dict[str, list[str]]:
    """The settle contract's input (``controller.round.settlement.settle_input``) as cards by the deal's places:
    ``seat:N``, ``dealer``, ``community:I`` (or ``community:<name>``), ``bonus``."""
    out: dict[str, list[str]] = {}
    for seat in settle_input.get("seats", ()):
        out[f"seat:{seat['seat']}"] = list(seat.get("cards", ()))
    if settle_input.get("dealer"):
        out["dealer"] = list(settle_input["dealer"])
    community = settle_input.get("community")
    if isinstance(community, Mapping):
        for name, card in community.items():
            out[f"community:{name}"] = [card]
    elif community:
        for i, card in enumerate(community):
            out[f"community:{i}"] = [card]
    if settle_input.get("bonus_cards"):
        out["bonus"] = list(settle_input["bonus_cards"])
    return out


def evidence(found: Sequence[Discrepancy]) -> dict[str, Any]:
    """The finding's evidence (numbers and places, never a card): each discrepancy with its figures."""
    return {"discrepancies": [{"what": d.what, **d.evidence} for d in found]}
