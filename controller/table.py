"""The table around its rounds (chapters 3-5 of every game) and the progressive meters.

The table's own life, journaled as table events (``round_id`` None) with who
and when:

    closed -> opening -> open -> closed

Opening (ch.4): the dealer inspects the decks (§A), a floor supervisor verifies
the inspection with the key switch (§A), the cards are spread for the first
player, washed and stacked (§B-§C), then shuffled (ch.5 §A) -- with an
automated shuffler, by the shuffler, which must count 52 cards (ch.5 §E).
Preinspected, preshuffled decks skip these steps (ch.4 §F).  No round starts
on a table that has not completed opening.

The meters (issue: progressive system) live in the journal: contributions when
progressive wagers are accepted, taken back when a round is voided (R7a), the
meters after each settlement.  ``meters()`` replays them.
"""

from __future__ import annotations

import enum
from decimal import Decimal
from typing import Any, Mapping

from controller.config import TableConfig
from controller.journal import Journal
from controller.round import TableSetup
from games.money import round_cents

OPENING_STEPS = (
    # (step, button, needs the supervisor's key, clause)
    ("decks_inspected", "confirm", False, "ch.4 §A"),
    ("inspection_verified", "confirm", True, "ch.4 §A"),
    ("cards_spread_washed_stacked", "deal", False, "ch.4 §B-§C"),
    ("shuffled", "shuffle", False, "ch.5 §A(1)"),
)


class TableState(str, enum.Enum):
    CLOSED = "closed"
    OPENING = "opening"
    OPEN = "open"


class TableLife:
    """The table's opening steps, rebuilt from the journal's table events."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.done: list[str] = []
        self.state = TableState.CLOSED
        for e in journal.events(None):
            self._apply(e.kind)

    def _apply(self, kind: str) -> None:
        if kind == "table_opened":
            self.state = TableState.OPEN
        elif kind == "table_closed":
            self.state, self.done = TableState.CLOSED, []
        elif kind in {s[0] for s in OPENING_STEPS}:
            self.state = TableState.OPENING
            self.done.append(kind)

    def next_step(self) -> tuple[str, str, bool, str] | None:
        if self.state is TableState.OPEN:
            return None
        for step in OPENING_STEPS:
            if step[0] not in self.done:
                return step
        return None

    def record(self, kind: str, data: Mapping[str, Any] | None = None, who: str | None = None) -> None:
        self.journal.append(None, kind, data or {}, who=who)
        self._apply(kind)


class Meters:
    """The progressive meters of the table, exact to the cent, from the journal."""

    def __init__(self, cfg: TableConfig, journal: Journal) -> None:
        self.cfg = cfg
        self.journal = journal
        p = cfg.progressive
        self.enabled = p.enabled
        values = journal.meter_values()
        missing = {m: c.initial for m, c in p.meters.items() if m not in values}
        if self.enabled and missing:
            # first start: the initial amounts of the configuration (checked against the rules' minimums)
            journal.append(None, "meter_set", {"meters": missing})

    def values(self) -> dict[str, Decimal]:
        return {m: v for m, v in self.journal.meter_values().items() if m in self.cfg.progressive.meters}

    def contributions(self, wagers: int) -> dict[str, Decimal]:
        """What ``wagers`` progressive wagers add to each meter: its rate of progression × unit each."""
        p = self.cfg.progressive
        return {m: round_cents(c.rate * p.unit * wagers) for m, c in p.meters.items()}

    def setup_block(self) -> dict[str, Any] | None:
        """The settle contract's progressive block with the meters as they are now."""
        p = self.cfg.progressive
        if not p.enabled:
            return None
        block: dict[str, Any] = {
            "unit": p.unit,
            "meters": self.values(),
            "reset": {m: c.reset for m, c in p.meters.items()},
            "envy_requires_progressive_wager": p.envy_requires_progressive_wager,
        }
        if p.envy:
            block["envy"] = p.envy
        return block


def round_setup(cfg: TableConfig, meters: Meters) -> TableSetup:
    return TableSetup(
        game=cfg.game,
        paytables=cfg.paytable_letters(),
        progressive=meters.setup_block(),
        payout_limit=cfg.payout_limit,
    )


def setup_from_journal(data: Mapping[str, Any]) -> TableSetup:
    """The ``TableSetup`` a round was opened with, from its ``round_opened`` event (amounts as text there)."""
    p = data.get("progressive")
    progressive = None
    if p:
        progressive = {
            **p,
            "unit": Decimal(p["unit"]),
            "meters": {k: Decimal(v) for k, v in p["meters"].items()},
            "reset": {k: Decimal(v) for k, v in p["reset"].items()},
        }
    limit = data.get("payout_limit")
    return TableSetup(
        game=data["game"],
        paytables=dict(data["paytables"]),
        progressive=progressive,
        payout_limit=Decimal(limit) if limit is not None else None,
    )
