"""The table around its rounds (chapters 3-5 of every game) and the progressive meters.

The table's own life, journaled as table events (``round_id`` None) with who
and when:

    closed -> opening -> open -> closed

Opening (UTH ch.4, lettered alike in every game): the dealer inspects the decks (§A), a
floor supervisor verifies the inspection with the key switch (§A), the cards are spread for
the first player, washed and stacked (§B-§C), then shuffled (UTH ch.5 §A) -- with an
automated shuffler, by the shuffler, which must count 52 cards (UTH ch.5 §E, HCF ch.5 §C,
RET ch.5 §B).  Preinspected, preshuffled decks skip these steps (UTH ch.4 §F).  No round starts
on a table that has not completed opening.

The meters (issue: progressive system) live in the journal: contributions when
progressive wagers are accepted, taken back when a round is voided (R7a), the
meters after each settlement.  ``Meters.values()`` reads them from the journal's state, kept
current as they are appended (P58); the table's life is checkpointed with it and rebuilt at start
from the latest checkpoint and the table events after it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from controller import events as ev
from controller.config.table import TableConfig
from controller.journal.store import Journal
from controller.round.machine import TableSetup
from games.facts import Cited
from games.money import round_cents

STEPS: dict[str, tuple[str, bool, tuple[Cited, ...]]] = {
    # step: (button, needs the supervisor's key, the clauses, cited by the game's own numbers: Game.cite)
    "decks_inspected": ("confirm", False, ("inspection",)),
    "inspection_verified": ("confirm", True, ("inspection",)),
    "cards_spread_washed_stacked": ("deal", False, ("spread",)),
    "preinspected_decks_received": ("confirm", False, ("preinspected",)),
    # reopening an idle table (UTH, JHE ch.5 §H; HCF ch.5 §G; RET ch.5 §F), P67
    "cards_removed_from_shoe_and_discard_rack": ("confirm", False, ("idle_clears_shoe",)),
    "cards_spread_for_the_first_player": ("deal", False, ("idle",)),
    "cards_turned_down_washed_stacked": ("deal", False, ("turned_down", "idle")),
    "shuffled": ("shuffle", False, ("shuffle",)),
    "cards_cut": ("deal", False, ("cut",)),
}


class TableState(enum.StrEnum):
    CLOSED = "closed"
    OPENING = "opening"
    OPEN = "open"
    IDLE = "idle"


#: the table's states and steps in a person's words (web/words.py); a step of one deck is ``step:A``
WORDS: dict[str, str] = {
    TableState.CLOSED: "Table closed", TableState.OPENING: "Table opening", TableState.OPEN: "Table open",
    TableState.IDLE: "Table idle",
    "decks_inspected": "Inspect the decks",
    "inspection_verified": "Supervisor verifies the inspection",
    "cards_spread_washed_stacked": "Spread, wash and stack the cards",
    "preinspected_decks_received": "Preinspected decks received",
    "cards_removed_from_shoe_and_discard_rack": "Remove the cards from the shoe and the discard rack",
    "cards_spread_for_the_first_player": "Spread the cards for the first player",
    "cards_turned_down_washed_stacked": "Turn the cards down, wash and stack them",
    "shuffled": "Shuffle",
    "cards_cut": "Cut the cards",
}


def opening_steps(cfg: TableConfig) -> list[str]:
    """Steps from decks received to the first round (chapters 4 and 5 of each game, to the cut).

    Preinspected, preshuffled decks skip them (UTH ch.4 §F).  With an automated
    shuffler and two decks, each deck is inspected, spread, washed, stacked and
    shuffled (UTH ch.4 §E).  Without one, the shuffled deck is cut (UTH ch.5 §D(2), §F; HCF ch.5 §D(2),
    §E; RET ch.5 §C(2), §D).
    """
    if cfg.dealing.preinspected:
        return ["preinspected_decks_received"]
    decks = ["A", "B"] if cfg.dealing.decks == 2 else [None]
    steps: list[str] = []
    for deck in decks:
        for step in ("decks_inspected", "inspection_verified", "cards_spread_washed_stacked", "shuffled"):
            steps.append(f"{step}:{deck}" if deck else step)
    return steps + ([] if cfg.automated_shuffler else ["cards_cut"])


def between_round_steps(cfg: TableConfig) -> list[str]:
    """After each round the cards are shuffled (UTH ch.5 §A(2)); by hand, then cut (UTH ch.5 §D(2), §F;
    HCF ch.5 §D(2), §E; RET ch.5 §C(2), §D).

    An automated shuffler shuffles by itself (the daemon asks it) and needs no cut (UTH ch.5 §D(1),
    RET ch.5 §C(1)).
    """
    return [] if cfg.automated_shuffler else ["shuffled", "cards_cut"]


def reopening_steps(cfg: TableConfig) -> list[str]:
    """A table idle with no play is opened again with the steps of chapter 4 of each game (P67).

    UTH and JHE ch.5 §H, HCF ch.5 §G, RET ch.5 §F: the cards are spread (face down unless a player
    asks otherwise) for the first player arriving, then the procedures of the game's chapter 4 are
    completed: turned face down, washed and stacked (UTH ch.4 §C), shuffled (§D), each deck when there
    are two (§E); HCF and RET first remove the cards from the shoe and the discard rack (HCF ch.5 §G(1),
    RET ch.5 §F(1)).  A hand-shuffled deck is then cut (UTH ch.5 §D(2), HCF ch.5 §D(2), RET ch.5 §C(2)).
    The decks are not received again: no new inspection (UTH ch.4 §A is done when decks are received).
    """
    steps = ["cards_removed_from_shoe_and_discard_rack"] if cfg.game_rules.reopening_clears_shoe else []
    decks = ["A", "B"] if cfg.dealing.decks == 2 else [None]
    for deck in decks:
        for step in ("cards_spread_for_the_first_player", "cards_turned_down_washed_stacked", "shuffled"):
            steps.append(f"{step}:{deck}" if deck else step)
    return steps + ([] if cfg.automated_shuffler else ["cards_cut"])


class TableLife(ev.Applier):
    """The table's own steps (UTH ch.3-ch.5), rebuilt from the journal's table events.

    ``required`` are the steps still to be done before the next round may start;
    each is done by a button on the dealer's panel (some with the supervisor's
    key) and journaled with who did it.
    """

    def __init__(self, cfg: TableConfig, journal: Journal) -> None:
        self.cfg = cfg
        self.journal = journal
        self.state = TableState.CLOSED
        self.required: list[str] = []
        self.decks_since: datetime | None = None  # when the decks in use were received (UTH ch.3 §C)
        self.out_of_order: set[str] = set()  # covered or signed out of order (the game's ``out_of_order`` clause; P43)
        self.last_shuffled: str | None = None  # the deck the shuffler shuffled last: the one in play
        self.last_dealt: str | None = None  # the deck the last round was dealt from (UTH ch.3 §B)
        self.last_count: int | None = None  # the shuffler's count after its last shuffle (``deck_count``: UTH ch.5 §E)
        # the decks received (and inspected, UTH ch.4 §A-§E): the first ``decks`` the shuffler brought into
        # play after their receipt; no other deck is dealt (UTH ch.3 §A(1), §B; HCF ch.3 §A, RET ch.3 §A)
        self.decks_in_use: list[str] = []
        # from the latest checkpoint holding the table's life (P58), then the table events after it
        cp = journal.latest_checkpoint(with_part="table")
        after = 0
        if cp is not None and cp[1].table is not None:
            after = cp[0]
            self.restore(cp[1].table)
        for e in journal.events(None, after=after):
            if self.applies_to(e.kind):  # the others (the progressive system's, ...) are not read here
                self.apply(e.typed, datetime.fromisoformat(e.at))
        journal.checkpoint_parts["table"] = self.checkpoint
        if self.state is TableState.CLOSED and not self.required:
            self.require(opening_steps(cfg), f"the decks are received ({cfg.game_rules.cite('opening')})")

    def checkpoint(self) -> dict[str, Any]:
        """The table's life as a checkpoint holds it (P58; ``restore`` reads it back)."""
        return {
            "state": self.state.value,
            "required": list(self.required),
            "decks_since": self.decks_since.isoformat() if self.decks_since else None,
            "out_of_order": sorted(self.out_of_order),
            "last_shuffled": self.last_shuffled,
            "last_dealt": self.last_dealt,
            "last_count": self.last_count,
            "decks_in_use": list(self.decks_in_use),
        }

    def restore(self, part: Mapping[str, Any]) -> None:
        """The table's life as a checkpoint held it."""
        self.state = TableState(part["state"])
        self.required = list(part["required"])
        self.decks_since = datetime.fromisoformat(part["decks_since"]) if part["decks_since"] else None
        self.out_of_order = set(part["out_of_order"])
        self.last_shuffled, self.last_dealt = part["last_shuffled"], part["last_dealt"]
        self.last_count = part["last_count"]
        self.decks_in_use = list(part["decks_in_use"])

    def apply(self, event: ev.AnyEvent, at: datetime) -> None:
        """Apply one table event journaled at ``at`` (the one path, live and from the journal); the table
        events that are not the table's life (the progressive system's, a device's refused input) change nothing."""
        applier = self.applier(event)
        if applier is not None:
            applier(event, at)

    @ev.applies(ev.StepDone)
    def _apply_step_done(self, e: ev.StepDone, at: datetime) -> None:
        if e.step.startswith(("decks_inspected", "preinspected")):
            if not e.step.endswith(":B"):
                self.decks_since = at  # new decks at the table (with two decks: from the first one's inspection)
                self.decks_in_use = []
            self.last_dealt = None  # new decks
        if e.deck:
            self._shuffled(e.deck, e.count)
        if self.required and self.required[0] == e.step:
            self.required.pop(0)
        if self.state is TableState.CLOSED:
            self.state = TableState.OPENING

    def _shuffled(self, deck: str, count: int | None) -> None:
        """The deck the shuffler brought into play; the first ``decks`` of them after the decks are received
        are the table's (UTH ch.3 §A(1), §B; HCF ch.3 §A, RET ch.3 §A; P57)."""
        self.last_shuffled, self.last_count = deck, count
        if deck not in self.decks_in_use and len(self.decks_in_use) < self.cfg.dealing.decks:
            self.decks_in_use.append(deck)

    @ev.applies(ev.DeckShuffled)
    def _apply_deck_shuffled(self, e: ev.DeckShuffled, at: datetime) -> None:
        if e.deck:
            self._shuffled(e.deck, e.count)

    @ev.applies(ev.DeckRemoved)
    def _apply_deck_removed(self, e: ev.DeckRemoved, at: datetime) -> None:
        self.decks_in_use = []  # the decks that come next are received and inspected anew

    @ev.applies(ev.DeckDealt)
    def _apply_deck_dealt(self, e: ev.DeckDealt, at: datetime) -> None:
        self.last_dealt = e.deck

    @ev.applies(ev.StepsRequired)
    def _apply_steps_required(self, e: ev.StepsRequired, at: datetime) -> None:
        self.required = list(e.steps)

    @ev.applies(ev.DeviceOutOfOrder)
    def _apply_device_out_of_order(self, e: ev.DeviceOutOfOrder, at: datetime) -> None:
        self.out_of_order.add(e.device)

    @ev.applies(ev.DeviceInService)
    def _apply_device_in_service(self, e: ev.DeviceInService, at: datetime) -> None:
        self.out_of_order.discard(e.device)

    @ev.applies(ev.TableOpened)
    def _apply_table_opened(self, e: ev.TableOpened, at: datetime) -> None:
        self.state = TableState.OPEN

    @ev.applies(ev.TableIdle)
    def _apply_table_idle(self, e: ev.TableIdle, at: datetime) -> None:
        self.state = TableState.IDLE

    @ev.applies(ev.TableClosed)
    def _apply_table_closed(self, e: ev.TableClosed, at: datetime) -> None:
        self.state, self.required = TableState.CLOSED, []

    def deck_age_hours(self, now: datetime | None = None) -> float | None:
        if self.decks_since is None:
            return None
        now = now or datetime.now(UTC)
        return (now - self.decks_since).total_seconds() / 3600

    def require(self, steps: list[str], why: str, who: str | None = None) -> None:
        if steps:
            self.record(ev.StepsRequired(steps=tuple(steps), why=why), who=who)

    def next_step(self) -> tuple[str, str, bool, str] | None:
        """(step, button, needs the key, clause) of the next required step, or None."""
        if not self.required:
            return None
        step = self.required[0]
        button, key, clauses = STEPS[step.split(":")[0]]
        return step, button, key, self.cfg.game_rules.cite(*clauses)

    def record_many(self, events: Sequence[ev.JournalEvent], who: str | None = None) -> None:
        """Journal table events as one fact, in one transaction (the last opening step with the table
        opened: a crash between them would leave a table opening with no step left), then apply them."""
        now = datetime.now(UTC)
        if not any(isinstance(e, ev.TableClosed) for e in events):
            self.journal.record_many(events, who=who)
            for e in events:
                self.apply(e, now)
            return
        # the table's closing is followed by a checkpoint in the same transaction (P58), which holds the
        # life after it: applied first then, and undone if the write fails
        saved = self.checkpoint()
        for e in events:
            self.apply(e, now)
        try:
            self.journal.record_many(events, who=who, checkpoint=ev.TableClosed.kind)
        except BaseException:
            self.restore(saved)
            raise

    def recover(self) -> str | None:
        """At start: finish what a daemon stopped between two table events journaled before they were one
        transaction left half done (journals of earlier versions).  Every opening step done but the table
        not opened: it is opened; idle with no reopening step required: they are required (P67).  What was
        done, or None."""
        if self.required:
            return None
        if self.state is TableState.OPENING:
            self.record(ev.TableOpened())
            return "opened: every opening step was done"
        if self.state is TableState.IDLE:
            self.require(reopening_steps(self.cfg), "no play: the reopening steps (P67)")
            return "idle: the reopening steps are required"
        return None

    def record(self, event: ev.JournalEvent, who: str | None = None) -> None:
        """Journal a table event (its declared type, ``controller.events``), then apply it."""
        self.record_many([event], who=who)


@dataclass(frozen=True)
class Split:
    """A contribution (or its taking back, negative) as it goes: onto each meter, into its reserve (the hidden
    rate) and into its overflow (beyond the limit), P114.  ``total`` is all three: what the wagers gave."""

    meters: dict[str, Decimal]
    reserve: dict[str, Decimal]
    overflow: dict[str, Decimal]

    def total(self, meter: str) -> Decimal:
        return self.meters[meter] + self.reserve.get(meter, Decimal(0)) + self.overflow.get(meter, Decimal(0))

    def event(self) -> ev.MeterAdd:
        """The ``meter_add`` of it (reserve and overflow left out when none: as before P114)."""
        return ev.MeterAdd(meters=dict(self.meters), reserve={m: v for m, v in self.reserve.items() if v} or None,
                           overflow={m: v for m, v in self.overflow.items() if v} or None)


def split_one(given: Decimal, hidden: Decimal, value: Decimal,
              limit: Decimal | None) -> tuple[Decimal, Decimal, Decimal]:
    """One meter's contribution ``given`` as it goes, (onto the meter, to the reserve, to the overflow): the hidden
    share ``hidden`` to the reserve, the rest onto the meter (at ``value`` now) up to its ``limit``, beyond it to the
    overflow (N.J.A.C. 13:69E-1.39A(a)4-5, P114).  The link's ``link_split`` is the same (migrations/004)."""
    visible = given - hidden
    room = visible if limit is None else min(visible, max(limit - value, Decimal(0)))
    return room, hidden, visible - room


def take_back_one(given: Decimal, hidden: Decimal, overflowed: Decimal) -> tuple[Decimal, Decimal, Decimal]:
    """The taking back of ``given`` (its hidden share ``hidden``; both positive), negative, as (from the meter,
    from the reserve, from the overflow): from what the round put into the overflow (``overflowed``) first, it
    went there last, then from the meter (R7a, P114).  The link's ``link_take_back`` is the same."""
    visible = given - hidden
    from_overflow = min(visible, max(overflowed, Decimal(0)))
    return -(visible - from_overflow), -hidden, -from_overflow


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
            journal.record(ev.MeterSet(meters=missing))

    def values(self) -> dict[str, Decimal]:
        return {m: v for m, v in self.journal.meter_values().items() if m in self.cfg.progressive.meters}

    def pending_elsewhere(self) -> list[dict[str, Any]]:
        """Hits of a linked progressive awaiting validation at any table (none on a table of its own:
        its own held wins are the status's ``validation``)."""
        return []

    def contributions(self, wagers: int) -> dict[str, Decimal]:
        """What ``wagers`` progressive wagers add to each meter: its rate of progression × unit each."""
        p = self.cfg.progressive
        if p.unit is None:  # the configuration requires the unit of an enabled progressive
            raise ValueError("progressive.unit is not configured")
        return {m: round_cents(c.rate * p.unit * wagers) for m, c in p.meters.items()}

    def _hidden(self, wagers: int) -> dict[str, Decimal]:
        p = self.cfg.progressive
        unit = p.unit or Decimal(0)
        return {m: round_cents(c.hidden_rate * unit * wagers) for m, c in p.meters.items()}

    def split(self, wagers: int) -> Split:
        """What ``wagers`` progressive wagers give, as it goes (N.J.A.C. 13:69E-1.39A(a)4-5, P114): the hidden
        rate's share to the reserve, the rest onto the meter up to its limit, beyond it to the overflow."""
        values = self.values()
        hidden = self._hidden(wagers)
        out = Split({}, {}, {})
        for m, given in self.contributions(wagers).items():
            limit = self.cfg.progressive.meters[m].limit
            out.meters[m], out.reserve[m], out.overflow[m] = split_one(given, hidden[m], values.get(m, Decimal(0)),
                                                                       limit)
        return out

    def take_back(self, round_events: Sequence[Any], wagers: int) -> Split:
        """The taking back of ``wagers`` of a round's contributions (R7a), negative: the reserve its hidden share;
        the rest from what the round put into the overflow first (it went there last), then from the meter."""
        hidden = self._hidden(wagers)
        overflowed: dict[str, Decimal] = {}
        for e in round_events:
            if e.kind == ev.MeterAdd.kind:
                for m, v in (e.data.get("overflow") or {}).items():
                    overflowed[m] = overflowed.get(m, Decimal(0)) + Decimal(str(v))
        out = Split({}, {}, {})
        for m, given in self.contributions(wagers).items():
            out.meters[m], out.reserve[m], out.overflow[m] = take_back_one(given, hidden[m],
                                                                           overflowed.get(m, Decimal(0)))
        return out

    def accounts(self) -> dict[str, dict[str, Decimal]]:
        """The reserve and overflow meters now (P114)."""
        return self.journal.meter_accounts()

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
